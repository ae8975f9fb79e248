import {
  type LineBatch,
  type NumberedLine,
  splitLineBatches,
  splitLines,
  splitNumberedLines,
} from './split-lines.ts';

/** One file of an archive, read as a stream: entries can be far larger than memory allows. */
export interface ArchiveEntry {
  /** Normalized path inside the archive (see checkEntryName). */
  readonly path: string;
  /** Uncompressed size the archive declares (enforced while reading). */
  readonly size: number;
  /** Longest line (or JSON document) accepted, in bytes (ArchiveLimits.maxLineLength). */
  readonly maxLineLength: number;
  /** Inflated bytes; replays what `head` already read. */
  bytes(): AsyncIterable<Uint8Array>;
  /** Non-empty lines without their line ending (CRLF or LF). */
  lines(): AsyncIterable<string>;
  /** Non-empty lines with their 1-based line number, for messages naming a line. */
  numberedLines(): AsyncIterable<NumberedLine>;
  /** Lines in per-chunk batches, for hot loops that should not await once per line. */
  lineBatches(): AsyncIterable<LineBatch>;
  /** At least the first `minBytes` bytes (fewer only at the end of the entry), kept for `bytes`. */
  head(minBytes: number): Promise<Uint8Array>;
}

/** Opens the inflated byte stream of an entry. */
export type OpenEntryStream = () => AsyncIterator<Uint8Array>;

/**
 * ArchiveEntry over a stream opener. `head` keeps what it read so format detection can look at the
 * start of an entry that can only be streamed once (`.tar.gz`), then the reader replays it.
 */
export class StreamedEntry implements ArchiveEntry {
  readonly path: string;
  readonly size: number;
  readonly #open: OpenEntryStream;
  readonly maxLineLength: number;
  #iterator: AsyncIterator<Uint8Array> | undefined;
  #kept: Uint8Array[] = [];
  #keptBytes = 0;
  #ended = false;

  constructor(path: string, size: number, open: OpenEntryStream, maxLineLength: number) {
    this.path = path;
    this.size = size;
    this.#open = open;
    this.maxLineLength = maxLineLength;
  }

  async head(minBytes: number): Promise<Uint8Array> {
    this.#iterator ??= this.#open();
    while (this.#keptBytes < minBytes && !this.#ended) {
      const step = await this.#iterator.next();
      if (step.done) this.#ended = true;
      else {
        this.#kept.push(step.value);
        this.#keptBytes += step.value.length;
      }
    }
    return this.#kept.length === 1 ? this.#kept[0]! : Buffer.concat(this.#kept);
  }

  async *bytes(): AsyncGenerator<Uint8Array> {
    const iterator = this.#iterator ?? this.#open();
    const kept = this.#kept;
    const ended = this.#ended;
    this.#iterator = undefined;
    this.#kept = [];
    this.#keptBytes = 0;
    this.#ended = false;
    try {
      yield* kept;
      if (ended) return;
      for (;;) {
        const step = await iterator.next();
        if (step.done) return;
        yield step.value;
      }
    } finally {
      await iterator.return?.();
    }
  }

  lines(): AsyncIterable<string> {
    return splitLines(this.bytes(), this.path, this.maxLineLength);
  }

  numberedLines(): AsyncIterable<NumberedLine> {
    return splitNumberedLines(this.bytes(), this.path, this.maxLineLength);
  }

  lineBatches(): AsyncIterable<LineBatch> {
    return splitLineBatches(this.bytes(), this.path, this.maxLineLength);
  }
}

/** Yields `data` in slices, so in-memory content flows through the same line splitter. */
export function sliceChunks(data: Uint8Array, chunkSize = 64 * 1024): OpenEntryStream {
  return () => {
    let offset = 0;
    return {
      async next(): Promise<IteratorResult<Uint8Array>> {
        if (offset >= data.length) return { done: true, value: undefined };
        const chunk = data.subarray(offset, offset + chunkSize);
        offset += chunk.length;
        return { done: false, value: chunk };
      },
    };
  };
}
