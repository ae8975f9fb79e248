import type { LeefLines } from '../leef/leef-line-batch.ts';

/**
 * One event on its way to a SIEM, after rebasing. LEEF drivers read `line` (a LEEF line, possibly
 * with the syslog header it came with); ECS drivers read `json` (the document as one line of JSON
 * text, as read and rebased from an archive) or else `doc`. `time` is the rebased event time in
 * epoch ms, or null when the event had no readable time.
 */
export interface OutboundEvent {
  readonly line?: string;
  readonly json?: string;
  readonly doc?: Readonly<Record<string, unknown>>;
  readonly time: number | null;
}

/**
 * A batch as drivers receive it. Batches of a LEEF shipment (shipmentEvents) also carry
 * `leefLines`, the same events as bytes: a driver that writes bytes (syslog_tcp) may claim them
 * (LeefLines.claim) and then receives the later batches of that pass without event objects, only
 * their count. Other drivers ignore the property. Optional and additive: any readonly
 * OutboundEvent[] is a batch.
 */
export type OutboundBatch = readonly OutboundEvent[] & { readonly leefLines?: LeefLines };
