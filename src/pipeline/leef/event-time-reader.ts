// The two time readers behind rebasing, used by leef-rebase.ts: devTime
// (located through a LEEF layout) and the syslog header timestamp. They fill caller-owned
// records instead of allocating, and report where the value they read sits in the pass's
// EventTimeSpans (ShipmentScratch.spans).

import { detectSyslogHeaderInto, type SyslogHeader } from '../syslog/detect-syslog-header.ts';
import { type DevTimeFormats, readDevTime } from '../time/devtime.ts';
import { epochMsAt, epochParsed } from '../time/epoch-time.ts';
import { readIso } from '../time/iso-time.ts';
import type { ParsedTime } from '../time/parsed-time.ts';
import { readRfc3164Time } from '../time/rfc3164-time.ts';
import { findValue, type LeefLayout, valueEnd } from './leef-layout.ts';

/** Where the last successful reads found their values, and what they learned (synchronous callers read it right away). */
export interface EventTimeSpans {
  /** The devTime value's span in the line. */
  devStart: number;
  devEnd: number;
  /** The header timestamp's span in the line. */
  tsStart: number;
  tsEnd: number;
  /** Whether the value readDevTimeMsAt read last had its year inferred. */
  yearless: boolean;
}

/** A spans record to fill (one per shipment pass). */
export function newEventTimeSpans(): EventTimeSpans {
  return { devStart: 0, devEnd: 0, tsStart: 0, tsEnd: 0, yearless: false };
}

/** What the readers here use of a shipment pass's scratch (a ShipmentScratch is one). */
export interface EventTimeScratch {
  /** The pass's compiled devTime patterns. */
  readonly devTimes: DevTimeFormats;
  /** Header detection of the line being read. */
  readonly header: SyslogHeader;
  /** Where the last reads found their values. */
  readonly spans: EventTimeSpans;
}

/** devTime of a LEEF line (with devTimeFormat when present), or null when absent or unreadable. */
export function readDevTimeAt(
  line: string,
  layout: LeefLayout,
  referenceMs: number,
  scratch: EventTimeScratch,
): ParsedTime | null {
  const vs = findValue(line, layout, 'devTime=');
  if (vs < 0) return null;
  const ve = valueEnd(line, vs, layout.end, layout.delimiter);
  return readDevTimeSpan(
    line,
    layout,
    vs,
    ve,
    findValue(line, layout, 'devTimeFormat='),
    referenceMs,
    scratch,
  );
}

/**
 * The devTime value at `line[vs, ve)`, with the devTimeFormat value starting at `fs` (-1 when
 * absent). Sets scratch.spans' devStart and devEnd.
 */
export function readDevTimeSpan(
  line: string,
  layout: LeefLayout,
  vs: number,
  ve: number,
  fs: number,
  referenceMs: number,
  scratch: EventTimeScratch,
): ParsedTime | null {
  scratch.spans.devStart = vs;
  scratch.spans.devEnd = ve;
  if (fs < 0) {
    // The most common form, epoch digits, needs no substring.
    const epoch = epochMsAt(line, vs, ve);
    if (epoch >= 0) return epochParsed(epoch, ve - vs);
    return readDevTime(line.slice(vs, ve), null, referenceMs, scratch.devTimes);
  }
  const fe = valueEnd(line, fs, layout.end, layout.delimiter);
  return readDevTime(line.slice(vs, ve), line.slice(fs, fe), referenceMs, scratch.devTimes);
}

/**
 * readDevTimeAt as a number (NaN when absent or unreadable) with no allocation for epoch values,
 * the common case; scratch.spans.yearless tells whether the year was inferred.
 */
export function readDevTimeMsAt(
  line: string,
  layout: LeefLayout,
  referenceMs: number,
  scratch: EventTimeScratch,
): number {
  const vs = findValue(line, layout, 'devTime=');
  if (vs < 0) return Number.NaN;
  const ve = valueEnd(line, vs, layout.end, layout.delimiter);
  const fs = findValue(line, layout, 'devTimeFormat=');
  if (fs < 0) {
    const epoch = epochMsAt(line, vs, ve);
    if (epoch >= 0) {
      scratch.spans.yearless = false;
      return epoch;
    }
  }
  const parsed = readDevTimeSpan(line, layout, vs, ve, fs, referenceMs, scratch);
  if (parsed === null) return Number.NaN;
  scratch.spans.yearless = parsed.yearless;
  return parsed.ms;
}

/**
 * Timestamp of an RFC 5424 / RFC 3164 header that ends before `limit` (the `LEEF:` offset, or the
 * line length), or null. scratch.header receives the detection, scratch.spans the timestamp's
 * span; `nearest` as in readRfc3164Time.
 */
export function readHeaderTimeAt(
  line: string,
  limit: number,
  referenceMs: number,
  nearest: boolean,
  scratch: EventTimeScratch,
): ParsedTime | null {
  if (limit === 0 || !mayStartHeader(line)) return null;
  const header = detectSyslogHeaderInto(line, scratch.header);
  if (header.timestampStart < 0 || header.timestampEnd > limit) return null;
  const text = line.slice(header.timestampStart, header.timestampEnd);
  const parsed = header.kind === 'rfc5424' ? readIso(text) : readRfc3164Time(text, referenceMs, nearest);
  if (parsed === null) return null;
  scratch.spans.tsStart = header.timestampStart;
  scratch.spans.tsEnd = header.timestampEnd;
  return parsed;
}

/** Every header form starts with `<`, a digit (octet prefix) or a month's capital letter. */
export function mayStartHeader(line: string): boolean {
  const c = line.charCodeAt(0);
  return c === 60 || (c >= 49 && c <= 57) || (c >= 65 && c <= 90);
}
