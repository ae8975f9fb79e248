import { AppError } from '../../errors.ts';
import { quoteName } from '../archive/entry-path.ts';
import type { EcsDocument } from './ecs-fields.ts';
import {
  EcsTimeScratch,
  ecsTimeAfterShift,
  readEcsTimeText,
  readEcsTimeValue,
  shiftEcsTimeText,
  shiftEcsTimeValue,
} from './ecs-time.ts';
import type { TimeSpan } from './scan-ecs-json.ts';

/** One ECS document as read from an entry: one-line JSON text plus where its time values are. */
export interface EcsRecord {
  /** Entry path, for messages. */
  readonly entry: string;
  /** 1-based line of the entry where the document starts; 0 where no message needs it (NDJSON in a first pass). */
  readonly line: number;
  /** The document as one line of JSON, ready for NDJSON (`.json` input is compacted). */
  readonly text: string;
  /** Time field value tokens in `text`, in document order. */
  readonly times: readonly TimeSpan[];
}

/**
 * Event time of a record (`@timestamp`; the last one if repeated, as JSON.parse would), or null.
 * `scratch`: the shipment pass's (see EcsTimeScratch).
 */
export function ecsRecordTime(
  record: EcsRecord,
  scratch: EcsTimeScratch = new EcsTimeScratch(),
): number | null {
  const { times, text } = record;
  for (let k = times.length - 1; k >= 0; k--) {
    const span = times[k]!;
    if (span.field === '@timestamp') return ecsTokenTime(text, span.start, span.end, scratch);
  }
  return null;
}

/**
 * Epoch ms of the time value token `text[start, end)` (a JSON string with its quotes, or a number),
 * or null when it is not a readable date; `scratch` receives what was read (see ecsTimeAfterShift).
 */
export function ecsTokenTime(
  text: string,
  start: number,
  end: number,
  scratch: EcsTimeScratch,
): number | null {
  // Fast path straight from the text; a value spelled with escapes (never in practice) is decoded.
  if (text.charCodeAt(start) === 0x22) {
    const read = readEcsTimeText(text, start + 1, end - 1, scratch);
    return read !== null || !hasEscape(text, start, end)
      ? read
      : readEcsTimeValue(tokenValue(text, start, end), scratch);
  }
  return readEcsTimeValue(Number(text.slice(start, end)), scratch);
}

/**
 * The event time of the record after shiftEcsRecord(record, shiftMs): the instant its written
 * `@timestamp` denotes (moved by whole units of its notation, or unmoved when the moved value
 * could not be written; see ecsTimeAfterShift); null without a readable `@timestamp`.
 */
export function shiftedEcsRecordTime(
  record: EcsRecord,
  shiftMs: number,
  scratch: EcsTimeScratch = new EcsTimeScratch(),
): number | null {
  const before = ecsRecordTime(record, scratch);
  return before === null ? null : ecsTimeAfterShift(before, shiftMs, scratch);
}

/**
 * The record's text with every readable time field moved by `shiftMs`, each in its own notation
 * (see shiftEcsTimeValue); the text itself when the record has no readable event time. Only the
 * value tokens change: everything else reaches the SIEM byte for byte.
 */
export function shiftEcsRecord(
  record: EcsRecord,
  shiftMs: number,
  scratch: EcsTimeScratch = new EcsTimeScratch(),
): string {
  const { times, text } = record;
  let out = '';
  let from = 0;
  // The last @timestamp decides whether the event has a time (as JSON.parse would keep the last).
  let hasTime = false;
  for (let k = 0; k < times.length; k++) {
    const span = times[k]!;
    const replacement = shiftEcsToken(text, span.start, span.end, shiftMs, scratch);
    if (span.field === '@timestamp') hasTime = replacement !== null;
    if (replacement === null) continue;
    out += text.slice(from, span.start) + replacement;
    from = span.end;
  }
  return !hasTime || from === 0 ? text : out + text.slice(from);
}

/**
 * The time value token `text[start, end)` moved by `shiftMs` in its own notation (with quotes for
 * a string), or null when it is not a readable date.
 */
export function shiftEcsToken(
  text: string,
  start: number,
  end: number,
  shiftMs: number,
  scratch: EcsTimeScratch,
): string | null {
  if (text.charCodeAt(start) !== 0x22) {
    const shifted = shiftEcsTimeValue(Number(text.slice(start, end)), shiftMs, scratch);
    return shifted === null ? null : String(shifted);
  }
  const shifted = shiftEcsTimeText(text, start + 1, end - 1, shiftMs, scratch);
  if (shifted !== null) return `"${shifted}"`;
  // A value spelled with escapes (never seen in practice) is decoded first.
  const decoded = hasEscape(text, start, end)
    ? shiftEcsTimeValue(tokenValue(text, start, end), shiftMs, scratch)
    : null;
  return decoded === null ? null : `"${decoded}"`;
}

/** The record as an object (for conversion to LEEF); its text was validated, so this does not throw. */
export function parseEcsRecord(record: EcsRecord): EcsDocument {
  return JSON.parse(record.text) as EcsDocument;
}

/** `archive_invalid` for a document that is not a JSON object, naming entry and line. */
export function invalidDocument(entry: string, line: number, why: string): AppError {
  return new AppError(
    'archive_invalid',
    `line ${line} of archive entry ${quoteName(entry)} is not a JSON object: ${why}`,
    {
      details: { entry, line },
    },
  );
}

function tokenValue(text: string, start: number, end: number): string {
  return JSON.parse(text.slice(start, end)) as string;
}

function hasEscape(text: string, start: number, end: number): boolean {
  for (let k = start + 1; k < end - 1; k++) if (text.charCodeAt(k) === 0x5c) return true;
  return false;
}
