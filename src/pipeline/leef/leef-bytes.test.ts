import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { epochMsAt } from '../time/epoch-time.ts';
import {
  digitCount,
  epochMsBytes,
  LeefByteScratch,
  NeedleCursor,
  writeDigits,
  writeEpochDigits,
} from './leef-bytes.ts';

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

describe('writeEpochDigits', () => {
  it('writes any value below 10^13 in 13 digits and below 10^10 in 10, zero-padded, into any buffer offset', () => {
    // One scratch for every buffer, as a pass has: its DataView must follow the buffer written.
    const scratch = new LeefByteScratch();
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 0, max: 1e13 - 1 }), fc.integer({ min: 0, max: 99_999 }), fc.constant(0)),
        fc.boolean(),
        fc.nat({ max: 7 }),
        (v, seconds, at) => {
          const width = seconds ? 10 : 13;
          const value = seconds ? v % 1e10 : v;
          // A slice of a larger buffer: the word stores must honour its byteOffset.
          const backing = Buffer.alloc(64, 0x2e);
          const out = backing.subarray(3, 3 + at + width + 2);
          expect(writeEpochDigits(out, at, value, width, scratch)).toBe(at + width);
          expect(out.toString('latin1')).toBe(`${'.'.repeat(at)}${String(value).padStart(width, '0')}..`);
          expect(backing.toString('latin1', 0, 3)).toBe('...');
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('epochMsBytes', () => {
  it('reads what epochMsAt reads: 10 or 13 ASCII digits, anything else -1, wherever the value stands', () => {
    // Digits and the bytes next to them ('/' and ':'), bytes whose low nibble is a digit's (` `, `P`,
    // 0xF3), and others; mostly values of the two epoch widths.
    const byte = fc.oneof(
      { weight: 12, arbitrary: fc.integer({ min: 48, max: 57 }) },
      { weight: 1, arbitrary: fc.constantFrom(47, 58, 32, 80, 0xf3, 0x00, 0xff, 0x3f, 0x39 + 6) },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 255 }) },
    );
    const value = fc.oneof(
      fc.array(byte, { minLength: 13, maxLength: 13 }),
      fc.array(byte, { minLength: 10, maxLength: 10 }),
      fc.array(byte, { minLength: 0, maxLength: 16 }),
    );
    const scratch = new LeefByteScratch();
    fc.assert(
      fc.property(value, fc.nat(9), fc.nat(9), (bytes, before, after) => {
        const buf = Buffer.alloc(before + bytes.length + after, 0x37);
        buf.set(bytes, before);
        const text = Buffer.from(bytes).toString('latin1');
        expect(epochMsBytes(buf, before, before + bytes.length, scratch), JSON.stringify(text)).toBe(
          epochMsAt(text, 0, text.length),
        );
      }),
      { numRuns: 5000 },
    );
  });

  it('reads the extremes of both widths exactly', () => {
    const scratch = new LeefByteScratch();
    for (const text of [
      '0000000000',
      '9999999999',
      '0000000000000',
      '9999999999999',
      '1710152200962',
      '1710152200',
    ]) {
      const buf = Buffer.from(text, 'latin1');
      expect(epochMsBytes(buf, 0, buf.length, scratch)).toBe(epochMsAt(text, 0, text.length));
    }
    expect(epochMsBytes(Buffer.from('9999999999999'), 0, 13, scratch)).toBe(9_999_999_999_999);
    expect(epochMsBytes(Buffer.from('1710152200'), 0, 10, scratch)).toBe(1_710_152_200_000);
    // A span past the buffer is no value (and no read outside it).
    expect(epochMsBytes(Buffer.from('171015220'), 0, 10, scratch)).toBe(-1);
    expect(epochMsBytes(Buffer.from('1710152200').subarray(1), -1, 9, scratch)).toBe(-1);
  });

  it('reads each buffer through its own view when two scratches alternate over two buffers', () => {
    const a = new LeefByteScratch();
    const b = new LeefByteScratch();
    const one = Buffer.from('x1710152200962x');
    const two = Buffer.from('y1999999999999y');
    for (let k = 0; k < 3; k++) {
      expect(epochMsBytes(one, 1, 14, a)).toBe(1_710_152_200_962);
      expect(epochMsBytes(two, 1, 14, b)).toBe(1_999_999_999_999);
      expect(epochMsBytes(two, 1, 14, a)).toBe(1_999_999_999_999);
      expect(epochMsBytes(one, 1, 14, b)).toBe(1_710_152_200_962);
    }
  });
});
