import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ecsTimeUnitMs, readEcsTimeValue, shiftEcsTimeValue } from './ecs-time.ts';

const HOUR = 3_600_000;

describe('readEcsTimeValue', () => {
  it.each([
    ['2024-05-01T12:34:56.789Z', Date.UTC(2024, 4, 1, 12, 34, 56, 789)],
    ['2024-05-01T12:34:56Z', Date.UTC(2024, 4, 1, 12, 34, 56)],
    ['2024-05-01T12:34Z', Date.UTC(2024, 4, 1, 12, 34)],
    ['2024-05-01t12:34:56.7z', Date.UTC(2024, 4, 1, 12, 34, 56, 700)],
    ['2024-05-01 12:34:56,25', Date.UTC(2024, 4, 1, 12, 34, 56, 250)],
    ['2024-05-01T14:34:56.123456789+02:00', Date.UTC(2024, 4, 1, 12, 34, 56, 123)],
    ['2024-05-01T07:04:56-0530', Date.UTC(2024, 4, 1, 12, 34, 56)],
    ['2024-05-01T09:34:56-03', Date.UTC(2024, 4, 1, 12, 34, 56)],
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
    ['2024-05-01', Date.UTC(2024, 4, 1)],
    ['1714567890123', 1714567890123],
    [1714567890123, 1714567890123],
    [1714567890123.5, 1714567890123.5],
  ])('reads %j', (value, ms) => {
    expect(readEcsTimeValue(value)).toBe(ms);
  });

  it.each([
    '2023-02-29T00:00:00Z',
    '2024-13-01T00:00:00Z',
    '2024-05-01T24:00:00Z',
    '2024-05-01T12:60:00Z',
    '2024-05-01T12:34:60Z',
    '2023-02-29',
    '2024-5-01T',
    '2024/05/01',
    '2024-05-01T12:34:56.1234567890Z',
    '2024-05-01T12:34:56.Z',
    '2024-05-01T12:34:56+2',
    '2024-05-01T12:34:56+24:00',
    '2024-05-01T12:34:56Zjunk',
    '0999-05-01T12:34:56Z',
    '2024',
    '',
    'yesterday',
    null,
    true,
    { t: 1 },
    Number.NaN,
  ])('does not read %j', (value) => {
    expect(readEcsTimeValue(value)).toBeNull();
  });
});

describe('shiftEcsTimeValue', () => {
  it.each([
    ['2024-05-01T12:34:56.789Z', 2 * HOUR + 1, '2024-05-01T14:34:56.790Z'],
    ['2024-12-31T23:59:59.999Z', 1, '2025-01-01T00:00:00.000Z'],
    ['2024-05-01T14:34:56.123456789+02:00', 1, '2024-05-01T14:34:56.124456789+02:00'],
    ['2024-05-01T14:34:56.999999+0200', 1, '2024-05-01T14:34:57.000999+0200'],
    ['2024-05-01 12:34:56,250', -251, '2024-05-01 12:34:55,999'],
    ['2024-03-01T00:30:00-05', -HOUR, '2024-02-29T23:30:00-05'],
    ['2024-05-01T12:34:56Z', 1999, '2024-05-01T12:34:57Z'],
    ['2024-05-01T12:34:56Z', -1, '2024-05-01T12:34:55Z'],
    ['2024-05-01T12:34:56.5Z', 149, '2024-05-01T12:34:56.6Z'],
    ['2024-05-01T12:34Z', 61_000, '2024-05-01T12:35Z'],
    ['2024-05-01', 2 * 86_400_000 + 5 * HOUR, '2024-05-03'],
    ['2024-03-01', -1, '2024-02-29'],
    ['2024-12-31', 86_400_000, '2025-01-01'],
    ['1714567890123', 1000, '1714567891123'],
    [1714567890123, -123, 1714567890000],
  ])('moves %j by %d ms to %j', (value, shift, expected) => {
    expect(shiftEcsTimeValue(value, shift)).toEqual(expected);
  });

  it('refuses to move a value out of the years its notation holds', () => {
    expect(shiftEcsTimeValue('9999-12-31T23:59:59Z', 1000)).toBeNull();
    expect(shiftEcsTimeValue('1000-01-01T00:00:00Z', -1000)).toBeNull();
    expect(shiftEcsTimeValue('10000', -20000)).toBeNull();
  });

  // Renders like a producer would, with Date (independent of the code under test).
  const notation = fc.record({
    // false: a date alone (`YYYY-MM-DD`), midnight UTC.
    time: fc.constantFrom(true, true, true, false),
    separator: fc.constantFrom('T', 't', ' '),
    seconds: fc.boolean(),
    fractionSeparator: fc.constantFrom('.', ','),
    digits: fc.integer({ min: 0, max: 9 }),
    subMs: fc.integer({ min: 0, max: 999_999 }),
    zone: fc.constantFrom(
      '',
      'Z',
      'z',
      '+00:00',
      '+02:00',
      '-05:30',
      '+0545',
      '-0800',
      '+09',
      '-11',
      '+14:00',
    ),
  });
  function render(utcMs: number, n: typeof notation extends fc.Arbitrary<infer T> ? T : never): string {
    const offset = n.time ? zoneOffsetMs(n.zone) : 0;
    const d = new Date(utcMs + offset);
    const p = (v: number, w = 2) => String(v).padStart(w, '0');
    if (!n.time) return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}`;
    let out = `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}${n.separator}${p(d.getUTCHours())}:${p(d.getUTCMinutes())}`;
    if (n.seconds) {
      out += `:${p(d.getUTCSeconds())}`;
      if (n.digits > 0) {
        const f = p(d.getUTCMilliseconds(), 3) + p(n.subMs, 6);
        out += n.fractionSeparator + f.slice(0, n.digits);
      }
    }
    return out + n.zone;
  }
  function zoneOffsetMs(zone: string): number {
    if (zone.length < 2) return 0;
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0)) * 60_000;
  }
  function unitOf(n: { time: boolean; seconds: boolean; digits: number }): number {
    if (!n.time) return 86_400_000;
    if (!n.seconds) return 60_000;
    return [1000, 100, 10][n.digits] ?? 1;
  }

  it('moves every readable value by the shift (in its own unit) and keeps its notation', () => {
    const MIN = Date.UTC(1971, 0, 1);
    const MAX = Date.UTC(2100, 0, 1);
    fc.assert(
      fc.property(
        fc.integer({ min: MIN, max: MAX }),
        notation,
        fc.integer({ min: -40 * 365 * 86_400_000, max: 40 * 365 * 86_400_000 }),
        (t, n, shift) => {
          const unit = unitOf(n);
          const original = render(Math.floor(t / unit) * unit, n);
          const before = readEcsTimeValue(original);
          expect(before).not.toBeNull();
          expect(ecsTimeUnitMs(original)).toBe(unit);
          const shifted = shiftEcsTimeValue(original, shift);
          expect(typeof shifted).toBe('string');
          const moved = Math.floor(shift / unit) * unit;
          expect(readEcsTimeValue(shifted)).toBe((before as number) + moved);
          // Same notation: identical when rendered the same way from the moved instant.
          expect(shifted).toBe(render((before as number) + moved, n));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('moves epoch milliseconds exactly, numbers staying numbers', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2e11, max: 4e12 }), fc.integer({ min: -1e11, max: 1e11 }), (t, shift) => {
        expect(shiftEcsTimeValue(t, shift)).toBe(t + shift);
        expect(shiftEcsTimeValue(String(t), shift)).toBe(String(t + shift));
      }),
    );
  });
});
