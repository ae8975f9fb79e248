import { describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter, type RetryPolicy, realWait } from './backoff.ts';

const policy: RetryPolicy = { attempts: 6, baseMs: 200, capMs: 5_000 };

describe('backoffDelay', () => {
  it('grows exponentially from the base and is capped, each retry jittered within its own window', () => {
    // Retry r waits between base · 2^(r-1) and base · 2^r (capped): the first retry is jittered too,
    // and each window starts where the one before ends, so delays never shrink.
    const rows: Array<[retry: number, low: number, high: number]> = [
      [1, 200, 400],
      [2, 400, 800],
      [3, 800, 1_600],
      [4, 1_600, 3_200],
      [5, 3_200, 5_000],
      [6, 5_000, 5_000],
      [12, 5_000, 5_000],
    ];
    for (const [retry, low, high] of rows) {
      expect(
        backoffDelay(retry, policy, () => 0),
        `retry ${retry}`,
      ).toBe(low);
      expect(
        backoffDelay(retry, policy, () => 0.999_999),
        `retry ${retry}`,
      ).toBe(high);
      expect(
        backoffDelay(retry, policy, () => 0.5),
        `retry ${retry}`,
      ).toBe(Math.round((low + high) / 2));
    }
  });

  it('never goes below the base nor above the cap, whatever the random source says', () => {
    for (let retry = 1; retry < 20; retry++) {
      for (const r of [0, 0.1, 0.37, 0.5, 0.99]) {
        const d = backoffDelay(retry, policy, () => r);
        expect(d).toBeGreaterThanOrEqual(200);
        expect(d).toBeLessThanOrEqual(5_000);
      }
    }
  });

  it('never waits less than before, whatever the random source says', () => {
    const sources = [0, 0.2, 0.5, 0.8, 0.999_999];
    for (let retry = 2; retry < 12; retry++) {
      for (const before of sources)
        for (const now of sources)
          expect(backoffDelay(retry, policy, () => now)).toBeGreaterThanOrEqual(
            backoffDelay(retry - 1, policy, () => before),
          );
    }
  });

  it('waits longer when the server asks for it, but never beyond the cap', () => {
    expect(backoffDelay(1, policy, () => 0, 1_500)).toBe(1_500);
    expect(backoffDelay(1, policy, () => 0, 60_000)).toBe(5_000);
    expect(backoffDelay(3, policy, () => 0, 100)).toBe(800);
  });
});

describe('parseRetryAfter', () => {
  it('reads delta seconds and HTTP dates, and ignores anything else', () => {
    const now = Date.parse('2026-03-01T12:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter(['7'], now)).toBe(7_000);
    expect(parseRetryAfter('Sun, 01 Mar 2026 12:00:02 GMT', now)).toBe(2_000);
    expect(parseRetryAfter('Sun, 01 Mar 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('realWait', () => {
  it('resolves false at once when the signal is already aborted', async () => {
    expect(await realWait(60_000, AbortSignal.abort())).toBe(false);
  });

  it('resolves false when the signal aborts during the wait', async () => {
    const controller = new AbortController();
    const waiting = realWait(60_000, controller.signal);
    controller.abort();
    expect(await waiting).toBe(false);
  });
});
