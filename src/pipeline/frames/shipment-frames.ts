import { LeefLineReader } from '../leef/leef-line-reader.ts';
import type { OutboundEvent } from '../shipment/outbound-event.ts';
import type { PreparedShipment } from '../shipment/prepare-shipment.ts';
import { leefLineBatches } from '../shipment/shipment-events.ts';
import { ShipmentScratch } from '../shipment/shipment-scratch.ts';
import type { FrameFormat, FramePiece } from './frame-format.ts';
import { FrameWriter } from './frame-writer.ts';

/**
 * Pass 2 over one source of a prepared LEEF shipment, as syslog frames: rebased lines, labelled
 * with `labIndex` when given, framed per `format`, gathered in chunks, and the refusals (a header
 * to synthesize without a source identity, a message too long). Nothing is read ahead: the client
 * pulls the next piece when it has written the last; a chunk goes out at the end of every input
 * chunk so a slow source never holds events back. Its own reader and scratch unless given one;
 * `now` (the shipment's clock unless given) is the header time of lines without a readable time.
 */
export async function* shipmentFrames(
  shipment: PreparedShipment,
  sourceIndex: number,
  format: FrameFormat,
  options: { labIndex?: string | null; scratch?: ShipmentScratch; now?: number } = {},
): AsyncGenerator<FramePiece> {
  const writer = new FrameWriter(
    format,
    new LeefLineReader(options.scratch ?? new ShipmentScratch()),
    options.now ?? shipment.now,
  );
  for await (const lines of leefLineBatches(shipment, sourceIndex, options.labIndex ?? null)) {
    writer.beginLines(lines);
    while (writer.fill()) yield* writer.drain();
    yield* writer.drain();
  }
}

/**
 * Events as syslog frames (each event's `line` through the header mode and framing), for events
 * that come as objects rather than from a prepared shipment. `now`: the header time of events
 * without a readable time.
 */
export async function* eventFrames(
  batches: AsyncIterable<readonly OutboundEvent[]>,
  format: FrameFormat,
  now: number,
): AsyncGenerator<FramePiece> {
  const writer = new FrameWriter(format, new LeefLineReader(new ShipmentScratch()), now);
  for await (const events of batches) {
    writer.beginEvents(events);
    while (writer.fill()) yield* writer.drain();
    yield* writer.drain();
  }
}
