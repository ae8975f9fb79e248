import { isAscii } from 'node:buffer';
import { AppError } from '../../errors.ts';
import { BlankLineRuns } from './blank-line-runs.ts';
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
  /** Lines of the entry (blank ones too) ended before the chunk these came in: see entryLineNumber. */
  readonly linesBefore: number;
}

/**
 * The 1-based line number in its entry of line `k` of `lines`, a segment of `batch`, for messages:
 * the lines ended before the batch's chunk plus the line feeds in the segment before the line. A
 * line carried over from earlier chunks is assembled in a buffer of its own, without line feeds,
 * and it is the chunk's first; the chunk's own segment starts at its start. Counts natively; meant
 * for the rare line that is reported, not for every line.
 */
export function entryLineNumber(batch: ByteLineBatch, lines: ByteLines, k: number): number {
  const before = lines.starts[k] as number;
  let feeds = 0;
  for (let at = lines.buf.indexOf(0x0a); at >= 0 && at < before; at = lines.buf.indexOf(0x0a, at + 1))
    feeds++;
  return batch.linesBefore + feeds + 1;
}

/**
 * splitLineBatches without decoding: the same lines (cut at LF, one CR before it dropped, a
 * leading byte order mark dropped, empty and blank lines skipped, the same length cap and error),
 * as byte ranges of the chunks they came in. A line split across chunks is copied into a buffer of
 * its own; every other line stays where the inflater put it. Holds at most one line plus one chunk.
 *
 * With `memo` (SplitMemo.entry), a chunk an earlier pass over the same entry split is not searched
 * again: its line ranges are taken from the memo; chunks it does not hold are split and recorded.
 */
export async function* splitByteLines(
  chunks: AsyncIterable<Uint8Array>,
  entry: string,
  maxLineBytes: number,
  memo: EntrySplits | null = null,
): AsyncGenerator<ByteLineBatch> {
  const splitter = new ByteLineSplitter(entry, maxLineBytes, memo);
  for await (const chunk of chunks) {
    const batch = splitter.push(chunk);
    if (batch.count > 0) yield batch;
  }
  const last = splitter.end();
  if (last.count > 0) yield last;
}

const NONE: ByteLineBatch = Object.freeze({ segments: Object.freeze([]), count: 0, linesBefore: 0 });

/** Incremental splitter; `push` returns the lines completed by that chunk. */
export class ByteLineSplitter {
  readonly #entry: string;
  readonly #maxLineBytes: number;
  readonly #pending: Buffer[] = [];
  #pendingBytes = 0;
  #lineNumber = 0;
  // Line ranges of the chunk being split, copied out to one exact-size array per chunk.
  #starts = new Int32Array(1024);
  #ends = new Int32Array(1024);
  #count = 0;
  // Entry bytes pushed before the current chunk, and where the pending line starts.
  #consumed = 0;
  #pendingOffset = 0;

  readonly #memo: EntrySplits | null;
  readonly #blankRuns = new BlankLineRuns();

  constructor(entry: string, maxLineBytes: number, memo: EntrySplits | null = null) {
    this.#entry = entry;
    this.#maxLineBytes = maxLineBytes;
    this.#memo = memo;
  }

  /** Feeds bytes; a line is complete once its LF has been seen. */
  push(chunk: Uint8Array): ByteLineBatch {
    const buf = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const offset = this.#consumed;
    this.#consumed += buf.length;
    const pendingBefore = this.#pendingBytes > 0;
    const linesBefore = this.#lineNumber;
    if (this.#memo !== null) {
      const known = this.#memo.find(offset, buf, pendingBefore);
      // Lengths were checked against the recording pass's cap: replay only under the same one.
      if (known !== null && known.maxLineBytes === this.#maxLineBytes)
        return this.#replay(buf, offset, known, linesBefore);
    }
    let nl = buf.indexOf(0x0a);
    if (nl < 0 && pendingBefore) {
      this.#checkLength(this.#pendingBytes + buf.length);
      this.#pending.push(buf);
      this.#pendingBytes += buf.length;
      return NONE;
    }
    const firstNl = nl;
    const segments: ByteLines[] = [];
    let count = 0;
    let start = 0;
    if (pendingBefore) {
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
    const lineNumberBefore = this.#lineNumber;
    this.#count = 0;
    while (nl !== -1) {
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
      this.#emit(buf, start, nl);
      start = nl + 1;
      nl = buf.indexOf(0x0a, start);
    }
    const tail = start < buf.length ? start : -1;
    if (tail >= 0) {
      this.#checkLength(buf.length - start);
      this.#pending.push(start === 0 ? buf : buf.subarray(start));
      this.#pendingBytes = buf.length - start;
      this.#pendingOffset = offset + start;
    }
    const own = this.#count > 0 ? this.#segment(buf, offset) : null;
    if (own !== null) {
      segments.push(own);
      count += this.#count;
    }
    if (this.#memo !== null && firstNl >= 0) {
      this.#memo.keep(offset, {
        length: buf.length,
        maxLineBytes: this.#maxLineBytes,
        pendingBefore,
        firstNl,
        // Ranges only: the memo must not hold the chunk's bytes.
        own: own === null ? null : { starts: own.starts, ends: own.ends, ascii: own.ascii },
        tail,
        lineNumbers: this.#lineNumber - lineNumberBefore,
      });
    }
    return count === 0 ? NONE : { segments, count, linesBefore };
  }

