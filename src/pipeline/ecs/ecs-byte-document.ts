// Pass 2 of an ECS shipment for an ASCII NDJSON line, from its bytes. Tuned: the string path
// decoded every document into a string, built its shifted copy and then the bulk line around it;
// a batch keeps its events until the SIEM answers, so those strings outlived young-generation
// collections and the garbage collector took 30 % of a bulk shipment (docs/performance.md,
// "Against peers"). Here a document is its inflated bytes plus the shifted text of its time values
// at their pass-1 positions: a driver copies the bytes into its request body and writes the new
// values over the old ones. Its event time is worked out only when a driver asks (bulk does not).
// It gives what shiftEcsRecord and shiftedEcsRecordTime give for the same text
// (ecs-byte-document.test.ts holds it to them).

import { writeAscii } from '../leef/leef-bytes.ts';
import type { OutboundEvent } from '../shipment/outbound-event.ts';
import { ecsTokenTime, shiftEcsToken } from './ecs-record.ts';
import { EcsTimeScratch, ecsTimeAfterShift, writeShiftedEcsTimeText } from './ecs-time.ts';
import type { TimeSpan } from './scan-ecs-json.ts';

/**
 * The shifted time values of a batch of documents, side by side as bytes, and where each goes:
 * one buffer and one index per batch instead of an array of strings and an array of offsets per
 * document. A batch is held until the SIEM has answered, so whatever a document keeps outlives
 * young-generation collections; copying those survivors was a quarter of pass 2's main thread
 * (docs/performance.md). The buffers only grow by replacement: a document keeps the ones it was
 * written into.
 */
export class EcsPatches {
  /** The values' ASCII bytes. */
  bytes: Buffer;
  /** Per value: where it goes (from, to: offsets in its document) and where its bytes are here. */
  index: Int32Array;
  bytesUsed = 0;
  indexUsed = 0;

  /** Room for about `documents` documents with three values each. */
  constructor(documents = 1) {
    this.bytes = Buffer.allocUnsafe(Math.max(64, documents * 96));
    this.index = new Int32Array(Math.max(12, documents * 12));
  }

  /** Makes room for `values` more values of at most `bytes` bytes in all. */
  reserve(values: number, bytes: number): void {
    if (this.bytesUsed + bytes > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(2 * this.bytes.length, bytes));
      this.bytes = grown;
      this.bytesUsed = 0;
    }
    if (this.indexUsed + 3 * values > this.index.length) {
      this.index = new Int32Array(Math.max(2 * this.index.length, 3 * values));
      this.indexUsed = 0;
    }
  }
}

/**
 * One ASCII document as shipped: `buf[start, end)` with `count` values replaced, as `patches`
 * records them from `at` on (from, to: offsets from `start`; then the value's offset in
 * `patches.bytes`, whose length is the next value's offset or `valuesEnd`). Holds the inflated
 * chunk and its batch's patches until the batch is answered.
 */
export class EcsByteDocument implements OutboundEvent {
  /** Bytes of the shipped document (`json` is as long: ASCII). */
  readonly jsonBytes: number;
  readonly #buf: Buffer;
  readonly #start: number;
  readonly #end: number;
  readonly #values: Buffer | null;
  readonly #index: Int32Array | null;
  readonly #at: number;
  readonly #count: number;
  readonly #valuesEnd: number;
  /** Every replacement as long as what it replaces: one copy, then the values written over. */
  readonly #inPlace: boolean;
  // For the event time, on demand: the last @timestamp's token (offsets from start) and the shift.
  readonly #timeStart: number;
  readonly #timeEnd: number;
  readonly #shiftMs: number;
  #time: number | null | undefined;

  constructor(
    buf: Buffer,
    start: number,
    end: number,
    patches: EcsPatches | null,
    at: number,
    count: number,
    valuesEnd: number,
    timeSpan: TimeSpan | null,
    shiftMs: number,
  ) {
    this.#buf = buf;
    this.#start = start;
    this.#end = end;
    this.#values = patches === null ? null : patches.bytes;
    this.#index = patches === null ? null : patches.index;
    this.#at = at;
    this.#count = count;
    this.#valuesEnd = valuesEnd;
    this.#timeStart = timeSpan === null ? -1 : timeSpan.start;
    this.#timeEnd = timeSpan === null ? -1 : timeSpan.end;
    this.#shiftMs = shiftMs;
    let bytes = end - start;
    let inPlace = true;
    const index = this.#index;
    if (index !== null)
      for (let k = 0; k < count; k++) {
        const i = at + 3 * k;
        const valueEnd = k + 1 < count ? index[i + 5]! : valuesEnd;
        const change = valueEnd - index[i + 2]! - (index[i + 1]! - index[i]!);
        bytes += change;
        if (change !== 0) inPlace = false;
      }
    this.jsonBytes = bytes;
    this.#inPlace = inPlace;
  }

