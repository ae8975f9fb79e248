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

/** An admitted sign-in attempt; settle it once. Later calls, and release() after a verdict, do nothing. */
export interface ThrottleTicket {
  /** The password check failed: count a failure for the account and the address. */
  failed(): void;
  /** The password check passed: clear the account's failures (not the address's). */
  succeeded(): void;
  /** No verdict was reached (e.g. the database failed): count nothing. */
  release(): void;
}

/** The throttle's answer to a new attempt. */
export type ThrottleGate =
  | { admitted: false; retryAfter: number }
  | { admitted: true; ticket: ThrottleTicket };

/**
 * Counts failed sign-ins per account and per address in a sliding window. A blocked key clears by
 * itself when its oldest failure leaves the window, so nobody can lock a victim out for long.
 * State is per process; several instances each apply the limits.
 *
 * An attempt counts against the limits from the moment it is admitted, not only once its slow
 * password check has failed; otherwise every request already in flight would pass the check and
 * concurrent guesses would have no cap.
 */
export class LoginThrottle {
  readonly #clock: Clock;
  readonly #limits: ThrottleLimits;
  readonly #failures = new Map<string, number[]>();
  /** Admitted attempts not yet settled, per key. */
  readonly #inFlight = new Map<string, number>();

  constructor(clock: Clock, limits: ThrottleLimits = DEFAULT_THROTTLE) {
    this.#clock = clock;
    this.#limits = limits;
  }

  /**
   * Admits an attempt (held as in flight until its ticket is settled) or says how many seconds to
   * wait. The check and the reservation happen in one synchronous step, so concurrent callers
   * cannot all slip through.
   */
  admit(account: string, address: string): ThrottleGate {
    const accountKey = `a:${account}`;
    const addressKey = `i:${address}`;
    const retryAfter = Math.max(
      this.#wait(accountKey, this.#limits.perAccount),
      this.#wait(addressKey, this.#limits.perAddress),
    );
    if (retryAfter > 0) return { admitted: false, retryAfter };
    this.#adjustInFlight(accountKey, 1);
    this.#adjustInFlight(addressKey, 1);

    let settled = false;
    const settle = (verdict: () => void) => {
      if (settled) return;
      settled = true;
      this.#adjustInFlight(accountKey, -1);
      this.#adjustInFlight(addressKey, -1);
      verdict();
    };
    return {
      admitted: true,
      ticket: {
        failed: () => settle(() => this.#recordFailure(accountKey, addressKey)),
        succeeded: () => settle(() => this.#failures.delete(accountKey)),
        release: () => settle(() => {}),
      },
    };
  }

  #recordFailure(...keys: string[]): void {
    const now = this.#clock.now();
    for (const key of keys) {
      const list = this.#prune(key);
      list.push(now);
      this.#failures.set(key, list);
    }
    if (this.#failures.size > 100_000) this.#sweep();
  }

  #adjustInFlight(key: string, delta: number): void {
    const n = (this.#inFlight.get(key) ?? 0) + delta;
    if (n > 0) this.#inFlight.set(key, n);
    else this.#inFlight.delete(key);
  }

  /** Seconds to wait for `key`, counting each in-flight attempt as a failure made now. */
  #wait(key: string, limit: number): number {
    const list = this.#prune(key);
    const count = list.length + (this.#inFlight.get(key) ?? 0);
    if (count < limit) return 0;
    // Only attempts still being checked fill the limit (a class signing in at once behind one
    // address): their verdicts come within a second, so wait that long, not the whole window.
    if (list.length < limit) return 1;
    const now = this.#clock.now();
    // The attempt that must leave the window before another is allowed; in-flight ones are newest.
    const oldest = list[count - limit] ?? now;
    return Math.max(1, Math.ceil((oldest + this.#limits.windowMs - now) / 1000));
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
