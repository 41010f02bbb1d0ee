import type { StatSummary } from '../../shared/result'

export const US = 1000

/** Running count/min/max/sum of a per-iteration figure, O(1) memory. */
export class Stat {
  count = 0
  min = Infinity
  max = -Infinity
  sum = 0

  reset(): void {
    this.count = 0
    this.min = Infinity
    this.max = -Infinity
    this.sum = 0
  }

  add(v: number): void {
    this.count++
    this.sum += v
    if (v < this.min) this.min = v
    if (v > this.max) this.max = v
  }

  /** In microseconds from nanoseconds, rounded to 0.001 us for stable JSON. */
  summaryUs(): StatSummary {
    if (this.count === 0) return { count: 0, min: 0, avg: 0, max: 0 }
    const r = (ns: number): number => Math.round(ns) / 1000
    return { count: this.count, min: r(this.min), avg: r(this.sum / this.count), max: r(this.max) }
  }
}
