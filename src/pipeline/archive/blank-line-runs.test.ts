import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countingBufferCalls } from '../../../test/helpers/buffer-calls.ts';
import { type ReferenceSplit, referenceSplit } from '../../../test/reference/split-lines-reference.ts';
import { AppError } from '../../errors.ts';
import { lineText, SplitMemo, splitByteLines } from './byte-lines.ts';
import { splitNumberedLines } from './split-lines.ts';

/** Blank lines as they come in runs: empty (LF, CR LF), whitespace only, and mixes that repeat. */
const blankUnit = fc.constantFrom(
  '\n',
  '\r\n',
  '\n\r\n',
  '\r\r\n',
  ' \n',
  '\t \r\n',
  '\x0b\x0c\n',
  '  \n\n',
  '\n\n\r\n',
);
const line = fc.oneof(
  fc.constantFrom('LEEF:1.0|V|P|1|E|a=1', 'x', ' indented', '\ufeffLEEF:2.0|V|P|1|E|^|b=2', '\u00a0', 'é€'),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
);
const segment = fc.oneof(
  // A run of blank lines, long enough to pass the byte-by-byte block (32 lines) many times.
  fc.tuple(blankUnit, fc.integer({ min: 0, max: 400 })).map(([unit, n]) => unit.repeat(n)),
  // Blank lines of many lengths, some over the smaller caps.
  fc.integer({ min: 0, max: 60 }).map((n) => `${' '.repeat(n)}\n`),
  fc.tuple(line, fc.constantFrom('\n', '\r\n', '\r\r\n', '')).map(([l, e]) => l + e),
);
const content = fc
  .record({ segments: fc.array(segment, { maxLength: 10 }), bom: fc.boolean() })
  .map(({ segments, bom }) => Buffer.from((bom ? '\ufeff' : '') + segments.join(''), 'utf8'));
const cuts = fc.oneof(
  fc.array(fc.nat(), { maxLength: 8 }).map((points) => ({ points, every: 0 })),
  fc.integer({ min: 1, max: 9 }).map((every) => ({ points: [] as number[], every })),
);
const cap = fc.constantFrom(0, 1, 3, 40, 1 << 20);

function chunksOf(data: Buffer, cut: { points: number[]; every: number }): Buffer[] {
  const at =
    cut.every > 0
      ? Array.from({ length: Math.floor(data.length / cut.every) }, (_, i) => (i + 1) * cut.every)
      : [...new Set(cut.points.map((c) => c % (data.length + 1)))].sort((a, b) => a - b);
  // Copies, as an inflater gives them: another pass gets other buffers with the same bytes.
  return [...at, data.length].map((end, i) => Buffer.from(data.subarray(i === 0 ? 0 : at[i - 1], end)));
}

async function* stream(chunks: Buffer[]): AsyncGenerator<Uint8Array> {
  yield* chunks;
}

/** The string splitter's lines with their numbers, or its error, in the reference's shape. */
async function viaStrings(chunks: Buffer[], maxLine: number): Promise<ReferenceSplit> {
  const out: Array<readonly [number, string]> = [];
  try {
    for await (const l of splitNumberedLines(stream(chunks), 'a.log', maxLine)) out.push([l.number, l.text]);
  } catch (err) {
    return { error: lengthError(err) };
  }
  return { ok: out };
}

/** The byte splitter's lines (no numbers: it gives none), or its error. */
async function viaBytes(
  chunks: Buffer[],
  maxLine: number,
  memo: SplitMemo | null,
): Promise<{ ok: string[] } | { error: { line: number; limit: number } }> {
  const out: string[] = [];
  try {
    const splits = memo === null ? null : memo.entry('0/a.log');
    for await (const batch of splitByteLines(stream(chunks), 'a.log', maxLine, splits)) {
      for (const lines of batch.segments)
        for (let k = 0; k < lines.starts.length; k++) out.push(lineText(lines, k));
    }
  } catch (err) {
    return { error: lengthError(err) };
  }
  return { ok: out };
}

function lengthError(err: unknown): { line: number; limit: number } {
  expect(err).toBeInstanceOf(AppError);
  const details = (err as AppError).details as { line: number; limit: number };
  return { line: details.line, limit: details.limit };
}

function texts(split: ReferenceSplit): { ok: string[] } | { error: { line: number; limit: number } } {
  return 'ok' in split ? { ok: split.ok.map(([, text]) => text) } : split;
}

describe('runs of blank lines skipped at once', () => {
  it('give the lines, line numbers and length errors of the line-by-line reference, however cut', async () => {
    await fc.assert(
      fc.asyncProperty(content, cuts, cuts, cap, async (data, first, second, maxLine) => {
        const expected = referenceSplit(data, maxLine);
        expect(await viaStrings(chunksOf(data, first), maxLine)).toEqual(expected);
        expect(await viaBytes(chunksOf(data, first), maxLine, null)).toEqual(texts(expected));
        // A second pass from the memo the first one filled, and one cut elsewhere.
        const memo = new SplitMemo();
        expect(await viaBytes(chunksOf(data, first), maxLine, memo)).toEqual(texts(expected));
        expect(await viaBytes(chunksOf(data, first), maxLine, memo)).toEqual(texts(expected));
        expect(await viaBytes(chunksOf(data, second), maxLine, memo)).toEqual(texts(expected));
      }),
      { numRuns: 1500 },
    );
  });

  it('searches a MiB of blank lines with a few dozen calls, not one per line', async () => {
    const units = ['\n', '\r\n', '  \n', '\n\r\n', '\t\r\n\n'];
    for (const unit of units) {
      const data = Buffer.from(`LEEF:1.0|V|P|1|E|a=1\n${unit.repeat(Math.ceil(2 ** 20 / unit.length))}x\n`);
      const calls = await countingBufferCalls(async () => {
        expect(await viaStrings([data], 1 << 20)).toEqual({
          ok: [
            [1, 'LEEF:1.0|V|P|1|E|a=1'],
            [2 + (unit.split('\n').length - 1) * Math.ceil(2 ** 20 / unit.length), 'x'],
          ],
        });
        expect(await viaBytes([data], 1 << 20, null)).toEqual({ ok: ['LEEF:1.0|V|P|1|E|a=1', 'x'] });
      });
      // Line by line, this was a million indexOf calls per splitter.
      expect(calls, JSON.stringify(unit)).toBeLessThan(200);
    }
  });
});
