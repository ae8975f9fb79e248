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
import { EcsTimeScratch, ecsTimeAfterShift, shiftEcsTimeText } from './ecs-time.ts';
import type { TimeSpan } from './scan-ecs-json.ts';

/**
 * One ASCII document as shipped: `buf[start, end)` with the values at `at` (pairs of offsets from
 * `start`) replaced by `texts`. Holds the inflated chunk until the batch is answered.
 */
export class EcsByteDocument implements OutboundEvent {
  /** Bytes of the shipped document (`json` is as long: ASCII). */
  readonly jsonBytes: number;
  readonly #buf: Buffer;
  readonly #start: number;
  readonly #end: number;
  readonly #at: readonly number[] | null;
  readonly #texts: readonly string[] | null;
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
    at: readonly number[] | null,
    texts: readonly string[] | null,
    timeSpan: TimeSpan | null,
    shiftMs: number,
  ) {
    this.#buf = buf;
    this.#start = start;
    this.#end = end;
    this.#at = at;
    this.#texts = texts;
    this.#timeStart = timeSpan === null ? -1 : timeSpan.start;
    this.#timeEnd = timeSpan === null ? -1 : timeSpan.end;
    this.#shiftMs = shiftMs;
    let bytes = end - start;
    let inPlace = true;
    if (at !== null && texts !== null)
      for (let k = 0; k < texts.length; k++) {
        const change = texts[k]!.length - (at[2 * k + 1]! - at[2 * k]!);
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
    const at = this.#at;
    const texts = this.#texts;
    if (at === null || texts === null) return offset + buf.copy(out, offset, base, this.#end);
    if (this.#inPlace) {
      const o = offset + buf.copy(out, offset, base, this.#end);
      for (let k = 0; k < texts.length; k++) writeAscii(out, offset + at[2 * k]!, texts[k]!);
      return o;
    }
    let o = offset;
    let from = base;
    for (let k = 0; k < texts.length; k++) {
      o += buf.copy(out, o, from, base + at[2 * k]!);
      o = writeAscii(out, o, texts[k]!);
      from = base + at[2 * k + 1]!;
    }
    return o + buf.copy(out, o, from, this.#end);
  }
}

/**
 * The document of the ASCII line `buf[start, end)` with every readable time value at `spans` moved
 * by `shiftMs` in its own notation (as shiftEcsRecord moves them): nothing moves when the last
 * `@timestamp` is not a readable date. `scratch`: the pass's.
 */
export function ecsByteDocument(
  buf: Buffer,
  start: number,
  end: number,
  spans: readonly TimeSpan[],
  shiftMs: number,
  scratch: EcsTimeScratch,
): EcsByteDocument {
  if (spans.length === 0) return new EcsByteDocument(buf, start, end, null, null, null, shiftMs);
  // One decoded slice from the first value to the end of the last (ASCII: Latin-1 is exact).
  const first = spans[0]!.start;
  const text = latin1(buf, start + first, start + spans[spans.length - 1]!.end);
  let at: number[] | null = null;
  let texts: string[] | null = null;
  let timeSpan: TimeSpan | null = null;
  let hasTime = false;
  for (let k = 0; k < spans.length; k++) {
    const span = spans[k]!;
    const a = span.start - first;
    const b = span.end - first;
    // A string value is rewritten between its quotes, so no quoted copy is built.
    let from = span.start;
    let to = span.end;
    let shifted: string | null = null;
    if (text.charCodeAt(a) === 0x22) {
      shifted = shiftEcsTimeText(text, a + 1, b - 1, shiftMs, scratch);
      if (shifted !== null) {
        from++;
        to--;
      }
    }
    // Numbers, and a string spelled with escapes (which shiftEcsToken decodes first).
    if (shifted === null && (text.charCodeAt(a) !== 0x22 || hasBackslash(text, a + 1, b - 1)))
      shifted = shiftEcsToken(text, a, b, shiftMs, scratch);
    if (span.field === '@timestamp') {
      timeSpan = span;
      hasTime = shifted !== null;
    }
    if (shifted === null) continue;
    at ??= [];
    texts ??= [];
    at.push(from, to);
    texts.push(shifted);
  }
  return hasTime
    ? new EcsByteDocument(buf, start, end, at, texts, timeSpan, shiftMs)
    : new EcsByteDocument(buf, start, end, null, null, timeSpan, shiftMs);
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
