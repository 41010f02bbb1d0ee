#!/usr/bin/env python3
"""Read ct-lag.bt's output: cyclictest's lag at its wakeups, its resets, who runs first."""
import collections
import sys


def fields(parts):
    d = {}
    for kv in parts:
        if '=' in kv:
            k, v = kv.split('=', 1)
            try:
                d[k] = int(v, 16) if k == 'flags' else int(v)
            except ValueError:
                pass
    return d


def avg_vruntime(d):
    # avg_vruntime(): curr counts when on the queue (weights scaled down by 1024)
    w, s = d['sw'], d['swv']
    if d['cur'] == 1 and d['conrq'] == 1:
        cw = d['cw'] >> 10
        s += (d['cvr'] - d['zv']) * cw
        w += cw
    return d['zv'] + s / w if w else d['zv']


def q(xs, p):
    xs = sorted(xs)
    return xs[int(p * (len(xs) - 1))] if xs else float('nan')


recs = []
for line in open(sys.argv[1]):
    p = line.split()
    if p and p[0] in ('E', 'W'):
        d = fields(p[4:])
        d.update(kind=p[0], t=int(p[1]), pid=int(p[3]))
        recs.append(d)
    elif p and p[0] == 'S':
        recs.append({'kind': 'S', 't': int(p[1]), 'cpu': int(p[2]), 'next': int(p[-1]), 'nextc': p[-2]})
meas = collections.Counter(d['pid'] for d in recs if d['kind'] == 'W').most_common(1)[0][0]
placed, stored, first, resets, drift = [], None, collections.Counter(), 0, []
pending, last = {}, None
for d in recs:
    if d['kind'] == 'E' and d['pid'] == meas:
        stored = d['vlag']
        if last is not None:
            drift.append(stored - last)
    elif d['kind'] == 'W' and d['pid'] == meas:
        lag = avg_vruntime(d) - d['vr']
        placed.append(lag)
        if stored is not None and d['nq'] == 1 and abs(lag - stored) > 100_000:
            resets += 1  # placed on an empty queue: place_entity() applies no lag
        last, stored = lag, None
        pending[d['tcpu']] = True
    elif d['kind'] == 'S' and pending.pop(d['cpu'], None):
        first['cyclictest' if d['next'] == meas else d['nextc']] += 1
print(f'measuring thread {meas}: {len(placed)} wakeups')
print('lag at placement (us): p10 %.0f p50 %.0f p90 %.0f' % tuple(q(placed, p) / 1e3 for p in (0.1, 0.5, 0.9)))
print(f'resets (woken on an empty queue): {resets}')
print('lag change per cycle (us): mean %.1f p10 %.0f p90 %.0f' % (sum(drift) / max(1, len(drift)) / 1e3, q(drift, 0.1) / 1e3, q(drift, 0.9) / 1e3))
print('first to run after the wakeup:', first.most_common(4))
