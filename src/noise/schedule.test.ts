import { describe, expect, it } from 'vitest';
import { checkSchedule } from './schedule.ts';

const NOW = Date.parse('2026-03-01T12:00:00Z');

describe('checkSchedule', () => {
  it('keeps only the fields of an interval schedule', () => {
    expect(checkSchedule({ kind: 'interval', interval_seconds: 60, jitter_seconds: 5 }, NOW)).toEqual({
      schedule: { kind: 'interval', interval_seconds: 60, jitter_seconds: 5 },
    });
    expect(
      checkSchedule({ kind: 'interval', interval_seconds: 60, cron: null, jitter_seconds: null }, NOW),
    ).toEqual({
      schedule: { kind: 'interval', interval_seconds: 60 },
    });
  });

  it('accepts a cron schedule and trims the expression', () => {
    expect(checkSchedule({ kind: 'cron', cron: ' 0 */2 * * * ' }, NOW)).toEqual({
      schedule: { kind: 'cron', cron: '0 */2 * * *' },
    });
  });

  it('requires interval_seconds for kind interval', () => {
    expect(checkSchedule({ kind: 'interval' }, NOW)).toEqual({
      problems: { 'schedule.interval_seconds': 'is required when kind is interval' },
    });
  });

  it('requires a valid cron expression for kind cron', () => {
    expect(checkSchedule({ kind: 'cron' }, NOW)).toEqual({
      problems: { 'schedule.cron': 'is required when kind is cron' },
    });
    expect(checkSchedule({ kind: 'cron', cron: '61 * * * *' }, NOW).problems).toEqual({
      'schedule.cron': 'is not a valid cron expression (Invalid value for minute: 61)',
    });
    expect(checkSchedule({ kind: 'cron', cron: 'every day' }, NOW).problems?.['schedule.cron']).toMatch(
      /^is not a valid cron expression \(/,
    );
    expect(checkSchedule({ kind: 'cron', cron: '0 0 30 2 *' }, NOW).problems).toEqual({
      'schedule.cron': 'never matches a future time',
    });
  });

  it('refuses the other kind’s field, out-of-range numbers and unknown fields', () => {
    expect(checkSchedule({ kind: 'cron', cron: '* * * * *', interval_seconds: 5 }, NOW).problems).toEqual({
      'schedule.interval_seconds': 'is only for kind interval',
    });
    expect(
      checkSchedule({ kind: 'interval', interval_seconds: 0.5, jitter_seconds: -1, every: 3 }, NOW).problems,
    ).toEqual({
      'schedule.interval_seconds': 'must be a number between 1 and 31622400',
      'schedule.jitter_seconds': 'must be a number between 0 and 86400',
      'schedule.every': 'is not a known field',
    });
    expect(checkSchedule({ kind: 'weekly' }, NOW)).toEqual({
      problems: { 'schedule.kind': 'must be one of interval, cron' },
    });
  });
});
