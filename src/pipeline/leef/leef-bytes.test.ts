import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { digitCount, NeedleCursor, writeDigits } from './leef-bytes.ts';

describe('NeedleCursor', () => {
  it('finds each occurrence of the needle in order, whatever byte the search is anchored on', () => {
    const text = fc.stringMatching(/^(?:labIndex=|Index=|lab|ab|x=|I|l|=|\r|a){0,30}$/);
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 8 }), (t, anchor) => {
        const needle = 'labIndex=';
        const buf = Buffer.from(t, 'latin1');
        const cursor = new NeedleCursor(needle, anchor);
        // Every `from`, in increasing order as lines are read, and once more from the start.
        for (const from of [...Array.from({ length: buf.length + 1 }, (_, i) => i), 0]) {
          const expected = t.indexOf(needle, from);
          expect(cursor.at(buf, from), `from ${from} in ${JSON.stringify(t)}`).toBe(
            expected < 0 ? buf.length : expected,
          );
        }
      }),
      { numRuns: 500 },
    );
  });

  it('finds a needle at the very start of a buffer and starts over on another buffer', () => {
    const cursor = new NeedleCursor('labIndex=', 3);
    expect(cursor.at(Buffer.from('labIndex=a'), 0)).toBe(0);
    expect(cursor.at(Buffer.from('xxIndex=a labIndex=b'), 0)).toBe(10);
    expect(cursor.at(Buffer.from('no key here'), 0)).toBe(11);
  });
});

describe('writeDigits and digitCount', () => {
  it('write a value zero-padded to the width asked, and count its digits, for every width', () => {
    const value = fc.oneof(
      fc.nat({ max: 1000 }),
      fc.integer({ min: 0, max: 2 ** 31 }),
      fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }).map((v) => v % 10 ** 15),
      fc.constantFrom(
        0,
        9,
        10,
        99,
        100,
        999_999_9,
        10_000_000,
        1e9 - 1,
        1e9,
        1e10 - 1,
        1e10,
        1e12,
        1e13 - 1,
        1e15 - 1,
      ),
    );
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 3 }), fc.nat({ max: 5 }), (v, extra, at) => {
        const text = String(v);
        expect(digitCount(v)).toBe(text.length);
        const width = Math.min(15, text.length + extra);
        const out = Buffer.alloc(at + width + 2, 0x2e);
        expect(writeDigits(out, at, v, width)).toBe(at + width);
        expect(out.toString('latin1')).toBe(`${'.'.repeat(at)}${text.padStart(width, '0')}..`);
      }),
      { numRuns: 3000 },
    );
  });
});
