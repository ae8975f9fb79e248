import { isAscii } from 'node:buffer';
import { AppError } from '../../errors.ts';
import { BlankLineRuns } from './blank-line-runs.ts';
import { quoteName } from './entry-path.ts';

/** One non-empty line of an entry with its 1-based line number (empty lines still count). */
export interface NumberedLine {
  readonly number: number;
  readonly text: string;
}

/** Lines completed by one chunk: parallel arrays, so hot loops allocate no object per line. */
export interface LineBatch {
  readonly texts: string[];
  readonly numbers: number[];
}

/**
 * Splits a stream of UTF-8 bytes into lines without ever holding more than one line plus one chunk:
 * entries can be far larger than the longest string V8 allows. Lines are cut at LF bytes before
 * decoding (a LF byte never occurs inside a multi-byte character, so characters split across
 * chunks are whole again by then), then decoded one by one; invalid UTF-8 becomes U+FFFD. Handles
 * CRLF, a last line without newline and a leading BOM, and skips blank lines.
 */
export async function* splitLineBatches(
  chunks: AsyncIterable<Uint8Array>,
  entry: string,
  maxLineBytes: number,
): AsyncGenerator<LineBatch> {
  const splitter = new LineSplitter(entry, maxLineBytes);
  for await (const chunk of chunks) {
    const batch = splitter.push(chunk);
    if (batch.texts.length > 0) yield batch;
  }
  const last = splitter.end();
  if (last.texts.length > 0) yield last;
}

/** The non-empty lines of a byte stream, as strings (see splitLineBatches). */
export async function* splitLines(
  chunks: AsyncIterable<Uint8Array>,
  entry: string,
  maxLineBytes: number,
): AsyncGenerator<string> {
  for await (const batch of splitLineBatches(chunks, entry, maxLineBytes)) yield* batch.texts;
}

/** The non-empty lines of a byte stream with their line numbers (see splitLineBatches). */
export async function* splitNumberedLines(
  chunks: AsyncIterable<Uint8Array>,
  entry: string,
  maxLineBytes: number,
): AsyncGenerator<NumberedLine> {
  for await (const { texts, numbers } of splitLineBatches(chunks, entry, maxLineBytes)) {
    for (let i = 0; i < texts.length; i++) yield { number: numbers[i]!, text: texts[i]! };
  }
}

/** Incremental splitter over bytes; `push` returns the lines completed by that chunk. */
export class LineSplitter {
  readonly #entry: string;
  readonly #maxLineBytes: number;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #lineNumber = 0;
  #ascii = false;
  readonly #blankRuns = new BlankLineRuns();

  constructor(entry: string, maxLineBytes: number) {
    this.#entry = entry;
    this.#maxLineBytes = maxLineBytes;
  }

  /** Feeds bytes; a line is complete once its LF has been seen. */
  push(chunk: Uint8Array): LineBatch {
    const buf = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    // Pure ASCII (most logs) needs no UTF-8 decoding: Latin-1 gives the same characters, faster.
    this.#ascii = isAscii(buf);
    const texts: string[] = [];
    const numbers: number[] = [];
    let start = 0;
    let nl = buf.indexOf(0x0a);
    while (nl !== -1) {
      if (this.#pendingBytes > 0) {
        this.#checkLength(this.#pendingBytes + nl - start);
        this.#pending.push(buf.subarray(start, nl));
        const line = Buffer.concat(this.#pending, this.#pendingBytes + nl - start);
        this.#pending = [];
        this.#pendingBytes = 0;
        // The line's start came from an earlier chunk, which may not have been ASCII.
        const ascii = this.#ascii;
        this.#ascii = false;
        this.#emit(line, 0, line.length, texts, numbers);
        this.#ascii = ascii;
      } else {
        if ((buf[start] as number) <= 32 && (buf[nl + 1] as number) <= 32) {
          // A line that may be blank, and another after it: a run of blank lines is skipped at once
          // (a lone blank line costs less the usual way).
          const next = this.#blankRuns.skip(buf, start, this.#maxLineBytes);
          if (next > start) {
            this.#lineNumber += this.#blankRuns.lines;
            start = next;
            nl = buf.indexOf(0x0a, start);
            continue;
          }
        }
        this.#checkLength(nl - start);
        this.#emit(buf, start, nl, texts, numbers);
      }
      start = nl + 1;
      nl = buf.indexOf(0x0a, start);
    }
    if (start < buf.length) {
      this.#checkLength(this.#pendingBytes + buf.length - start);
      this.#pending.push(start === 0 ? buf : buf.subarray(start));
      this.#pendingBytes += buf.length - start;
    }
    return { texts, numbers };
  }

  /** Flushes a last line that had no LF. */
  end(): LineBatch {
    const batch: LineBatch = { texts: [], numbers: [] };
    this.#ascii = false;
    if (this.#pendingBytes > 0) {
      const line = Buffer.concat(this.#pending, this.#pendingBytes);
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#emit(line, 0, line.length, batch.texts, batch.numbers);
    }
    return batch;
  }

  #emit(buf: Buffer, start: number, end: number, texts: string[], numbers: number[]): void {
    this.#lineNumber++;
    const stop = end > start && buf[end - 1] === 0x0d ? end - 1 : end;
    if (stop === start) return;
    let line = buf.toString(this.#ascii ? 'latin1' : 'utf8', start, stop);
    if (this.#lineNumber === 1 && line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    // Only lines that start and end with whitespace can be blank; skip the trim for the rest.
    if (line.length === 0) return;
    if (line.charCodeAt(0) <= 32 && line.charCodeAt(line.length - 1) <= 32 && line.trim() === '') return;
    texts.push(line);
    numbers.push(this.#lineNumber);
  }

  #checkLength(length: number): void {
    if (length > this.#maxLineBytes) {
      throw new AppError(
        'payload_too_large',
        `line ${this.#lineNumber + 1} of archive entry ${quoteName(this.#entry)} is longer than ${this.#maxLineBytes} bytes`,
        { details: { entry: this.#entry, line: this.#lineNumber + 1, limit: this.#maxLineBytes } },
      );
    }
  }
}
