import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IsoUtcMemo, isoUtc } from './iso-utc.ts';

const MAX = 8.64e15;

describe('isoUtc', () => {
  it('writes what Date#toISOString writes, for times in order, at random and fractional', () => {
    const base = fc.double({ min: -MAX, max: MAX, noNaN: true });
    const step = fc.oneof(
      fc.integer({ min: -2_000, max: 120_000 }),
      fc.double({ min: -1, max: 1, noNaN: true }),
    );
    fc.assert(
      fc.property(base, fc.array(step, { maxLength: 40 }), (start, steps) => {
        const memo = new IsoUtcMemo();
        let ms = start;
        for (const s of [0, ...steps]) {
          ms = Math.max(-MAX, Math.min(MAX, ms + s));
          expect(isoUtc(ms, memo)).toBe(new Date(ms).toISOString());
          expect(isoUtc(ms)).toBe(new Date(ms).toISOString());
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('handles the edges: the epoch, -0, before 1970, minute and year boundaries, extended years', () => {
    const cases = [
      0,
      -0,
      -1,
      -0.5,
      0.999,
      59_999,
      60_000,
      -60_000,
      -60_001,
      Date.UTC(1999, 11, 31, 23, 59, 59, 999),
      Date.UTC(2000, 0, 1),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(10000, 0, 1),
      -62_198_755_200_001,
      -62_198_755_200_000,
      MAX,
      -MAX,
    ];
    // Twice, so the second round runs on minutes the first one left behind.
    const memo = new IsoUtcMemo();
    for (const ms of [...cases, ...cases]) expect(isoUtc(ms, memo)).toBe(new Date(ms).toISOString());
  });

  it('keeps each memo to itself: two interleaved sequences write what each writes alone', () => {
    const a = new IsoUtcMemo();
    const b = new IsoUtcMemo();
    const t = Date.UTC(2024, 0, 2, 3, 4, 5, 6);
    const u = Date.UTC(2031, 6, 8, 9, 10, 11, 12);
    for (let k = 0; k < 5; k++) {
      expect(isoUtc(t + k, a)).toBe(new Date(t + k).toISOString());
      expect(isoUtc(u + k, b)).toBe(new Date(u + k).toISOString());
    }
  });
});
