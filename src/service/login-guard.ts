/**
 * Login's defences. A wrong password costs the caller time, not the user: failed attempts are
 * counted per (user name, client address), so that nobody can lock a user out from elsewhere;
 * after {@link LoginGuardOptions.freeFailures} failures in a row, each further attempt from that
 * address for that name must wait a delay that doubles per failure (1 s, 2 s, 4 s, … up to
 * `maxDelayMs`), and a success clears the count. Keys and open sessions are never touched.
 * Password hashing (scrypt, ~50 ms of a core) is the expensive part, so it is bounded per client
 * address (a token bucket) and in total (hashes waiting at once): attempts past either bound are
 * answered at once without hashing. Every answer is a Login Status Failed with a message, never a
 * refusal (the original's clients expect a LoginResult).
 */
import { RateLimiter, type RateLimit } from './rate-limit.js';

export interface LoginGuardOptions {
  /** Failed attempts per (user name, address) before delays start (default 5). */
  freeFailures?: number;
  /** First delay after the free failures (default 1 s); it doubles with each further failure. */
  firstDelayMs?: number;
  /** Longest delay (default 5 min). */
  maxDelayMs?: number;
  /** Password hashes per client address (default 2 per second, bursts of 20). */
  hashesPerAddress?: RateLimit;
  /** Hashes in progress or waiting at once, all addresses together (default 32). */
  maxHashesInFlight?: number;
  clock?: () => number;
}

export type LoginVerdict = { ok: true; release(): void } | { ok: false; message: string };

interface Failures { count: number; until: number; at: number }

export class LoginGuard {
  private readonly failures = new Map<string, Failures>();
  private readonly hashes: RateLimiter;
  private inFlight = 0;
  private readonly free: number;
  private readonly first: number;
  private readonly max: number;
  private readonly maxInFlight: number;
  private readonly clock: () => number;

  constructor(o: LoginGuardOptions = {}) {
    this.free = o.freeFailures ?? 5;
    this.first = o.firstDelayMs ?? 1000;
    this.max = o.maxDelayMs ?? 300_000;
    this.maxInFlight = o.maxHashesInFlight ?? 32;
    this.clock = o.clock ?? Date.now;
    this.hashes = new RateLimiter(o.hashesPerAddress ?? { perSecond: 2, burst: 20 });
  }

  private static key(user: string, client: string | undefined): string {
    return `${user.toLowerCase()}\u0000${client ?? '?'}`;
  }

  /** May this attempt hash a password now? When it may, call `release()` once the hash is done. */
  admit(user: string, client: string | undefined): LoginVerdict {
    const now = this.clock();
    const f = this.failures.get(LoginGuard.key(user, client));
    if (f && f.until > now) {
      return { ok: false, message: `Too many failed Login attempts for this user name from this address: retry in ${Math.ceil((f.until - now) / 1000)} s.` };
    }
    const wait = this.hashes.take(`addr:${client ?? '?'}`);
    if (wait > 0) return { ok: false, message: `Too many Login attempts from this address: retry in ${wait} s.` };
    if (this.inFlight >= this.maxInFlight) return { ok: false, message: 'The server is busy with Login attempts: retry in a moment.' };
    this.inFlight++;
    let released = false;
    return { ok: true, release: () => { if (!released) { released = true; this.inFlight--; } } };
  }

  /** Records the outcome of an admitted attempt. */
  record(user: string, client: string | undefined, success: boolean): void {
    const k = LoginGuard.key(user, client);
    if (success) { this.failures.delete(k); return; }
    const now = this.clock();
    if (this.failures.size > 100_000) this.sweep(now);
    const f = this.failures.get(k) ?? { count: 0, until: 0, at: now };
    // a quiet hour forgets old failures
    if (now - f.at > 3_600_000) f.count = 0;
    f.count++;
    f.at = now;
    // from the freeFailures-th failure on: 1 s, then 2 s, 4 s, … before the next attempt
    const over = f.count - this.free + 1;
    f.until = over > 0 ? now + Math.min(this.max, this.first * 2 ** Math.min(30, over - 1)) : 0;
    this.failures.set(k, f);
  }

  private sweep(now: number): void {
    for (const [k, f] of this.failures) if (f.until <= now && now - f.at > 3_600_000) this.failures.delete(k);
  }
}
