import { ECS_TIME_FIELDS } from './ecs-fields.ts';
import type { TimeSpan } from './scan-ecs-json.ts';

/** Int32 slots all memos of one reader may use together (4 bytes each; 8 Mi slots = 32 MiB). */
export const DEFAULT_SPAN_MEMO_SLOTS = 8 * 1024 * 1024;

/** A shared slot budget, so one archive's memos stay bounded however many events it holds. */
export interface SpanBudget {
  slots: number;
}

/**
 * The time spans of an entry's documents in order, packed into an Int32Array: per document a
 * count, then `field << 28 | start` and `end` per span. Written during the first pass of a rebase
 * and read back in the second, over the same bytes, so locating is done once. Documents beyond the
 * budget are simply not remembered (the second pass locates those again).
 */
export class SpanMemo {
  readonly #budget: SpanBudget;
  #data = new Int32Array(1024);
  #length = 0;
  #documents = 0;
  #full = false;
  #cursor = 0;
  #read = 0;

  constructor(budget: SpanBudget) {
    this.#budget = budget;
  }

  /** Documents remembered, from the first; the rest must be located again. */
  get documents(): number {
    return this.#documents;
  }

  /** Remembers the spans of the next document (no-op once the budget is spent). */
  add(spans: readonly TimeSpan[]): void {
    if (this.#full) return;
    const need = 1 + 2 * spans.length;
    for (const span of spans) {
      if (span.start >= MAX_START || span.end >= 2 ** 31) this.#full = true;
    }
    if (this.#full || need > this.#budget.slots) {
      this.#full = true;
      return;
    }
    if (this.#length + need > this.#data.length) {
      const grown = new Int32Array(Math.max(this.#data.length * 2, this.#length + need));
      grown.set(this.#data.subarray(0, this.#length));
      this.#data = grown;
    }
    const data = this.#data;
    let at = this.#length;
    data[at++] = spans.length;
    for (const span of spans) {
      data[at++] = (FIELD_CODE.get(span.field)! << 28) | span.start;
      data[at++] = span.end;
    }
    this.#length = at;
    this.#budget.slots -= need;
    this.#documents++;
  }

  /**
   * Remembers the next document from its packed spans at `packed[at]` (as packSpans wrote them;
   * not UNCERTAIN_DOCUMENT); returns the offset after them. Same budget as add.
   */
  addPacked(packed: Int32Array, at: number): number {
    const count = packed[at]!;
    const need = 1 + 2 * count;
    if (this.#full) return at + need;
    if (need > this.#budget.slots) {
      this.#full = true;
      return at + need;
    }
    if (this.#length + need > this.#data.length) {
      const grown = new Int32Array(Math.max(this.#data.length * 2, this.#length + need));
      grown.set(this.#data.subarray(0, this.#length));
      this.#data = grown;
    }
    // A loop: for a handful of slots, subarray() and set() cost more than the copy.
    const data = this.#data;
    let o = this.#length;
    for (let k = at; k < at + need; k++) data[o++] = packed[k]!;
    this.#length = o;
    this.#budget.slots -= need;
    this.#documents++;
    return at + need;
  }

  /** The spans of the next remembered document, in the order they were added. */
  next(): TimeSpan[] {
    if (this.#read >= this.#documents) throw new Error('no more remembered documents');
    const data = this.#data;
    let at = this.#cursor;
    const count = data[at++]!;
    const spans = new Array<TimeSpan>(count);
    for (let k = 0; k < count; k++) {
      const packed = data[at++]!;
      spans[k] = {
        field: ECS_TIME_FIELDS[packed >>> 28]!,
        start: packed & (MAX_START - 1),
        end: data[at++]!,
      };
    }
    this.#cursor = at;
    this.#read++;
    return spans;
  }

  /** Starts reading from the first document again. */
  rewind(): void {
    this.#cursor = 0;
    this.#read = 0;
  }
}

const MAX_START = 2 ** 28;
const FIELD_CODE = new Map(ECS_TIME_FIELDS.map((field, code) => [field, code]));

/** In packed spans, a document the byte scanner left to the text scanner (in place of its count). */
export const UNCERTAIN_DOCUMENT = -1;

/**
 * Writes one document's spans at `out[at]` the way SpanMemo stores them (count, then
 * `field << 28 | start` and `end` per span; `out` has room); returns the offset after them, or -1
 * when a span lies beyond what the packing holds (the document is then scanned as text and added).
 */
export function packSpans(spans: readonly TimeSpan[], out: Int32Array, at: number): number {
  let o = at;
  out[o++] = spans.length;
  for (let k = 0; k < spans.length; k++) {
    const span = spans[k]!;
    if (span.start >= MAX_START || span.end >= 2 ** 31) return -1;
    out[o++] = (FIELD_CODE.get(span.field)! << 28) | span.start;
    out[o++] = span.end;
  }
  return o;
}
