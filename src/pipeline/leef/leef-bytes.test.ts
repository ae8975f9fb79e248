import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NeedleCursor } from './leef-bytes.ts';

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
