import type { NoiseSchedule } from './schedule.ts';
import { parseCron } from './schedule.ts';

/** A source of uniform random numbers in [0, 1), like Math.random; injected so tests are exact. */
export type RandomSource = () => number;

/**
 * When a job runs next (decisions.md §5), in epoch ms, or null when a cron expression has no
 * future match. Interval: `from` + interval_seconds + a random 0…jitter_seconds. Cron: the next
 * matching time strictly after `from` + the same jitter. `from` is the finish time of the run (or
 * "now" when a job is created or re-enabled), so runs missed during downtime are not caught up:
 * the overdue run happens once and the schedule continues from its end.
 */
export function computeNextRunAt(
  schedule: NoiseSchedule,
  from: number,
  random: RandomSource = Math.random,
): number | null {
  const jitter = jitterMs(schedule.jitter_seconds ?? 0, random);
  if (schedule.kind === 'interval') {
    return from + Math.round((schedule.interval_seconds ?? 0) * 1000) + jitter;
  }
  const next = parseCron(schedule.cron ?? '').nextRun(new Date(from));
  return next === null ? null : next.getTime() + jitter;
}

/** A whole number of milliseconds in 0…jitterSeconds (both ends included). */
export function jitterMs(jitterSeconds: number, random: RandomSource): number {
  const max = Math.round(jitterSeconds * 1000);
  if (max <= 0) return 0;
  // random() < 1, so floor(random() * (max + 1)) is at most max.
  return Math.min(max, Math.floor(random() * (max + 1)));
}
