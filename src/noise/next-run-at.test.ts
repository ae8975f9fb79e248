import { describe, expect, it } from 'vitest';
import { computeNextRunAt, jitterMs } from './next-run-at.ts';

const T = Date.parse('2026-03-01T12:03:07.250Z');
const fixed = (value: number) => () => value;

describe('computeNextRunAt', () => {
  it('adds interval_seconds to the finish time when there is no jitter', () => {
    expect(computeNextRunAt({ kind: 'interval', interval_seconds: 90 }, T, fixed(0.99))).toBe(T + 90_000);
  });

  it('accepts fractional intervals, rounded to the millisecond', () => {
    expect(computeNextRunAt({ kind: 'interval', interval_seconds: 1.5 }, T)).toBe(T + 1500);
  });

  it('adds 0 jitter for random 0 and the whole jitter for random just below 1', () => {
    const s = { kind: 'interval' as const, interval_seconds: 60, jitter_seconds: 30 };
    expect(computeNextRunAt(s, T, fixed(0))).toBe(T + 60_000);
    expect(computeNextRunAt(s, T, fixed(0.9999999999))).toBe(T + 90_000);
    expect(computeNextRunAt(s, T, fixed(0.5))).toBe(T + 60_000 + 15_000);
  });

  it('keeps every jittered interval time within [finish + interval, finish + interval + jitter]', () => {
    const s = { kind: 'interval' as const, interval_seconds: 10, jitter_seconds: 2.5 };
    let seed = 42;
    const lcg = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const seen = new Set<number>();
    for (let i = 0; i < 5000; i++) {
      const next = computeNextRunAt(s, T, lcg) as number;
      expect(next).toBeGreaterThanOrEqual(T + 10_000);
      expect(next).toBeLessThanOrEqual(T + 12_500);
      expect(Number.isInteger(next - T)).toBe(true);
      seen.add(next - T - 10_000);
    }
    // Spread over the whole range, not stuck at one end.
    expect(Math.min(...seen)).toBeLessThan(100);
    expect(Math.max(...seen)).toBeGreaterThan(2400);
  });

  it('takes the next matching cron time strictly after the finish time, in UTC', () => {
    expect(computeNextRunAt({ kind: 'cron', cron: '*/5 * * * *' }, T)).toBe(
      Date.parse('2026-03-01T12:05:00Z'),
    );
    expect(computeNextRunAt({ kind: 'cron', cron: '0 3 * * *' }, T)).toBe(Date.parse('2026-03-02T03:00:00Z'));
    const onTheMinute = Date.parse('2026-03-01T12:05:00.000Z');
    expect(computeNextRunAt({ kind: 'cron', cron: '*/5 * * * *' }, onTheMinute)).toBe(
      Date.parse('2026-03-01T12:10:00Z'),
    );
  });

  it('supports a seconds field as the first of six', () => {
    expect(computeNextRunAt({ kind: 'cron', cron: '*/20 * * * * *' }, T)).toBe(
      Date.parse('2026-03-01T12:03:20Z'),
    );
  });

  it('adds the same jitter bounds to cron times', () => {
    const s = { kind: 'cron' as const, cron: '0 * * * *', jitter_seconds: 600 };
    const hour = Date.parse('2026-03-01T13:00:00Z');
    expect(computeNextRunAt(s, T, fixed(0))).toBe(hour);
    expect(computeNextRunAt(s, T, fixed(0.9999999999))).toBe(hour + 600_000);
  });

  it('answers null for a cron expression with no future match', () => {
    expect(computeNextRunAt({ kind: 'cron', cron: '0 0 30 2 *' }, T)).toBeNull();
  });

  it('schedules an overdue job from the finish of its late run, without catching up missed times', () => {
    // Down for two hours: the run that happens on return is followed by one interval, not a backlog.
    const lateFinish = T + 2 * 3600_000;
    expect(computeNextRunAt({ kind: 'interval', interval_seconds: 60 }, lateFinish)).toBe(
      lateFinish + 60_000,
    );
    expect(computeNextRunAt({ kind: 'cron', cron: '*/5 * * * *' }, lateFinish)).toBe(
      Date.parse('2026-03-01T14:05:00Z'),
    );
  });
});

describe('jitterMs', () => {
  it('is 0 without jitter whatever the random source says', () => {
    expect(jitterMs(0, fixed(0.7))).toBe(0);
  });

  it('covers 0 … jitter inclusive in whole milliseconds', () => {
    expect(jitterMs(1, fixed(0))).toBe(0);
    expect(jitterMs(1, fixed(0.5))).toBe(500);
    expect(jitterMs(1, fixed(0.999999))).toBe(1000);
  });
});
