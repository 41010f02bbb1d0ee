import type { TaskContext } from '../kernel/api'

/**
 * User-space synchronisation objects built on the kernel's block/wake: what pthread mutexes,
 * condition variables, semaphores and barriers (futexes underneath) do to scheduling. A task
 * that must wait registers itself and ends its step with `k.block(task)`; the waker calls
 * `k.wake(target, flags)`. The simulation is single-threaded, so register-then-block is atomic.
 */

/** FIFO of blocked tasks. */
export class WaitQueue {
  private q: number[] = []
  /** The other buffer: wakeAll() swaps it in, so a wakeup allocates nothing. */
  private spare: number[] = []

  get size(): number {
    return this.q.length
  }

  add(task: number): void {
    this.q.push(task)
  }

  has(task: number): boolean {
    return this.q.includes(task)
  }

  remove(task: number): void {
    const i = this.q.indexOf(task)
    if (i >= 0) this.q.splice(i, 1)
  }

  /** Wake the oldest waiter (exclusive wakeup). Returns its id or -1. */
  wakeOne(k: TaskContext, flags = 0): number {
    const t = this.q.shift()
    if (t === undefined) return -1
    k.wake(t, flags)
    return t
  }

  /** Wake every waiter (non-exclusive wakeup). Returns how many. */
  wakeAll(k: TaskContext, flags = 0): number {
    const all = this.q
    const n = all.length
    if (n === 0) return 0
    // a woken task that waits again lands in the fresh (empty) buffer, as with splice(0)
    this.q = this.spare
    this.spare = all
    for (let i = 0; i < n; i++) k.wake(all[i], flags)
    all.length = 0
    return n
  }
}

/**
 * A futex-based mutex as glibc implements it: unlock wakes one waiter, which then competes for
 * the lock again (another task may take it first: no hand-off). Waiters keep their place.
 */
export class Mutex {
  owner = -1
  private readonly waiters: number[] = []
  /** Waiters that were woken and have not retried yet. */
  private readonly woken = new Set<number>()

  /** Take the lock if free. On failure the task is queued and must block. */
  tryLock(task: number): boolean {
    if (this.owner === -1 || this.owner === task) {
      this.owner = task
      const i = this.waiters.indexOf(task)
      if (i >= 0) this.waiters.splice(i, 1)
      this.woken.delete(task)
      return true
    }
    this.woken.delete(task)
    if (!this.waiters.includes(task)) this.waiters.push(task)
    return false
  }

  /** Release; wakes the first waiter not already woken. Returns false if `task` did not hold it. */
  unlock(task: number, k: TaskContext): boolean {
    if (this.owner !== task) return false
    this.owner = -1
    for (const w of this.waiters) {
      if (this.woken.has(w)) continue
      this.woken.add(w)
      k.wake(w, 0)
      break
    }
    return true
  }

  get waiting(): readonly number[] {
    return this.waiters
  }
}

/** Counting semaphore starting at 0; posts accumulate, a post to a waiter hands it over. */
export class Semaphore {
  count = 0
  private readonly q = new WaitQueue()

  post(k: TaskContext): void {
    if (this.q.wakeOne(k, 0) < 0) this.count++
  }

  /** True when a unit was taken; otherwise the task is queued and must block. */
  tryWait(task: number): boolean {
    if (this.count > 0) {
      this.count--
      return true
    }
    this.q.add(task)
    return false
  }
}
