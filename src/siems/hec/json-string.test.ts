import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonScanBuffer, jsonString, needsNoEscape } from './json-string.ts';

/** Characters around every case the scan must catch, plus some that must not trip it. */
const tricky = fc.constantFrom(
  '"',
  '\\',
  '\t',
  '\n',
  '\r',
  '\u0000',
  '\u001f',
  ' ',
  '\u007f',
  '\u0085',
  'é',
  '\u0122',
  '\u015c',
  '\u0100',
  '\u2028',
  '€',
  '😀',
  '\ud800',
  '\udfff',
  'a',
  'LEEF:2.0|',
);

describe('jsonString', () => {
  it('is JSON.stringify of any string, escapes and lone surrogates included', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: fc.oneof(tricky, fc.string({ minLength: 1, maxLength: 9 })), maxLength: 60 }),
      fc.string({ unit: 'grapheme-ascii', minLength: 200, maxLength: 600 }),
    );
    // One buffer for every text, as an encoder has: what a longer text left in it must not count.
    const scan = new JsonScanBuffer();
    fc.assert(
      fc.property(text, (s) => {
        expect(jsonString(s, scan)).toBe(JSON.stringify(s));
        expect(jsonString(s)).toBe(JSON.stringify(s));
      }),
      { numRuns: 3000 },
    );
  });

  it('finds a character needing escape at every position of a long line', () => {
    const line = `<134>Mar  1 10:00:00 fw-1 LEEF:2.0|V|P|1|E|^src=10.0.0.1^${'x'.repeat(300)}`;
    for (const bad of ['"', '\\', '\t', '\u0001', '\ud83d']) {
      for (let at = 0; at <= line.length; at++) {
        const s = line.slice(0, at) + bad + line.slice(at);
        expect(jsonString(s), `${JSON.stringify(bad)} at ${at}`).toBe(JSON.stringify(s));
      }
    }
  });

  it('copies a plain line between quotes, and most non-Latin-1 text too', () => {
    expect(needsNoEscape('LEEF:2.0|Vendor|Product|1.0|E|^src=10.0.0.1^usrName=é€')).toBe(true);
    // U+DE00 (in 😀) looks like a NUL on the Latin-1 image: JSON.stringify is asked for nothing.
    expect(needsNoEscape('😀')).toBe(false);
    expect(jsonString('😀')).toBe('"😀"');
    expect(jsonString('')).toBe('""');
    expect(needsNoEscape('a\u2028b')).toBe(true);
    expect(JSON.stringify('a\u2028b')).toBe('"a\u2028b"');
  });

  it('handles texts longer than its scan buffer, below and above the scan limit', () => {
    const scan = new JsonScanBuffer();
    for (const n of [4095, 4096, 70_000, 200_000, 5]) {
      const plain = 'y'.repeat(n);
      expect(jsonString(plain, scan)).toBe(`"${plain}"`);
      const quoted = `${plain}"`;
      expect(jsonString(quoted, scan)).toBe(JSON.stringify(quoted));
      const control = `${plain}\u0001`;
      expect(jsonString(control, scan)).toBe(JSON.stringify(control));
    }
  });

  it('gives each buffer its own bytes: texts checked alternately through two buffers', () => {
    const a = new JsonScanBuffer();
    const b = new JsonScanBuffer();
    const long = `${'z'.repeat(9000)}\u0002`;
    for (let k = 0; k < 3; k++) {
      expect(needsNoEscape(long, a)).toBe(false);
      expect(needsNoEscape('plain', b)).toBe(true);
      expect(needsNoEscape('z'.repeat(8000), a)).toBe(true);
    }
  });
});
