import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors.ts';
import { splitLines, splitNumberedLines } from './split-lines.ts';

async function* chunked(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function lines(text: string | Buffer, chunkSize: number, max = 1000): Promise<string[]> {
  const out: string[] = [];
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  for await (const line of splitLines(chunked(bytes, chunkSize), 'a.log', max)) out.push(line);
  return out;
}

describe('splitLines', () => {
  it('splits LF and CRLF lines and keeps a last line without newline', async () => {
    expect(await lines('one\r\ntwo\nthree', 4)).toEqual(['one', 'two', 'three']);
  });

  it('skips empty and blank lines but counts them in line numbers', async () => {
    const out: Array<[number, string]> = [];
    const bytes = Buffer.from('\n\r\nfirst\n  \t \nsecond \r\n\n');
    for await (const l of splitNumberedLines(chunked(bytes, 3), 'a.log', 100)) out.push([l.number, l.text]);
    expect(out).toEqual([
      [3, 'first'],
      [5, 'second '],
    ]);
  });

  it('handles a CR and its LF arriving in different chunks', async () => {
    expect(await lines('ab\r\ncd\r\n', 3)).toEqual(['ab', 'cd']);
  });

  it('decodes multi-byte UTF-8 split across every possible chunk boundary', async () => {
    const text = 'é€😀 LEEF:2.0|Ünïcode|\nzweite Zeile ß\n';
    for (let size = 1; size <= 8; size++) {
      expect(await lines(text, size)).toEqual(['é€😀 LEEF:2.0|Ünïcode|', 'zweite Zeile ß']);
    }
  });

  it('drops a leading byte order mark', async () => {
    expect(await lines(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('x=1\n')]), 2)).toEqual([
      'x=1',
    ]);
  });

  it('replaces invalid UTF-8 with U+FFFD instead of failing', async () => {
    expect(await lines(Buffer.from([0x61, 0xff, 0x62, 0x0a]), 1)).toEqual(['a\ufffdb']);
  });

  it('refuses a line longer than the cap with payload_too_large naming entry and line', async () => {
    const err = await lines(`ok\n${'x'.repeat(50)}\n`, 7, 20).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'payload_too_large', details: { entry: 'a.log', line: 2, limit: 20 } });
  });

  it('refuses an over-long last line without newline', async () => {
    await expect(lines('y'.repeat(21), 5, 20)).rejects.toMatchObject({ code: 'payload_too_large' });
  });
});
