import type { EncodedEvent } from './deliver.ts';

/** Characters joined before each write into the body (a rope this short flattens cheaply). */
const GROUP_CHARS = 8 * 1024;

/**
 * The request body of a batch: every event's text, UTF-8 encoded, in order. Writing groups of a few
 * thousand characters into one buffer avoids building a megabyte-long rope of thousands of pieces
 * that V8 would flatten (copy) before encoding it, then copy again into a buffer. The buffer is
 * sized for the worst case (3 bytes per UTF-16 unit); its untouched tail costs address space only.
 */
export function requestBody(events: readonly EncodedEvent[]): Buffer {
  const out = Buffer.allocUnsafe(maxBodyBytes(events));
  return out.subarray(0, writeRequestBody(events, out));
}

/** The most bytes the body of `events` can take: 3 per UTF-16 unit (see requestBody). */
export function maxBodyBytes(events: readonly EncodedEvent[]): number {
  let chars = 0;
  for (const e of events) chars += e.size;
  return chars * 3;
}

/**
 * Writes the body of `events` (see requestBody) at the start of `out`, at least maxBodyBytes long;
 * returns its length. An event with `writeTo` writes itself, with no string built for it; events
 * already written as bytes one after another in one buffer are copied in one go.
 */
export function writeRequestBody(events: readonly EncodedEvent[], out: Buffer): number {
  let offset = 0;
  let group = '';
  // A run of events written as bytes, not copied yet: run[runStart, runEnd).
  let run: Buffer | undefined;
  let runStart = 0;
  let runEnd = 0;
  for (const e of events) {
    const bytes = e.bytes;
    if (bytes !== undefined) {
      if (bytes === run && e.bytesStart === runEnd) {
        runEnd = e.bytesEnd as number;
        continue;
      }
      if (group !== '') {
        offset += out.write(group, offset);
        group = '';
      }
      if (run !== undefined) offset += run.copy(out, offset, runStart, runEnd);
      run = bytes;
      runStart = e.bytesStart as number;
      runEnd = e.bytesEnd as number;
      continue;
    }
    if (run !== undefined) {
      offset += run.copy(out, offset, runStart, runEnd);
      run = undefined;
    }
    if (e.writeTo !== undefined) {
      if (group !== '') {
        offset += out.write(group, offset);
        group = '';
      }
      offset = e.writeTo(out, offset);
      continue;
    }
    group += e.text;
    if (group.length >= GROUP_CHARS) {
      offset += out.write(group, offset);
      group = '';
    }
  }
  if (run !== undefined) offset += run.copy(out, offset, runStart, runEnd);
  if (group !== '') offset += out.write(group, offset);
  return offset;
}

/**
 * Buffers for request bodies that are only read until the send has used them (a body that is
 * compressed before it goes out). Taking one that was given back saves allocating megabytes per
 * request and faulting their pages in again; the pool keeps at most `keep` buffers.
 */
export class BodyBuffers {
  readonly #keep: number;
  readonly #free: Buffer[] = [];

  constructor(keep: number) {
    this.#keep = keep;
  }

  /** A buffer of at least `bytes`: a free one when it is large enough, else a new one. */
  take(bytes: number): Buffer {
    for (let k = this.#free.length - 1; k >= 0; k--) {
      const buffer = this.#free[k]!;
      if (buffer.length >= bytes) {
        this.#free.splice(k, 1);
        return buffer;
      }
    }
    return Buffer.allocUnsafeSlow(bytes);
  }

  /** Gives a buffer from take() back once nothing reads it any more. */
  give(buffer: Buffer): void {
    if (this.#keep <= 0) return;
    if (this.#free.length < this.#keep) this.#free.push(buffer);
    else {
      // Keep the largest ones: a pool of small buffers would allocate on every large batch.
      let smallest = 0;
      for (let k = 1; k < this.#free.length; k++)
        if (this.#free[k]!.length < this.#free[smallest]!.length) smallest = k;
      if (this.#free[smallest]!.length < buffer.length) this.#free[smallest] = buffer;
    }
  }
}