  /** Event time after the shift (shiftedEcsRecordTime), or null without a readable `@timestamp`. */
  get time(): number | null {
    if (this.#time !== undefined) return this.#time;
    let time: number | null = null;
    if (this.#timeStart >= 0) {
      const scratch = new EcsTimeScratch();
      const token = latin1(this.#buf, this.#start + this.#timeStart, this.#start + this.#timeEnd);
      const before = ecsTokenTime(token, 0, token.length, scratch);
      time = before === null ? null : ecsTimeAfterShift(before, this.#shiftMs, scratch);
    }
    this.#time = time;
    return time;
  }

  /** The shipped document as text (for drivers that want a string). */
  get json(): string {
    const out = Buffer.allocUnsafe(this.jsonBytes);
    this.writeJson(out, 0);
    return latin1(out, 0, this.jsonBytes);
  }

  /** Writes the shipped document at `out[offset]` (room for jsonBytes); returns the offset after it. */
  writeJson(out: Buffer, offset: number): number {
    const buf = this.#buf;
    const base = this.#start;
    const values = this.#values;
    const index = this.#index;
    const count = this.#count;
    if (values === null || index === null) return offset + buf.copy(out, offset, base, this.#end);
    if (this.#inPlace) {
      const o = offset + buf.copy(out, offset, base, this.#end);
      for (let k = 0, i = this.#at; k < count; k++, i += 3) {
        const valueEnd = k + 1 < count ? index[i + 5]! : this.#valuesEnd;
        copyShort(values, index[i + 2]!, valueEnd, out, offset + index[i]!);
      }
      return o;
    }
    let o = offset;
    let from = base;
    for (let k = 0, i = this.#at; k < count; k++, i += 3) {
      o += buf.copy(out, o, from, base + index[i]!);
      const valueEnd = k + 1 < count ? index[i + 5]! : this.#valuesEnd;
      o = copyShort(values, index[i + 2]!, valueEnd, out, o);
      from = base + index[i + 1]!;
    }
    return o + buf.copy(out, o, from, this.#end);
  }
}

/** Copies `src[from, to)` (a time value: a few dozen bytes) to `out[at]`; returns the offset after. */
function copyShort(src: Buffer, from: number, to: number, out: Buffer, at: number): number {
  // A byte loop: for values this short, Buffer#copy's argument handling costs more than the copy.
  for (let k = from; k < to; k++) out[at++] = src[k]!;
  return at;
}

/**
 * The document of the ASCII line `buf[start, end)` with every readable time value at `spans` moved
 * by `shiftMs` in its own notation (as shiftEcsRecord moves them): nothing moves when the last
 * `@timestamp` is not a readable date. `scratch`: the pass's; `patches`: its batch's (one of its
 * own when not given).
 */
export function ecsByteDocument(
  buf: Buffer,
  start: number,
  end: number,
  spans: readonly TimeSpan[],
  shiftMs: number,
  scratch: EcsTimeScratch,
  patches: EcsPatches = new EcsPatches(),
): EcsByteDocument {
  if (spans.length === 0) return new EcsByteDocument(buf, start, end, null, 0, 0, 0, null, shiftMs);
  // One decoded slice from the first value to the end of the last (ASCII: Latin-1 is exact).
  const first = spans[0]!.start;
  const text = latin1(buf, start + first, start + spans[spans.length - 1]!.end);
  // A moved value is no longer than its token, or a number's text (at most 25 characters).
  patches.reserve(spans.length, text.length + 32 * spans.length);
  const values = patches.bytes;
  const index = patches.index;
  const at = patches.indexUsed;
  const valuesStart = patches.bytesUsed;
  let i = at;
  let v = valuesStart;
  let timeSpan: TimeSpan | null = null;
  let hasTime = false;
  for (let k = 0; k < spans.length; k++) {
    const span = spans[k]!;
    const a = span.start - first;
    const b = span.end - first;
    const quoted = text.charCodeAt(a) === 0x22;
    // A string value is rewritten between its quotes, straight into the patches.
    let written = quoted ? writeShiftedEcsTimeText(text, a + 1, b - 1, shiftMs, scratch, values, v) : -1;
    if (written >= 0) {
      index[i] = span.start + 1;
      index[i + 1] = span.end - 1;
      index[i + 2] = v;
      i += 3;
      v = written;
    } else if (!quoted || hasBackslash(text, a + 1, b - 1)) {
      // Numbers, and a string spelled with escapes (which shiftEcsToken decodes first).
      const shifted = shiftEcsToken(text, a, b, shiftMs, scratch);
      if (shifted !== null) {
        index[i] = span.start;
        index[i + 1] = span.end;
        index[i + 2] = v;
        i += 3;
        v = writeAscii(values, v, shifted);
        written = v;
      }
    }
    if (span.field === '@timestamp') {
      timeSpan = span;
      hasTime = written >= 0;
    }
  }
  if (!hasTime || i === at) return new EcsByteDocument(buf, start, end, null, 0, 0, 0, timeSpan, shiftMs);
  patches.indexUsed = i;
  patches.bytesUsed = v;
  return new EcsByteDocument(buf, start, end, patches, at, (i - at) / 3, v, timeSpan, shiftMs);
}

/** Whether `text[from, to)` holds a backslash. */
function hasBackslash(text: string, from: number, to: number): boolean {
  const at = text.indexOf('\\', from);
  return at >= 0 && at < to;
}

/** Node's Latin-1 decoder behind `buffer.toString('latin1', …)`, without its argument handling. */
interface Latin1Reader extends Buffer {
  latin1Slice(start: number, end: number): string;
}

function latin1(buf: Buffer, start: number, end: number): string {
  return (buf as Latin1Reader).latin1Slice(start, end);
}
