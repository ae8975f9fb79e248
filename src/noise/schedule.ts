import { Cron } from 'croner';

/** When a noise job runs (spec 2.3, decisions.md §4): a fixed interval or a cron expression (UTC). */
export interface NoiseSchedule {
  kind: 'interval' | 'cron';
  /** Required for `interval`: seconds between the end of one run and the start of the next. */
  interval_seconds?: number;
  /** Required for `cron`: 5 fields (minute precision) or 6 (with seconds first), evaluated in UTC. */
  cron?: string;
  /** Optional: a random 0…jitter_seconds is added to every next run time. */
  jitter_seconds?: number;
}

export const SCHEDULE_KINDS = ['interval', 'cron'] as const;
/** Bounds of the schedule numbers: at least one second apart, at most a year; jitter up to a day. */
export const MIN_INTERVAL_SECONDS = 1;
export const MAX_INTERVAL_SECONDS = 366 * 24 * 3600;
export const MAX_JITTER_SECONDS = 24 * 3600;
export const MAX_CRON_LENGTH = 200;

/**
 * Checks a schedule and returns it normalized (only the fields of its kind), or the problems keyed
 * by field path (`schedule.cron`, …). A cron expression must parse and have a future run time.
 */
export function checkSchedule(
  input: Record<string, unknown>,
  now: number,
):
  | { schedule: NoiseSchedule; problems?: undefined }
  | { schedule?: undefined; problems: Record<string, string> } {
  const problems: Record<string, string> = {};
  const kind = input.kind;
  if (kind !== 'interval' && kind !== 'cron') {
    return { problems: { 'schedule.kind': `must be one of ${SCHEDULE_KINDS.join(', ')}` } };
  }
  const schedule: NoiseSchedule = { kind };
  if (kind === 'interval') {
    const s = input.interval_seconds;
    if (s === undefined || s === null)
      problems['schedule.interval_seconds'] = 'is required when kind is interval';
    else if (
      typeof s !== 'number' ||
      !Number.isFinite(s) ||
      s < MIN_INTERVAL_SECONDS ||
      s > MAX_INTERVAL_SECONDS
    ) {
      problems['schedule.interval_seconds'] =
        `must be a number between ${MIN_INTERVAL_SECONDS} and ${MAX_INTERVAL_SECONDS}`;
    } else schedule.interval_seconds = s;
    if (input.cron !== undefined && input.cron !== null) problems['schedule.cron'] = 'is only for kind cron';
  } else {
    const c = input.cron;
    if (c === undefined || c === null || c === '')
      problems['schedule.cron'] = 'is required when kind is cron';
    else if (typeof c !== 'string' || c.length > MAX_CRON_LENGTH) {
      problems['schedule.cron'] = `must be a cron expression of at most ${MAX_CRON_LENGTH} characters`;
    } else {
      const problem = cronProblem(c.trim(), now);
      if (problem) problems['schedule.cron'] = problem;
      else schedule.cron = c.trim();
    }
    if (input.interval_seconds !== undefined && input.interval_seconds !== null) {
      problems['schedule.interval_seconds'] = 'is only for kind interval';
    }
  }
  const j = input.jitter_seconds;
  if (j !== undefined && j !== null) {
    if (typeof j !== 'number' || !Number.isFinite(j) || j < 0 || j > MAX_JITTER_SECONDS) {
      problems['schedule.jitter_seconds'] = `must be a number between 0 and ${MAX_JITTER_SECONDS}`;
    } else schedule.jitter_seconds = j;
  }
  for (const key of Object.keys(input)) {
    if (!['kind', 'interval_seconds', 'cron', 'jitter_seconds'].includes(key)) {
      problems[`schedule.${key}`] = 'is not a known field';
    }
  }
  return Object.keys(problems).length > 0 ? { problems } : { schedule };
}

/** Why `expression` is not a usable cron expression, or undefined when it is. */
export function cronProblem(expression: string, now: number): string | undefined {
  let cron: Cron;
  try {
    cron = parseCron(expression);
  } catch (err) {
    return `is not a valid cron expression (${(err as Error).message.replace(/^CronPattern: /, '')})`;
  }
  if (cron.nextRun(new Date(now)) === null) return 'never matches a future time';
  return undefined;
}

/** A parsed cron expression: 5 fields, or 6 with seconds first; UTC; never starts a timer. */
export function parseCron(expression: string): Cron {
  return new Cron(expression, { timezone: 'UTC', mode: '5-or-6-parts', paused: true });
}

/**
 * Whether two schedules are the same, field by field (jsonb gives keys back in its own order, so
 * their JSON text is no test); an absent jitter counts as 0.
 */
export function sameSchedule(a: NoiseSchedule, b: NoiseSchedule): boolean {
  return (
    a.kind === b.kind &&
    (a.interval_seconds ?? null) === (b.interval_seconds ?? null) &&
    (a.cron ?? null) === (b.cron ?? null) &&
    (a.jitter_seconds ?? 0) === (b.jitter_seconds ?? 0)
  );
}
