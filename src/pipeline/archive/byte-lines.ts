import { isAscii } from 'node:buffer';
import { AppError } from '../../errors.ts';
import { quoteName } from './entry-path.ts';

/**
 * Lines of one buffer as byte ranges: line k is `buf[starts[k], ends[k])`, without its CR/LF.
 * Nothing is decoded: hot loops search and copy bytes, and decode only what they must.
 */
export interface ByteLines {
  readonly buf: Buffer;
  /** Typed arrays, not number arrays: a million lines grew arrays by push for ≈ 90 MB of garbage. */
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  /**
   * Offset in the entry of `buf[0]` (a chunk as the reader gave it, or a line the splitter
   * assembled across chunks). Another pass over the same entry that gets a buffer of the same
   * offset and length gets the same bytes, split into the same lines: whether a line is pending
   * before it depends only on the byte before it, and a chunk's segment and an assembled line
   * never start at the same offset.
   */
  readonly offset: number;
  /** Every byte of `buf` is ASCII: a line reads the same as Latin-1, byte offsets are character offsets. */
  readonly ascii: boolean;
}

/** The lines one chunk completed: the line carried over from earlier chunks first, then its own. */
export interface ByteLineBatch {
  readonly segments: readonly ByteLines[];
  /** Lines over all segments. */
  readonly count: number;
}

/**
 * splitLineBatches without decoding: the same lines (cut at LF, one CR before it dropped, a
 * leading byte order mark dropped, empty and blank lines skipped, the same length cap and error),
 * as byte ranges of the chunks they came in. A line split across chunks is copied into a buffer of
 * its own; every other line stays where the inflater put it. Holds at most one line plus one chunk.
 */
export async function* splitByteLines(
  chunks: AsyncIterable<Uint8Array>,
  entry: string,
  maxLineBytes: number,
): AsyncGenerator<ByteLineBatch> {
  const splitter = new ByteLineSplitter(entry, maxLineBytes);
  for await (const chunk of chunks) {
    const batch = splitter.push(chunk);
    if (batch.count > 0) yield batch;
  }
  const last = splitter.end();
  if (last.count > 0) yield last;
}

const NONE: ByteLineBatch = Object.freeze({ segments: Object.freeze([]), count: 0 });

/** Incremental splitter; `push` returns the lines completed by that chunk. */
export class ByteLineSplitter {
  readonly #entry: string;
  readonly #maxLineBytes: number;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #lineNumber = 0;
  // Line ranges of the chunk being split, copied out to one exact-size array per chunk.
  #starts = new Int32Array(1024);
  #ends = new Int32Array(1024);
  #count = 0;
  // Entry bytes pushed before the current chunk, and where the pending line starts.
  #consumed = 0;
  #pendingOffset = 0;

  constructor(entry: string, maxLineBytes: number) {
    this.#entry = entry;
    this.#maxLineBytes = maxLineBytes;
  }

  /** Feeds bytes; a line is complete once its LF has been seen. */
  push(chunk: Uint8Array): ByteLineBatch {
    const buf = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const offset = this.#consumed;
    this.#consumed += buf.length;
    let nl = buf.indexOf(0x0a);
    if (nl < 0 && this.#pendingBytes > 0) {
      this.#checkLength(this.#pendingBytes + buf.length);
      this.#pending.push(buf);
      this.#pendingBytes += buf.length;
      return NONE;
    }
    const segments: ByteLines[] = [];
    let count = 0;
    let start = 0;
    if (this.#pendingBytes > 0) {
      this.#checkLength(this.#pendingBytes + nl);
      this.#pending.push(buf.subarray(0, nl));
      const joined = this.#takePending(this.#pendingBytes + nl);
      const one = this.#single(joined, this.#pendingOffset);
      if (one !== null) {
        segments.push(one);
        count++;
      }
      start = nl + 1;
      nl = buf.indexOf(0x0a, start);
    }
    this.#count = 0;
    while (nl !== -1) {
      this.#checkLength(nl - start);
      this.#emit(buf, start, nl);
      start = nl + 1;
      nl = buf.indexOf(0x0a, start);
    }
    if (start < buf.length) {
      this.#checkLength(buf.length - start);
      this.#pending.push(start === 0 ? buf : buf.subarray(start));
      this.#pendingBytes = buf.length - start;
      this.#pendingOffset = offset + start;
    }
    if (this.#count > 0) {
      segments.push(this.#segment(buf, offset));
      count += this.#count;
    }
    return count === 0 ? NONE : { segments, count };
  }

  /** Flushes a last line that had no LF. */
  end(): ByteLineBatch {
    if (this.#pendingBytes === 0) return NONE;
    const one = this.#single(this.#takePending(this.#pendingBytes), this.#pendingOffset);
    return one === null ? NONE : { segments: [one], count: 1 };
  }

  #takePending(length: number): Buffer {
    const joined = Buffer.concat(this.#pending, length);
    this.#pending = [];
    this.#pendingBytes = 0;
    return joined;
  }

  #single(line: Buffer, offset: number): ByteLines | null {
    this.#count = 0;
    this.#emit(line, 0, line.length);
    return this.#count === 0 ? null : this.#segment(line, offset);
  }

  /** The lines collected for `buf` as a segment: both ranges in one new array. */
  #segment(buf: Buffer, offset: number): ByteLines {
    const n = this.#count;
    const ranges = new Int32Array(2 * n);
    ranges.set(this.#starts.subarray(0, n));
    ranges.set(this.#ends.subarray(0, n), n);
    return { buf, starts: ranges.subarray(0, n), ends: ranges.subarray(n), offset, ascii: isAscii(buf) };
  }

  #emit(buf: Buffer, start: number, end: number): void {
    this.#lineNumber++;
    const stop = end > start && buf[end - 1] === 0x0d ? end - 1 : end;
    let s = start;
    if (
      this.#lineNumber === 1 &&
      stop - s >= 3 &&
      buf[s] === 0xef &&
      buf[s + 1] === 0xbb &&
      buf[s + 2] === 0xbf
    ) {
      s += 3;
    }
    if (s === stop) return;
    // Bytes up to 32 are ASCII characters, so this is the string splitter's blank-line test.
    if (
      (buf[s] as number) <= 32 &&
      (buf[stop - 1] as number) <= 32 &&
      buf.toString('utf8', s, stop).trim() === ''
    ) {
      return;
    }
    const n = this.#count;
    if (n === this.#starts.length) {
      const starts = new Int32Array(2 * n);
      starts.set(this.#starts);
      this.#starts = starts;
      const ends = new Int32Array(2 * n);
      ends.set(this.#ends);
      this.#ends = ends;
    }
    this.#starts[n] = s;
    this.#ends[n] = stop;
    this.#count = n + 1;
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

/** Line `k` of `lines` decoded as the string splitter would give it (UTF-8, U+FFFD for invalid bytes). */
export function lineText(lines: ByteLines, k: number): string {
  const s = lines.starts[k] as number;
  const e = lines.ends[k] as number;
  return lines.ascii ? lines.buf.toString('latin1', s, e) : lines.buf.toString('utf8', s, e);
}
