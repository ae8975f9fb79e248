import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readIso } from '../time/iso-time.ts';
import { readRfc3164Time } from '../time/rfc3164-time.ts';
import { HeaderTimeMemo } from './header-time-memo.ts';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY = 86_400_000;
const MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const YEAR_ONE = new Date(0).setUTCFullYear(1, 0, 1);

/** RFC 5424 TIMESTAMP of `ms`: `offset` minutes east, `digits` fraction digits (beyond 3: `below`). */
function iso(ms: number, offset: number, digits: number, below: string): string {
  const d = new Date(ms + offset * 60_000);
  const y = String(d.getUTCFullYear()).padStart(4, '0');
  const p = (n: number) => String(n).padStart(2, '0');
  let text = `${y}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}T${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
  if (digits > 0) text += `.${(String(d.getUTCMilliseconds()).padStart(3, '0') + below).slice(0, digits)}`;
  if (offset === 0) return `${text}Z`;
  const a = Math.abs(offset);
  return `${text}${offset < 0 ? '-' : '+'}${p(Math.floor(a / 60))}:${p(a % 60)}`;
}

/** RFC 3164 TIMESTAMP of `ms` (UTC): the day space- or zero-padded, with or without a year. */
function rfc3164(ms: number, zeroPad: boolean, withYear: boolean): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  const day = d.getUTCDate();
  const dd = day < 10 ? `${zeroPad ? '0' : ' '}${day}` : String(day);
  const year = withYear ? `${String(d.getUTCFullYear()).padStart(4, '0')} ` : '';
  return `${MONTHS[d.getUTCMonth()]} ${dd} ${year}${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
}

// Steps between consecutive events: mostly within a second or a minute, as in real files.
const step = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 999 }) },
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 59_999 }) },
  { weight: 1, arbitrary: fc.integer({ min: -120_000, max: 3_600_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: -400 * DAY, max: 400 * DAY }) },
);
// A digit of the text replaced now and then: seconds of 60-99, 31 February, months 13-19…
const mutation = fc.option(fc.tuple(fc.nat(40), fc.integer({ min: 48, max: 57 })), { freq: 6 });

function mutate(text: string, m: [number, number] | null): string {
  if (m === null) return text;
  const i = m[0] % text.length;
  const c = text.charCodeAt(i);
  if (c < 48 || c > 57) return text;
  return text.slice(0, i) + String.fromCharCode(m[1]) + text.slice(i + 1);
}

/** `text` at a random place in a buffer of other bytes, as a line's header holds it. */
function placed(text: string, before: number): { buf: Buffer; ts: number; te: number } {
  const buf = Buffer.alloc(before + text.length + 3, 0x3c);
  buf.write(text, before, 'latin1');
  return { buf, ts: before, te: before + text.length };
}

describe('HeaderTimeMemo', () => {
  it('reads RFC 5424 timestamps one after another exactly as readIso does', () => {
    const events = fc.array(fc.tuple(step, mutation, fc.nat(20), fc.stringMatching(/^[0-9]{6}$/)), {
      minLength: 1,
      maxLength: 60,
    });
    fc.assert(
      fc.property(
        fc.integer({ min: YEAR_ONE + DAY, max: MAX_MS - DAY }),
        fc.constantFrom(0, 120, -480, 345, -59, 14 * 60),
        fc.integer({ min: 0, max: 9 }),
        fc.boolean(),
        events,
        (start, offset, digits, fixedBelow, list) => {
          const memo = new HeaderTimeMemo();
          let ms = start;
          for (const [delta, m, before, below] of list) {
            ms = Math.min(MAX_MS - DAY, Math.max(YEAR_ONE + DAY, ms + delta));
            const text = mutate(iso(ms, offset, digits, fixedBelow ? '123456' : below), m);
            const { buf, ts, te } = placed(text, before);
            // RFC 5424 reading does not depend on the reference: any one is passed.
            expect(memo.read(buf, ts, te, false, ms + delta * 7, delta % 2 === 0), text).toEqual(
              readIso(text),
            );
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('reads RFC 3164 timestamps one after another exactly as readRfc3164Time does, for either year rule', () => {
    const events = fc.array(
      fc.tuple(step, mutation, fc.nat(20), fc.integer({ min: -200 * DAY, max: 200 * DAY }), fc.boolean()),
      { minLength: 1, maxLength: 60 },
    );
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1971, 0, 1), max: Date.UTC(9990, 0, 1) }),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom('fixed', 'moving', 'jumping'),
        events,
        (start, zeroPad, withYear, refMode, list) => {
          const memo = new HeaderTimeMemo();
          let ms = start;
          const fixedRef = start + DAY;
          for (const [delta, m, before, jitter, nearest] of list) {
            ms = Math.min(Date.UTC(9990, 0, 1), Math.max(Date.UTC(1971, 0, 1), ms + delta));
            const text = mutate(rfc3164(ms, zeroPad, withYear), m);
            const ref =
              refMode === 'fixed' ? fixedRef : refMode === 'moving' ? ms + (jitter % 3000) : ms + jitter;
            const { buf, ts, te } = placed(text, before);
            expect(
              memo.read(buf, ts, te, true, ref, nearest),
              `${text} against ${ref} nearest ${nearest}`,
            ).toEqual(readRfc3164Time(text, ref, nearest));
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('gives a year-less timestamp read against the latest year the year that rule gives near its boundary', () => {
    // 31 Dec 23:59:xx read against 30 Dec 23:59:30 (one day of slack): some seconds fall after
    // the reference plus a day and belong to the year before.
    const memo = new HeaderTimeMemo();
    const ref = Date.UTC(2025, 11, 30, 23, 59, 30);
    for (const s of ['00', '29', '30', '31', '59', '10']) {
      const text = `Dec 31 23:59:${s}`;
      const { buf, ts, te } = placed(text, 3);
      const got = memo.read(buf, ts, te, true, ref, false);
      expect(got).toEqual(readRfc3164Time(text, ref, false));
    }
    expect(new Date(readRfc3164Time('Dec 31 23:59:30', ref, false)?.ms ?? 0).getUTCFullYear()).toBe(2025);
    expect(new Date(readRfc3164Time('Dec 31 23:59:31', ref, false)?.ms ?? 0).getUTCFullYear()).toBe(2024);
  });

  it('keeps RFC 5424 fractions as read: one digit is tenths, digits past the third stay verbatim', () => {
    const memo = new HeaderTimeMemo();
    const texts = [
      '2026-11-22T10:00:01.5+02:00',
      '2026-11-22T10:00:02.7+02:00',
      '2026-11-22T10:00:02.123456Z',
      '2026-11-22T10:00:03.124456Z',
      '2026-11-22T10:00:03.124457Z',
      '2026-11-22T10:00:60.124457Z',
    ];
    for (const text of texts) {
      const { buf, ts, te } = placed(text, 0);
      expect(memo.read(buf, ts, te, false, 0, true), text).toEqual(readIso(text));
    }
    expect(readIso('2026-11-22T10:00:02.7+02:00')?.ms).toBe(Date.UTC(2026, 10, 22, 8, 0, 2, 700));
  });
});
