import { EcsTimeScratch } from '../ecs/ecs-time.ts';
import { type EventTimeSpans, newEventTimeSpans } from '../leef/event-time-reader.ts';
import { LeefByteScratch } from '../leef/leef-bytes.ts';
import { type LeefLayout, newLeefLayout } from '../leef/leef-layout.ts';
import { newSyslogHeader, type SyslogHeader } from '../syslog/detect-syslog-header.ts';
import { DevTimeFormats } from '../time/devtime.ts';
import { IsoUtcMemo } from '../time/iso-utc.ts';

/**
 * The memos and scratch records of one pass over a shipment: what the hot path keeps from one line
 * to the next (compiled patterns, the last day or minute written, DataViews over the current
 * buffers) and the records it fills instead of allocating. prepareShipment makes one for pass 1 and
 * every shipmentEvents pass its own (several targets may run pass 2 of one shipment at once), so
 * two shipments, or two passes, never share a memo. Not reentrant: one pass at a time.
 */
export class ShipmentScratch {
  // Event times.
  /** devTimeFormat patterns compiled, each with its memo of the last value read and written. */
  readonly devTimes = new DevTimeFormats();
  /** ECS date values: the last day read and written, and what the last read found. */
  readonly ecsTimes = new EcsTimeScratch();
  /** The minute isoUtc last wrote (`@timestamp` of LEEF events converted to ECS). */
  readonly isoUtc = new IsoUtcMemo();

  // LEEF lines as bytes (LeefLineReader, LeefFrameWriter).
  /** DataViews over the buffers last scanned and written, and the last delimiter field read. */
  readonly leefBytes = new LeefByteScratch();

  // LEEF lines as strings (lines that are not ASCII; leef-rebase.ts, event-time-reader.ts).
  /** Layout of the line being read. */
  readonly layout: LeefLayout = newLeefLayout();
  /** Syslog header detection of the line being read. */
  readonly header: SyslogHeader = newSyslogHeader();
  /** Where the last reads found devTime and the header timestamp, and whether the year was inferred. */
  readonly spans: EventTimeSpans = newEventTimeSpans();

  // LEEF events converted to ECS (leefToEcs).
  /** Syslog header detection of the text before `LEEF:`, for `log.syslog`. */
  readonly ecsHeader: SyslogHeader = newSyslogHeader();
}
