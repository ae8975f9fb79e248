import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  civilToMs,
  civilYear,
  daysInMonth,
  inferYear,
  MAX_WRITABLE_MS,
  MIN_WRITABLE_MS,
  msToCivil,
  newCivilFields,
} from './civil.ts';

describe('civil calendar arithmetic', () => {
  it('agrees with Date for every instant in years 1-9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: MIN_WRITABLE_MS, max: MAX_WRITABLE_MS }), (ms) => {
        const f = msToCivil(ms, newCivilFields());
        const d = new Date(ms);
        expect([f.year, f.month, f.day, f.hour, f.minute, f.second, f.millisecond, f.weekday]).toEqual([
          d.getUTCFullYear(),
          d.getUTCMonth() + 1,
          d.getUTCDate(),
          d.getUTCHours(),
          d.getUTCMinutes(),
          d.getUTCSeconds(),
          d.getUTCMilliseconds(),
          d.getUTCDay(),
        ]);
        expect(civilToMs(f.year, f.month, f.day, f.hour, f.minute, f.second, f.millisecond)).toBe(ms);
        expect(civilYear(ms)).toBe(f.year);
      }),
      { numRuns: 5000 },
    );
  });

  it('knows the length of February', () => {
    expect([daysInMonth(2024, 2), daysInMonth(2023, 2), daysInMonth(1900, 2), daysInMonth(2000, 2)]).toEqual([
      29, 28, 28, 29,
    ]);
  });
});

describe('inferYear', () => {
  const ref = Date.UTC(2026, 0, 10, 12, 0, 0);
  it.each([
    ['a date earlier in the same year', 1, 5, 2026],
    ['a date later in the year, which must be last year', 12, 31, 2025],
    ['tomorrow, within the one-day slack for device zones', 1, 11, 2026],
    ['the day after tomorrow, beyond the slack', 1, 12, 2025],
    ['29 February, which looks back to the last leap year', 2, 29, 2024],
  ])('places %s', (_what, month, day, year) => {
    expect(inferYear(month, day, 0, 0, ref)).toBe(year);
  });

  it('moves to next year for 1 January seen on 31 December', () => {
    expect(inferYear(1, 1, 0, 0, Date.UTC(2025, 11, 31, 23, 0, 0))).toBe(2026);
  });

  it('answers -1 without a usable reference', () => {
    expect(inferYear(1, 1, 0, 0, Number.NaN)).toBe(-1);
  });
});
