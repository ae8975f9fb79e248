import { describe, expect, it } from 'vitest';
import { formatUtc, previewCron } from './cron-preview.ts';

const from = new Date('2030-01-01T10:07:30Z');

describe('previewCron', () => {
  it('lists the next five matches after the given time, in UTC', () => {
    const preview = previewCron('*/15 * * * *', from);
    expect(preview.times?.map((d) => d.toISOString())).toEqual([
      '2030-01-01T10:15:00.000Z',
      '2030-01-01T10:30:00.000Z',
      '2030-01-01T10:45:00.000Z',
      '2030-01-01T11:00:00.000Z',
      '2030-01-01T11:15:00.000Z',
    ]);
  });

  it('takes six fields with seconds first, and nicknames', () => {
    expect(previewCron('30 0 12 * * *', from, 2).times?.map((d) => d.toISOString())).toEqual([
      '2030-01-01T12:00:30.000Z',
      '2030-01-02T12:00:30.000Z',
    ]);
    expect(previewCron('@daily', from, 1).times?.[0]?.toISOString()).toBe('2030-01-02T00:00:00.000Z');
  });

  it('reads day and month names', () => {
    expect(previewCron('0 9 * JAN MON', from, 1).times?.[0]?.toISOString()).toBe('2030-01-07T09:00:00.000Z');
  });

  it('says why an expression is refused', () => {
    expect(previewCron('', from).problem).toMatch(/enter a cron/i);
    expect(previewCron('61 * * * *', from).problem).toMatch(/not a valid cron expression/i);
    expect(previewCron('* * *', from).problem).toMatch(/not a valid cron expression/i);
  });

  it('formats a time in UTC to the second', () => {
    expect(formatUtc(new Date('2030-01-01T10:15:00.250Z'))).toBe('2030-01-01 10:15:00 UTC');
  });
});
