import { describe, expect, it } from 'vitest';
import type { ByteLines } from '../archive/byte-lines.ts';
import { LineIndexes } from './leef-line-reader.ts';

/** A chunk of `text` as the splitter gives it: lines at LF, at `offset` in its entry. */
function chunk(text: string, offset: number): ByteLines {
  const buf = Buffer.from(text, 'latin1');
  const starts: number[] = [];
  const ends: number[] = [];
  let s = 0;
  for (let i = 0; i < buf.length; i++) {
    if (buf[i] === 10) {
      starts.push(s);
      ends.push(i);
      s = i + 1;
    }
  }
  return { buf, starts: Int32Array.from(starts), ends: Int32Array.from(ends), offset, ascii: true };
}

const TEXT = 'LEEF:1.0|A|B|1|x|devTime=1704067200000\nLEEF:1.0|A|B|1|y|devTime=1704067201000\n';

describe('LineIndexes', () => {
  it('gives pass 2 the index of a chunk inflated again: same entry, offset and length, another buffer', () => {
    const indexes = new LineIndexes();
    const index = indexes.create(chunk(TEXT, 262_144), '0/a.log');
    expect(indexes.find(chunk(TEXT, 262_144), '0/a.log')).toBe(index);
  });

  it('gives nothing for another entry, offset or length, or other lines', () => {
    const indexes = new LineIndexes();
    indexes.create(chunk(TEXT, 0), '0/a.log');
    expect(indexes.find(chunk(TEXT, 0), '1/a.log')).toBeNull();
    expect(indexes.find(chunk(TEXT, 1), '0/a.log')).toBeNull();
    // A chunk cut shorter at the same offset (pass 2 stops inflating where the kept tail begins).
    expect(indexes.find(chunk(TEXT.slice(0, 40), 0), '0/a.log')).toBeNull();
    // The same lines, then the start of one more: not the chunk pass 1 saw.
    expect(indexes.find(chunk(`${TEXT}LEEF:1.0|A`, 0), '0/a.log')).toBeNull();
    expect(indexes.find(chunk(`\n${TEXT.slice(1)}`, 0), '0/a.log')).toBeNull();
  });

  it('keeps indexes up to its budget and records nothing beyond it', () => {
    // Four header numbers and seven per line: 72 bytes for two lines.
    const indexes = new LineIndexes(150);
    expect(indexes.create(chunk(TEXT, 0), 'e')).not.toBeNull();
    expect(indexes.create(chunk(TEXT, 100), 'e')).not.toBeNull();
    expect(indexes.create(chunk(TEXT, 200), 'e')).toBeNull();
    expect(indexes.find(chunk(TEXT, 0), 'e')).not.toBeNull();
    expect(indexes.find(chunk(TEXT, 100), 'e')).not.toBeNull();
    expect(indexes.find(chunk(TEXT, 200), 'e')).toBeNull();
  });

  it('gives nothing for lines of the same count and first start that end elsewhere', () => {
    const indexes = new LineIndexes();
    indexes.create(chunk(TEXT, 0), 'e');
    // Two lines from 0 in as many bytes as TEXT; the second line ends a byte earlier.
    const other = chunk(`${TEXT.slice(0, 76)}\nx`, 0);
    expect([other.starts.length, other.starts[0], other.buf.length]).toEqual([2, 0, TEXT.length]);
    expect(indexes.find(other, 'e')).toBeNull();
  });
});
