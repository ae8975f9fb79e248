import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_WRITABLE_MS } from './civil.ts';
import { isoWriter, readIso } from './iso-time.ts';
import { type ParsedTime, type TimeWriter, writeShiftedOrNull } from './parsed-time.ts';
import { readRfc3164Time } from './rfc3164-time.ts';
import { ShiftedTextMemo } from './shifted-text-memo.ts';

const DAY = 86_400_000;

/** Moves the instant of `p` by `delta` ms (what a following event of the same style reads as). */
function moved(p: ParsedTime, delta: number): ParsedTime {
  return { ...p, ms: p.ms + delta };
}

const styles: ParsedTime[] = [
  '2026-11-22T10:00:01Z',
  '2026-11-22T10:00:01.5+02:00',
  '2026-11-22T10:00:01.25-08:00',
  '2026-11-22T10:00:01.123Z',
  '2026-11-22T10:00:01.123456789+05:45',
  // The same style bits as the one above or before, another text below the millisecond or zone.
  '2026-11-22T10:00:01.123987654+05:45',
  '2026-11-22T10:00:01.5+0200',
  '2026-11-22T10:00:01+00:00',
  '2026-11-22 10:00:01Z',
  '2026-11-22 10:00:01,123',
  '2026-11-22T10:00',
  '9999-12-31T23:59:58.999Z',
  '0001-01-01T00:00:01.000Z',
].map((t) => readIso(t) as ParsedTime);
for (const t of ['Nov 22 10:00:01', 'Feb  3 23:59:59', 'Feb 03 00:00:00', 'Nov 22 2026 10:00:01']) {
  styles.push(readRfc3164Time(t, Date.UTC(2026, 10, 22), true) as ParsedTime);
}

describe('ShiftedTextMemo', () => {
  it('writes every shifted timestamp exactly as writeShiftedOrNull does', () => {
    const step = fc.oneof(
      { weight: 3, arbitrary: fc.integer({ min: 0, max: 999 }) },
      { weight: 4, arbitrary: fc.integer({ min: -5_000, max: 59_999 }) },
      { weight: 1, arbitrary: fc.integer({ min: -400 * DAY, max: 400 * DAY }) },
    );
    const shift = fc.oneof(
      fc.constantFrom(0, 1, 9, 10, 999, 1000, 59_999, 60_000, -1, 3_600_000, 2 * 3_600_000 + 17),
      fc.integer({ min: -3000 * DAY, max: 3000 * DAY }),
      fc.constant(MAX_WRITABLE_MS),
    );
    const events = fc.array(fc.tuple(step, fc.nat(styles.length * 2), fc.boolean()), {
      minLength: 1,
      maxLength: 80,
    });
    fc.assert(
      fc.property(fc.nat(styles.length - 1), shift, shift, events, (first, shiftA, shiftB, list) => {
        const memo = new ShiftedTextMemo();
        let style = first;
        let delta = 0;
        for (const [d, switchTo, other] of list) {
          // Mostly one style; now and then another, and the shift now and then changes.
          if (switchTo < styles.length) style = switchTo;
          delta += d;
          const p = moved(styles[style] as ParsedTime, delta);
          const s = other ? shiftB : shiftA;
          expect(memo.write(p, s), `${JSON.stringify(p)} + ${s}`).toBe(writeShiftedOrNull(p, s));
          // The same object and shift again: the same text.
          expect(memo.write(p, s)).toBe(writeShiftedOrNull(p, s));
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('writes timestamps of one minute from the first one’s text, without a full write', () => {
    let full = 0;
    const counting: Required<TimeWriter> = {
      write(ms, p) {
        full++;
        return isoWriter.write(ms, p);
      },
      minuteTail: (second, millisecond, p) =>
        (isoWriter.minuteTail as Required<TimeWriter>['minuteTail'])(second, millisecond, p),
    };
    const base = { ...(readIso('2026-11-22T10:00:00.000+02:00') as ParsedTime), writer: counting };
    const memo = new ShiftedTextMemo();
    const shift = 3 * DAY + 1234;
    const texts = [0, 850, 1_700, 30_000, 58_765].map((d) => memo.write(moved(base, d), shift));
    expect(texts).toEqual([
      '2026-11-25T10:00:01.234+02:00',
      '2026-11-25T10:00:02.084+02:00',
      '2026-11-25T10:00:02.934+02:00',
      '2026-11-25T10:00:31.234+02:00',
      '2026-11-25T10:00:59.999+02:00',
    ]);
    expect(full).toBe(1);
    // The next minute is written in full again.
    expect(memo.write(moved(base, 58_766), shift)).toBe('2026-11-25T10:01:00.000+02:00');
    expect(full).toBe(2);
  });

  it('answers null where the shift does not move the written text, also within a minute', () => {
    const memo = new ShiftedTextMemo();
    const p = readRfc3164Time('Nov 22 10:00:01', Date.UTC(2026, 10, 22), true) as ParsedTime;
    expect(memo.write(p, 5_000)).toBe('Nov 22 10:00:06');
    expect(memo.write(moved(p, 1000), 999)).toBeNull();
    expect(memo.write(moved(p, 2000), 5_000)).toBe('Nov 22 10:00:08');
  });
});
