import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quoteFreeCheck } from './plain-json-bytes.ts';

/** What the check must answer for a span without quotes (quotes themselves are the caller's). */
const reference = (bytes: Uint8Array, from: number, to: number) => {
  for (let i = from; i < to; i++) if (bytes[i]! < 0x20 || bytes[i] === 0x5c) return false;
  return true;
};

describe('quoteFreeCheck on single spans', () => {
  it('agrees with a byte-by-byte check for any span, aligned or not', () => {
    const byte = fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: 0x20, max: 0xff }) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(0x00, 0x09, 0x1f, 0x22, 0x5c, 0x21, 0x23, 0x5b, 0x5d, 0x80, 0xdc, 0xa2),
      },
    );
    fc.assert(
      fc.property(fc.array(byte, { maxLength: 80 }), fc.nat(7), fc.nat(), fc.nat(), (values, shift, a, b) => {
        // A buffer at an odd offset inside a larger one, as pooled buffers are.
        const backing = Buffer.alloc(values.length + 8, 0x41);
        const bytes = backing.subarray(shift % 4, (shift % 4) + values.length);
        bytes.set(values);
        const from = values.length === 0 ? 0 : a % values.length;
        const to = from + (values.length === 0 ? 0 : b % (values.length - from + 1));
        expect(quoteFreeCheck(bytes)(from, to)).toBe(reference(bytes, from, to));
      }),
      { numRuns: 5000 },
    );
  });

  it('finds a bad byte at every position of a long span', () => {
    const bytes = Buffer.alloc(403, 0x61);
    expect(quoteFreeCheck(bytes)(0, bytes.length)).toBe(true);
    for (const bad of [0x00, 0x0a, 0x1f, 0x5c]) {
      for (let at = 0; at < bytes.length; at++) {
        bytes[at] = bad;
        expect(quoteFreeCheck(bytes)(0, bytes.length), `${bad} at ${at}`).toBe(false);
        expect(quoteFreeCheck(bytes)(1, bytes.length)).toBe(at === 0);
        bytes[at] = 0x61;
      }
    }
  });
});

describe('quoteFreeCheck', () => {
  it('finds backslashes and control bytes whatever order the spans are asked in', () => {
    const bytes = Buffer.from('aaaa\\bbbbbbbbbbb\\cccccccccc\u0001ccccccccc');
    const check = quoteFreeCheck(bytes);
    const spans: Array<[number, number]> = [
      [5, 16],
      [0, 4],
      [0, 6],
      [17, 37],
      [17, 27],
      [16, 37],
      [5, 16],
      [10, 12],
      [28, 37],
      [0, 37],
    ];
    for (const [from, to] of spans) {
      expect(check(from, to), `${from}-${to}`).toBe(reference(bytes, from, to));
    }
  });
});
