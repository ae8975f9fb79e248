import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { frameLf, frameOctetCounted, framerFor } from './framing.ts';

describe('frameLf', () => {
  it.each([
    ['<134>Mar  7 09:05:03 h LEEF:1.0|V|P|1|ID|a=1', '<134>Mar  7 09:05:03 h LEEF:1.0|V|P|1|ID|a=1\n'],
    ['line\r\n', 'line\n'],
    ['line\n\r\n', 'line\n'],
    ['a\r\nb\rc\nd', 'a b c d\n'],
    ['', '\n'],
  ])('frames %j as one LF-terminated line', (msg, frame) => {
    expect(frameLf(msg)).toBe(frame);
  });

  it('always yields exactly one LF, at the end', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', ' ', '\r', '\n', 'é', '\t') }), (msg) => {
        const frame = frameLf(msg);
        expect(frame.indexOf('\n')).toBe(frame.length - 1);
        expect(frame.includes('\r')).toBe(false);
      }),
    );
  });
});

describe('frameOctetCounted', () => {
  it.each([
    ['<6>Sep 10 00:00:00 localhost logger: hello!', '43 <6>Sep 10 00:00:00 localhost logger: hello!'],
    ['café\nx', '7 café\nx'],
    ['', '0 '],
  ])('prefixes %j with its UTF-8 byte length', (msg, frame) => {
    expect(frameOctetCounted(msg)).toBe(frame);
  });

  it('counts the bytes that will be written', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (msg) => {
        const frame = Buffer.from(frameOctetCounted(msg), 'utf8');
        const space = frame.indexOf(0x20);
        expect(Number(frame.subarray(0, space).toString())).toBe(frame.length - space - 1);
      }),
    );
  });

  it('is what framerFor picks for octet_counting, and LF otherwise', () => {
    expect(framerFor('octet_counting')).toBe(frameOctetCounted);
    expect(framerFor('lf')).toBe(frameLf);
  });
});
