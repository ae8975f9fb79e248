import { randomBytes } from 'node:crypto';
import type { OutboundEvent } from '../../pipeline/shipment/outbound-event.ts';
import type { EncodedEvent } from '../shared/deliver.ts';
import type { EncodeEvent } from '../shared/ship-loop.ts';

/**
 * A prefix for the `_id`s of one shipment: 72 random bits, so shipments never collide while every
 * retry inside one reuses the same ids.
 */
export function newIdPrefix(): string {
  return `${randomBytes(9).toString('base64url')}-`;
}

/**
 * Builds the `_bulk` NDJSON encoder of a shipment: for each ECS document a `create` action line and
 * the document as `_source`, both ending in `\n` (so a body of whole items always ends with the
 * newline the API requires). `create` works for plain indexes and data streams alike.
 *
 * The `_id` is the shipment's prefix plus the event's position, deterministic within the shipment:
 * a batch re-sent after a lost answer meets 409 instead of indexing twice (reliability-notes 1.3),
 * and two identical documents of one archive stay two documents (a hash of the content would merge
 * them and break the count). A new shipment of the same archive gets new ids: that is a new run.
 */
export function createBulkEncoder(index: string, idPrefix: string): EncodeEvent {
  const head = `{"create":{"_index":${JSON.stringify(index)},"_id":"${idPrefix}`;
  const action = new BulkAction(head);
  return (event, seq) => {
    // Archive documents held as bytes are copied into the body as they are (see BulkItem).
    if (event.writeJson !== undefined && event.jsonBytes !== undefined)
      return new BulkItem(action, seq, event);
    // Rebased archive documents arrive as JSON text (one line, validated when read); others as objects.
    const source =
      typeof event.json === 'string'
        ? event.json
        : typeof event.doc === 'object' && event.doc !== null
          ? JSON.stringify(event.doc)
          : undefined;
    if (source === undefined) return { error: 'event has no ECS document' };
    const text = `${head}${seq.toString(36)}"}}\n${source}\n`;
    return { text, size: text.length };
  };
}

/** The action line of a shipment's items, but for each item's `_id` suffix (its position in base 36). */
class BulkAction {
  readonly head: string;
  readonly #bytes: Buffer;

  constructor(head: string) {
    this.head = head;
    this.#bytes = Buffer.from(head);
  }

  /** Characters of the line for `seq` (UTF-16 units, as EncodedEvent counts). */
  size(seq: number): number {
    return this.head.length + base36Digits(seq) + 4;
  }

  /** Writes the line for `seq` at `out[offset]`; returns the offset after it. */
  write(out: Buffer, offset: number, seq: number): number {
    let o = offset + this.#bytes.copy(out, offset);
    const digits = base36Digits(seq);
    for (let k = digits - 1, n = seq; k >= 0; k--, n = Math.floor(n / 36)) out[o + k] = BASE36[n % 36]!;
    o += digits;
    out[o] = 0x22; // "}}\n
    out[o + 1] = 0x7d;
    out[o + 2] = 0x7d;
    out[o + 3] = 0x0a;
    return o + 4;
  }
}

const BASE36 = Buffer.from('0123456789abcdefghijklmnopqrstuvwxyz');

function base36Digits(n: number): number {
  let digits = 1;
  for (let v = n; v >= 36; v = Math.floor(v / 36)) digits++;
  return digits;
}

/**
 * The item of a document held as bytes: its action line, then the document written by the event
 * itself and a newline, so neither becomes a string (ecs-byte-document.ts says why: a batch is held
 * until the SIEM answers). `size` counts the document in bytes (it is ASCII) and the action line in
 * UTF-16 units, as EncodedEvent asks.
 */
class BulkItem implements EncodedEvent {
  readonly #action: BulkAction;
  readonly #seq: number;
  readonly #event: OutboundEvent;
  readonly size: number;

  constructor(action: BulkAction, seq: number, event: OutboundEvent) {
    this.#action = action;
    this.#seq = seq;
    this.#event = event;
    this.size = action.size(seq) + (event.jsonBytes as number) + 1;
  }

  get text(): string {
    return `${this.#action.head}${this.#seq.toString(36)}"}}\n${this.#event.json}\n`;
  }

  writeTo(out: Buffer, offset: number): number {
    let o = this.#action.write(out, offset, this.#seq);
    o = (this.#event.writeJson as (out: Buffer, offset: number) => number)(out, o);
    out[o] = 0x0a;
    return o + 1;
  }
}
