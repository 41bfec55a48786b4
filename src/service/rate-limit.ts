/**
 * Token buckets per key (an account, a Login user name): `perSecond` requests per second on
 * average, bursts of `burst`. In memory, per server process: two instances each allow the rate.
 */
export interface RateLimit {
  /** Sustained requests per second (0 = no limit). */
  perSecond: number;
  /** Requests allowed at once after a quiet spell (default 2 × perSecond). */
  burst?: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string | number, { tokens: number; at: number }>();
  private readonly rate: number;
  private readonly burst: number;

  constructor(limit: RateLimit, private readonly clock: () => number = () => performance.now()) {
    this.rate = Math.max(0, limit.perSecond);
    this.burst = Math.max(1, limit.burst ?? Math.ceil(2 * this.rate));
  }

  get enabled(): boolean {
    return this.rate > 0;
  }

  /** Takes one token for `key`: 0 when allowed, else the whole seconds to wait before the next one. */
  take(key: string | number): number {
    if (this.rate <= 0) return 0;
    const now = this.clock();
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size > 100_000) this.sweep(now);
      b = { tokens: this.burst, at: now };
      this.buckets.set(key, b);
    }
    b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.rate);
    b.at = now;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / this.rate));
  }

  /** Forgets full buckets (keys quiet long enough to be back at the burst). */
  private sweep(now: number): void {
    for (const [k, b] of this.buckets) if (b.tokens + ((now - b.at) / 1000) * this.rate >= this.burst) this.buckets.delete(k);
  }
}
