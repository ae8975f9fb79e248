import { Cron } from 'croner';

/** The next run times of a cron expression, or why there are none. */
export type CronPreview =
  | { readonly times: readonly Date[]; readonly problem?: undefined }
  | { readonly times?: undefined; readonly problem: string };

/**
 * The next `count` times `expression` matches strictly after `from`, evaluated as the service
 * evaluates it (src/noise/schedule.ts): UTC, 5 fields or 6 with seconds first, nicknames allowed.
 * Jitter is not included: each real run lands up to jitter_seconds after one of these times.
 */
export function previewCron(expression: string, from: Date, count = 5): CronPreview {
  const trimmed = expression.trim();
  if (trimmed === '') return { problem: 'Enter a cron expression.' };
  let cron: Cron;
  try {
    cron = new Cron(trimmed, { timezone: 'UTC', mode: '5-or-6-parts', paused: true });
  } catch (err) {
    const message = err instanceof Error ? err.message.replace(/^CronPattern: /, '') : String(err);
    return { problem: `Not a valid cron expression (${message}).` };
  }
  const times = cron.nextRuns(count, from);
  if (times.length === 0) return { problem: 'This expression never matches a future time.' };
  return { times };
}

/** A time as the page shows it: ISO-like, always UTC, to the second. */
export function formatUtc(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
