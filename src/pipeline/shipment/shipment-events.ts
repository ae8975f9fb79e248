import { splitByteLines } from '../archive/byte-lines.ts';
import { leefToEcs } from '../convert/leef-to-ecs.ts';
import { shiftedEcsEvents } from '../ecs/read-ecs-records.ts';
import { LeefByteEventWriter } from '../leef/leef-byte-events.ts';
import { type LeefLines, type RebasedLine, rebasedLine } from '../leef/leef-line-batch.ts';
import { LeefLineReader } from '../leef/leef-line-reader.ts';
import type { RebaseContext } from '../leef/leef-rebase.ts';
import { parseLeef } from '../leef/parse-leef.ts';
import { isoUtc } from '../time/iso-utc.ts';
import type { OutboundEvent } from './outbound-event.ts';
import { lineIndexKey, type PreparedShipment } from './prepare-shipment.ts';
import { ShipmentScratch } from './shipment-scratch.ts';

/** Documents per batch when LEEF lines are converted to ECS (see shipmentEvents). */
const ECS_BATCH = 1000;

/** What a driver receives from a shipment. */
export type ShipmentOutput =
  /** LEEF lines (HEC with LEEF, syslog_tcp); `labIndex` adds or replaces that attribute on every line. */
  | { kind: 'leef'; labIndex?: string | null }
  /** ECS documents (bulk, HEC with ECS); LEEF input is converted, carrying `labIndex` as labels.labIndex. */
  | { kind: 'ecs'; labIndex?: string | null };

/**
 * Pass 2 over one source of a prepared shipment: rebased events in batches, in entry and line
 * order. Nothing is read ahead: the client pulls the next batch when it is ready for it. Several
 * consumers may run pass 2 of one shipment at once (a noise run with several targets), each with
 * its own reader and `scratch` (the pass's memos: a new ShipmentScratch when not given; never one
 * another pass uses). Clients that take syslog frames get them from shipmentFrames instead.
 */
export async function* shipmentEvents(
  shipment: PreparedShipment,
  sourceIndex: number,
  output: ShipmentOutput,
  scratch: ShipmentScratch = new ShipmentScratch(),
): AsyncGenerator<OutboundEvent[]> {
  const archive = shipment.archives[sourceIndex];
  if (!archive) throw new Error(`no source ${sourceIndex} in this shipment`);
  const shift = shipment.shiftMs;
  const labIndex = output.labIndex ?? null;

  if (shipment.format === 'leef') {
    const reader = new LeefLineReader(scratch);
    if (output.kind === 'leef') {
      const writer = new LeefByteEventWriter(reader);
      for await (const lines of leefLineBatches(shipment, sourceIndex, labIndex)) {
        yield writer.batch(lines);
      }
      return;
    }
    // ECS: the label goes into labels.labIndex, not into the line.
    for await (const lines of leefLineBatches(shipment, sourceIndex, null)) {
      // Documents are made ECS_BATCH at a time, just before the client takes them: a whole chunk
      // of lines at once would keep thousands of documents alive long enough to reach V8's old
      // generation, which grows the process by hundreds of MiB on a large archive.
      const rebased: RebasedLine = { line: '', time: null };
      let out: OutboundEvent[] = [];
      for (const segment of lines.segments) {
        const index = lines.indexes === null ? null : lines.indexes.find(segment, lines.entry);
        for (let j = 0; j < segment.starts.length; j++) {
          const { line, time } = rebasedLine(lines, reader, segment, j, rebased, index);
          out.push({ doc: leefLineToEcs(line, time, labIndex, scratch), time });
          if (out.length === ECS_BATCH) {
            yield out;
            out = [];
          }
        }
      }
      if (out.length > 0) yield out;
    }
    return;
  }

  const reader = shipment.ecsReaders[sourceIndex];
  if (!reader) throw new Error(`no ECS reader for source ${sourceIndex}`);
  if (output.kind === 'leef') {
    throw new Error('ECS archives are shipped to ECS destinations only');
  }
  for await (const entry of archive.entries()) {
    yield* shiftedEcsEvents(reader, entry, shift, scratch.ecsTimes);
  }
}

/**
 * Pass 2's LEEF lines of one source, a chunk at a time as bytes (LeefLines), in entry and line
 * order, with the shipment's shift and pass 1's findings; `labIndex` is set on every line.
 */
export async function* leefLineBatches(
  shipment: PreparedShipment,
  sourceIndex: number,
  labIndex: string | null,
): AsyncGenerator<LeefLines> {
  const archive = shipment.archives[sourceIndex];
  if (!archive) throw new Error(`no source ${sourceIndex} in this shipment`);
  if (shipment.format !== 'leef') throw new Error('not a LEEF shipment');
  const ctx = shipment.leef as RebaseContext;
  for await (const entry of archive.entries()) {
    const key = lineIndexKey(sourceIndex, entry.path);
    const splits = shipment.splits.entry(key);
    for await (const batch of splitByteLines(entry.bytes(), entry.path, entry.maxLineLength, splits)) {
      yield {
        segments: batch.segments,
        count: batch.count,
        shiftMs: shipment.shiftMs,
        ctx,
        labIndex,
        indexes: shipment.lineIndexes,
        entry: key,
      };
    }
  }
}

/** A rebased LEEF line as an ECS document (noise to bulk targets); a non-LEEF line is kept as message. */
function leefLineToEcs(
  line: string,
  time: number | null,
  labIndex: string | null,
  scratch: ShipmentScratch,
): Record<string, unknown> {
  const parsed = parseLeef(line);
  if (parsed === null) {
    const doc: Record<string, unknown> = { message: line, event: { original: line } };
    if (time !== null) doc['@timestamp'] = isoUtc(time, scratch.isoUtc);
    if (labIndex !== null) doc.labels = { labIndex };
    return doc;
  }
  // One literal (a spread of a conditional object cost ≈ 0.3 µs per event).
  return leefToEcs(parsed, {
    eventTimeMs: time,
    rawLine: line,
    index: labIndex ?? undefined,
    prefix: parsed.prefix,
    scratch,
  });
}
