import { describe, expect, it } from 'vitest';
import { writeShifted } from './parsed-time.ts';
import { formatRfc3164Time, readRfc3164Time } from './rfc3164-time.ts';

const REF = Date.UTC(2026, 0, 10, 12, 0, 0);

describe('readRfc3164Time', () => {
  it.each([
    ['Jan  7 11:07:53', '2026-01-07T11:07:53.000Z', 'Jan 17 11:07:53'],
    ['Jan 07 11:07:53', '2026-01-07T11:07:53.000Z', 'Jan 17 11:07:53'],
    ['Dec 31 23:59:59', '2025-12-31T23:59:59.000Z', 'Jan 10 23:59:59'],
    ['Feb 28 10:00:00', '2025-02-28T10:00:00.000Z', 'Mar 10 10:00:00'],
    ['Jan 18 2024 11:07:53', '2024-01-18T11:07:53.000Z', 'Jan 28 2024 11:07:53'],
    ['Feb 25 2024 11:07:53', '2024-02-25T11:07:53.000Z', 'Mar  6 2024 11:07:53'],
  ])('reads %j relative to the reference and moves it in its own style', (text, iso, moved) => {
    const parsed = readRfc3164Time(text, REF);
    expect(parsed && new Date(parsed.ms).toISOString()).toBe(iso);
    expect(parsed && writeShifted(parsed, text, 10 * 86_400_000)).toBe(moved);
  });

  it('keeps zero-padded days zero-padded', () => {
    const parsed = readRfc3164Time('Jan 01 11:07:53', REF);
    expect(parsed && writeShifted(parsed, 'Jan 01 11:07:53', 86_400_000)).toBe('Jan 02 11:07:53');
  });

  it.each(['Jan 32 11:07:53', 'Feb 30 11:07:53', 'jan 07 11:07:53', 'Jan  7 24:00:00', 'Jan 7 11:07:53', ''])(
    'refuses %j',
    (text) => {
      expect(readRfc3164Time(text, REF)).toBeNull();
    },
  );

  it('writes days 1-9 space-padded, in UTC', () => {
    expect(formatRfc3164Time(Date.UTC(2024, 7, 7, 1, 2, 3, 999))).toBe('Aug  7 01:02:03');
    expect(formatRfc3164Time(Date.UTC(2024, 7, 17, 1, 2, 3))).toBe('Aug 17 01:02:03');
  });
});