  /**
   * push() for a chunk an earlier pass split (the same bytes at the same offset of the entry, with
   * a line pending before it just as then): the line it completes is assembled, its own lines are
   * the recorded ranges, and its tail is left pending. Lengths were checked by that pass.
   */
  #replay(buf: Buffer, offset: number, known: ChunkSplit, linesBefore: number): ByteLineBatch {
    const segments: ByteLines[] = [];
    let count = 0;
    if (known.pendingBefore) {
      const nl = known.firstNl;
      this.#pending.push(buf.subarray(0, nl));
      const one = this.#single(this.#takePending(this.#pendingBytes + nl), this.#pendingOffset);
      if (one !== null) {
        segments.push(one);
        count++;
      }
    }
    this.#lineNumber += known.lineNumbers;
    const tail = known.tail;
    if (tail >= 0) {
      this.#pending.push(tail === 0 ? buf : buf.subarray(tail));
      this.#pendingBytes = buf.length - tail;
      this.#pendingOffset = offset + tail;
    }
    const own = known.own;
    if (own !== null) {
      // The recorded ranges over this pass's buffer (the same bytes, another Buffer).
      segments.push({ buf, starts: own.starts, ends: own.ends, offset, ascii: own.ascii });
      count += own.starts.length;
    }
    return count === 0 ? NONE : { segments, count, linesBefore };
  }

  /** Flushes a last line that had no LF. */
  end(): ByteLineBatch {
    if (this.#pendingBytes === 0) return NONE;
    const linesBefore = this.#lineNumber;
    const one = this.#single(this.#takePending(this.#pendingBytes), this.#pendingOffset);
    return one === null ? NONE : { segments: [one], count: 1, linesBefore };
  }

  #takePending(length: number): Buffer {
    const joined = Buffer.concat(this.#pending, length);
    // Emptied, not replaced: a new [] has another elements kind, and optimized push() deopted on
    // it once per chunk.
    this.#pending.length = 0;
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

/** How one chunk was split: what a later pass over the same bytes needs to skip the search. */
export interface ChunkSplit {
  /** The chunk's length. */
  readonly length: number;
  /** The line length cap it was split (and checked) under. */
  readonly maxLineBytes: number;
  /** A line from earlier chunks was pending when it came (and ends at firstNl). */
  readonly pendingBefore: boolean;
  /** Offset of its first LF (chunks without one are not recorded). */
  readonly firstNl: number;
  /** Its own lines (the ranges of the segment push returned for it), or null when none. */
  readonly own: { readonly starts: Int32Array; readonly ends: Int32Array; readonly ascii: boolean } | null;
  /** Where the bytes it left pending start, or -1. */
  readonly tail: number;
  /** LFs after firstNl (or from its start), blank lines included: the line numbers it used. */
  readonly lineNumbers: number;
}

/** The splits of one entry in a SplitMemo. */
export interface EntrySplits {
  /** The split recorded for this chunk (same offset, length and pending state), or null. */
  find(offset: number, buf: Buffer, pendingBefore: boolean): ChunkSplit | null;
  /** Records a chunk's split while the memo's budget lasts (a chunk already recorded is kept as it is). */
  keep(offset: number, split: ChunkSplit): void;
}

/**
 * The line ranges pass 1 found in each chunk, so that pass 2 — which inflates the very same bytes
 * again, chunk for chunk — does not search them for LFs a second time (a search per line,
 * ≈ 40 ms of the main thread per million lines). Chunks are known by entry and offset, checked by
 * length, the pending state, the line length cap and where their first LF and last line end fall.
 * Ranges are kept up to `maxBytes` (8 bytes a line); from the first chunk that does not fit,
 * nothing more is kept and later chunks are split afresh.
 */
export class SplitMemo {
  readonly #chunks = new Map<string, ChunkSplit>();
  readonly #maxBytes: number;
  #bytes = 0;
  #full = false;

  constructor(maxBytes = DEFAULT_SPLIT_MEMO_BYTES) {
    this.#maxBytes = maxBytes;
  }

  /** The splits of the entry known as `entry` (unique within the memo, like LineIndexes' keys). */
  entry(entry: string): EntrySplits {
    return {
      find: (offset, buf, pendingBefore) => {
        const known = this.#chunks.get(`${offset}:${entry}`);
        if (known === undefined || known.length !== buf.length || known.pendingBefore !== pendingBefore) {
          return null;
        }
        // The bytes are the same by construction (the same compressed data inflated again); these
        // checks catch a caller that breaks that, at the cost of two reads.
        if (buf[known.firstNl] !== 0x0a) return null;
        const own = known.own;
        if (own !== null) {
          const end = own.ends[own.ends.length - 1] as number;
          if (buf[end] !== 0x0a && buf[end] !== 0x0d) return null;
        }
        return known;
      },
      keep: (offset, split) => {
        const key = `${offset}:${entry}`;
        // A later pass records what the first could not (a chunk cut short by a kept tail), and
        // concurrent passes the same: the first record stays and is counted once.
        if (this.#full || this.#chunks.has(key)) return;
        const size = SPLIT_OVERHEAD + (split.own === null ? 0 : 8 * split.own.starts.length);
        if (this.#bytes + size > this.#maxBytes) {
          this.#full = true;
          return;
        }
        this.#bytes += size;
        this.#chunks.set(key, split);
      },
    };
  }
}

/** SplitMemo's default budget: two million lines. */
export const DEFAULT_SPLIT_MEMO_BYTES = 16 * 1024 * 1024;
// A record, its key and map slot, counted against the budget with the ranges.
const SPLIT_OVERHEAD = 200;

/** Line `k` of `lines` decoded as the string splitter would give it (UTF-8, U+FFFD for invalid bytes). */
export function lineText(lines: ByteLines, k: number): string {
  const s = lines.starts[k] as number;
  const e = lines.ends[k] as number;
  return lines.ascii ? lines.buf.toString('latin1', s, e) : lines.buf.toString('utf8', s, e);
}
