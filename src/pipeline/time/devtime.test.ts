import { describe, expect, it } from 'vitest';
import { readDevTime } from './devtime.ts';
import { readEpoch } from './epoch-time.ts';
import { writeShifted } from './parsed-time.ts';

const REF = Date.UTC(2026, 10, 22, 18, 0, 0);
const SHIFT = 3 * 86_400_000 + 1500; // 3 days 1.5 s

describe('readDevTime', () => {
  // value, devTimeFormat, instant, value moved by SHIFT
  it.each([
    ['1710148502123', null, '2024-03-11T09:15:02.123Z', '1710407703623'],
    ['1710148502', null, '2024-03-11T09:15:02.000Z', '1710407703'],
    ['Mar 11 2024 09:15:02', null, '2024-03-11T09:15:02.000Z', 'Mar 14 2024 09:15:03'],
    ['Mar 11 2024 09:15:02.300', null, '2024-03-11T09:15:02.300Z', 'Mar 14 2024 09:15:03.800'],
    ['Mar 11 2024 09:15:02.300 GMT', null, '2024-03-11T09:15:02.300Z', 'Mar 14 2024 09:15:03.800 GMT'],
    ['Mar 11 2024 09:15:02 EST', null, '2024-03-11T14:15:02.000Z', 'Mar 14 2024 09:15:03 EST'],
    ['2024-03-11T09:15:02.123456Z', null, '2024-03-11T09:15:02.123Z', '2024-03-14T09:15:03.623456Z'],
    ['2024-03-11T09:15:02+01:00', null, '2024-03-11T08:15:02.000Z', '2024-03-14T09:15:03+01:00'],
    ['2024-03-11 09:15:02.5', null, '2024-03-11T09:15:02.500Z', '2024-03-14 09:15:04.0'],
    ['2024-03-11T09:15', null, '2024-03-11T09:15:00.000Z', '2024-03-14T09:15'],
    ['11/03/2024 09:15', 'dd/MM/yyyy HH:mm', '2024-03-11T09:15:00.000Z', '14/03/2024 09:15'],
    ['1710148502123', 'dd/MM/yyyy HH:mm', '2024-03-11T09:15:02.123Z', '1710407703623'],
    ['2403110915', 'yyMMddHHmm', '2024-03-11T09:15:00.000Z', '2403140915'],
  ])('reads %j (format %j) and moves it in place', (value, format, iso, moved) => {
    const parsed = readDevTime(value, format, REF);
    expect(parsed && new Date(parsed.ms).toISOString()).toBe(iso);
    expect(parsed && writeShifted(parsed, value, SHIFT)).toBe(moved);
  });

  it.each([
    // Palo Alto's Strata sample: wrong letters, six digits, literal Z. Left as it is.
    ['2021-09-21T02:00:56.000000Z', "YYYY-MM-DD'T'HH:mm:ss.SSSZ"],
    ['2021-09-21T02:00:56Z', 'dd/MM/yyyy HH:mm'],
    ['yesterday at noon', null],
    ['171014850', null],
    ['17101485021234', null],
    ['Mar 11 2024 09:15:02 GMT junk', null],
    ['2024-02-30T00:00:00Z', null],
    // Seconds cut short at the end of the value: no instant (they once read as NaN).
    ['2024-03-11T09:15:', null],
    ['2024-03-11T09:15:0', null],
    ['', null],
  ])('leaves %j (format %j) unreadable', (value, format) => {
    expect(readDevTime(value, format, REF)).toBeNull();
  });

  it('keeps a time whose written form would not move', () => {
    const parsed = readDevTime('1710148502', null, REF);
    expect(parsed && writeShifted(parsed, '1710148502', 999)).toBe('1710148502');
    expect(parsed && writeShifted(parsed, '1710148502', 0)).toBe('1710148502');
  });

  it('keeps epoch values at their digit count', () => {
    const parsed = readDevTime('1000000000', null, REF);
    expect(parsed && writeShifted(parsed, '1000000000', -2000)).toBe('0999999998');
  });

  it('leaves a time that would leave years 1-9999 as it is', () => {
    const parsed = readDevTime('Mar 11 9999 09:15:02', null, REF);
    expect(parsed && writeShifted(parsed, 'Mar 11 9999 09:15:02', 365 * 86_400_000)).toBe(
      'Mar 11 9999 09:15:02',
    );
  });
});

describe('readEpoch', () => {
  it('reads 10 and 13 digits only', () => {
    expect([
      readEpoch('1710148502')?.ms,
      readEpoch('1710148502123')?.ms,
      readEpoch('171014850212'),
      readEpoch('17101485x2'),
    ]).toEqual([1710148502000, 1710148502123, null, null]);
  });
});
