import { describe, expect, it } from 'vitest';
import type { ByteLines } from '../archive/byte-lines.ts';
import { LeefLineReader, LineIndexes } from './leef-line-reader.ts';
import { createRebaseContext, finishFirstPass, readEventTime, shiftLine } from './leef-rebase.ts';

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

describe('pass 2 from the index', () => {
  const NOW = Date.UTC(2026, 10, 28, 12);

  /** Both passes on bytes, pass 2 with pass 1's index, held to the string path line by line. */
  function expectBothPassesAsStrings(lines: readonly string[]): void {
    const segment = chunk(`${lines.join('\n')}\n`, 0);
    const indexes = new LineIndexes();
    const index = indexes.create(segment, 'e');
    const reference = createRebaseContext(NOW);
    const ctx = createRebaseContext(NOW);
    const pass1 = new LeefLineReader();
    for (let k = 0; k < lines.length; k++) {
      const want = readEventTime(lines[k] as string, reference);
      const got = pass1.eventTime(segment.buf, segment.starts[k]!, segment.ends[k]!, ctx, index, k);
      expect(Number.isNaN(got) ? null : got, lines[k]).toBe(want);
    }
    const shiftMs = finishFirstPass(reference, NOW);
    expect(finishFirstPass(ctx, NOW)).toBe(shiftMs);
    const pass2 = new LeefLineReader();
    for (let k = 0; k < lines.length; k++) {
      const s = segment.starts[k]!;
      const e = segment.ends[k]!;
      const want = shiftLine(lines[k] as string, shiftMs, reference);
      pass2.shift(segment.buf, s, e, shiftMs, ctx, index, k);
      expect(pass2.shiftedText(segment.buf, s, e), lines[k]).toBe(want);
      expect(pass2.eventMs, lines[k]).toBe(reference.lastEventMs);
    }
  }

  it('writes values read by every reader as the string path does', () => {
    expectBothPassesAsStrings([
      'LEEF:2.0|Lab|FW|1|E|^|devTimeFormat=MMM dd yyyy HH:mm:ss.SSS z^devTime=Jun 01 2024 10:00:00.250 PST',
      'LEEF:2.0|Lab|FW|1|E|^|devTimeFormat=MMM dd yyyy HH:mm:ss.SSS z^devTime=Jun 01 2024 10:00:01.250 PST',
      'LEEF:1.0|Lab|FW|1|E|devTime=2024-06-01T10:00:02.123456+02:00\tsrc=10.0.0.1',
      'LEEF:1.0|Lab|FW|1|E|devTime=Jun 01 2024 10:00:03\tsrc=10.0.0.1',
      'LEEF:2.0|Lab|FW|1|E|^|devTimeFormat=^devTime=2024-06-01T10:00:04Z',
      // Digits where the pattern wants text: read as epoch milliseconds.
      'LEEF:2.0|Lab|FW|1|E|^|devTimeFormat=yyyy-MM-dd^devTime=1717236005000',
      'LEEF:2.0|Lab|FW|1|E|^|devTimeFormat=dd/MMM/yyyy:HH:mm:ss Z^devTime=01/Jun/2024:10:00:06 -0800 and more',
      'LEEF:2.0|Lab|FW|1|E|^|devTimeFormat=MMM dd yyyy HH:mm:ss.SSS z^devTime=JUN 01 2024 10:00:07.250 GMT',
    ]);
  });

  it('writes a value whose milliseconds field carries it past what two int32 hold as the string path does', () => {
    // Eighteen S before another field read eighteen digits: about 4.3e17 ms, far past any year.
    const huge =
      'LEEF:2.0|Lab|FW|1|E|^|devTimeFormat=yyyy-MM-dd HH:mm:ss SSSSSSSSSSSSSSSSSSX^devTime=2024-06-01 10:00:00 429496729600000000Z';
    expectBothPassesAsStrings([huge, 'LEEF:1.0|Lab|FW|1|E|devTime=1717236000000']);
    expectBothPassesAsStrings(['LEEF:1.0|Lab|FW|1|E|devTime=1717236000000', huge]);
  });
});
