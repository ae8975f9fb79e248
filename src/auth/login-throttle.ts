import type { Clock } from '../clock.ts';

/** Limits of the sign-in throttle. */
export interface ThrottleLimits {
  /** Failures allowed per account within the window before sign-in is refused. */
  perAccount: number;
  /** Failures allowed per client address within the window (across accounts). */
  perAddress: number;
  windowMs: number;
}

export const DEFAULT_THROTTLE: ThrottleLimits = { perAccount: 10, perAddress: 50, windowMs: 15 * 60_000 };

/**
 * Counts failed sign-ins per account and per address in a sliding window. A blocked key clears by
 * itself when its oldest failure leaves the window, so nobody can lock a victim out for long.
 * State is per process; several instances each apply the limits.
 */
export class LoginThrottle {
  readonly #clock: Clock;
  readonly #limits: ThrottleLimits;
  readonly #failures = new Map<string, number[]>();

  constructor(clock: Clock, limits: ThrottleLimits = DEFAULT_THROTTLE) {
    this.#clock = clock;
    this.#limits = limits;
  }

  /** Seconds until the next attempt is allowed, or 0 when it is allowed now. */
  retryAfter(account: string, address: string): number {
    const a = this.#wait(`a:${account}`, this.#limits.perAccount);
    const b = this.#wait(`i:${address}`, this.#limits.perAddress);
    return Math.max(a, b);
  }

  recordFailure(account: string, address: string): void {
    const now = this.#clock.now();
    for (const key of [`a:${account}`, `i:${address}`]) {
      const list = this.#prune(key);
      list.push(now);
      this.#failures.set(key, list);
    }
    if (this.#failures.size > 100_000) this.#sweep();
  }

  /** A successful sign-in clears the account's failures (not the address's). */
  recordSuccess(account: string): void {
    this.#failures.delete(`a:${account}`);
  }

  #wait(key: string, limit: number): number {
    const list = this.#prune(key);
    if (list.length < limit) return 0;
    const oldest = list[list.length - limit] ?? this.#clock.now();
    return Math.max(1, Math.ceil((oldest + this.#limits.windowMs - this.#clock.now()) / 1000));
  }

  #prune(key: string): number[] {
    const since = this.#clock.now() - this.#limits.windowMs;
    const list = (this.#failures.get(key) ?? []).filter((t) => t > since);
    if (list.length === 0) this.#failures.delete(key);
    else this.#failures.set(key, list);
    return list;
  }

  #sweep(): void {
    for (const key of [...this.#failures.keys()]) this.#prune(key);
  }
}
