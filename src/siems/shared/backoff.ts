import { setTimeout as sleep } from 'node:timers/promises';

/** How often and how patiently a driver repeats a send that failed for a retriable reason. */
export interface RetryPolicy {
  /** Sends in total, the first one included (1 = never retry). */
  readonly attempts: number;
  /** Shortest delay before the first retry, in ms (it waits between this and twice this). */
  readonly baseMs: number;
  /** Longest delay between two attempts, in ms (also caps a server's Retry-After). */
  readonly capMs: number;
}

/** Six sends over roughly 6 to 11 seconds: rides out a busy indexer without holding a run for minutes. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 6, baseMs: 200, capMs: 5_000 };

/**
 * Delay before retry number `retry` (1 = first retry): exponential from `baseMs`, capped, with
 * jitter so a fleet of senders does not retry in step, the first retry included. Retry r waits
 * between base · 2^(r − 1) and base · 2^r, both capped: every delay lies in [base, cap], and none is
 * shorter than the one before (each window starts where the previous one ends). A server's
 * Retry-After wins when it asks for more, still within the cap.
 */
export function backoffDelay(
  retry: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
  retryAfterMs?: number,
): number {
  const r = Math.max(1, retry);
  const floor = Math.min(policy.capMs, policy.baseMs * 2 ** (r - 1));
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** r);
  const jittered = Math.round(floor + random() * (ceiling - floor));
  if (retryAfterMs === undefined) return jittered;
  return Math.min(policy.capMs, Math.max(jittered, retryAfterMs));
}

/**
 * Retry-After as milliseconds from `now`: delta seconds or an HTTP date; undefined when absent or
 * unreadable (the caller's own backoff then applies).
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Waits `ms` unless `signal` aborts first; resolves false when aborted (never throws). */
export type Wait = (ms: number, signal: AbortSignal) => Promise<boolean>;

/** The real wait: a timer that an abort cuts short. */
export const realWait: Wait = async (ms, signal) => {
  if (signal.aborted) return false;
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
};
