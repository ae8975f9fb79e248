// The two time readers behind rebasing, used by leef-rebase.ts: devTime
// (located through a LEEF layout) and the syslog header timestamp. They fill caller-owned
// records instead of allocating, and report where the value they read sits in `lastSpan`.

import { detectSyslogHeaderInto, type SyslogHeader } from '../syslog/detect-syslog-header.ts';
import { readDevTime } from '../time/devtime.ts';
import { epochMsAt, epochParsed } from '../time/epoch-time.ts';
import { readIso } from '../time/iso-time.ts';
import type { ParsedTime } from '../time/parsed-time.ts';
import { readRfc3164Time } from '../time/rfc3164-time.ts';
import { findValue, type LeefLayout, valueEnd } from './leef-layout.ts';

/** Where the last successful read found its value (synchronous callers read it right away). */
export const lastSpan = { devStart: 0, devEnd: 0, tsStart: 0, tsEnd: 0 };

/** devTime of a LEEF line (with devTimeFormat when present), or null when absent or unreadable. */
export function readDevTimeAt(line: string, layout: LeefLayout, referenceMs: number): ParsedTime | null {
  const vs = findValue(line, layout, 'devTime=');
  if (vs < 0) return null;
  const ve = valueEnd(line, vs, layout.end, layout.delimiter);
  return readDevTimeSpan(line, layout, vs, ve, findValue(line, layout, 'devTimeFormat='), referenceMs);
}

/**
 * The devTime value at `line[vs, ve)`, with the devTimeFormat value starting at `fs` (-1 when
 * absent). Sets lastSpan.
 */
export function readDevTimeSpan(
  line: string,
  layout: LeefLayout,
  vs: number,
  ve: number,
  fs: number,
  referenceMs: number,
): ParsedTime | null {
  lastSpan.devStart = vs;
  lastSpan.devEnd = ve;
  if (fs < 0) {
    // The most common form, epoch digits, needs no substring.
    const epoch = epochMsAt(line, vs, ve);
    if (epoch >= 0) return epochParsed(epoch, ve - vs);
    return readDevTime(line.slice(vs, ve), null, referenceMs);
  }
  const fe = valueEnd(line, fs, layout.end, layout.delimiter);
  return readDevTime(line.slice(vs, ve), line.slice(fs, fe), referenceMs);
}

/**
 * readDevTimeAt as a number (NaN when absent or unreadable) with no allocation for epoch values,
 * the common case; `lastRead.yearless` tells whether the year was inferred.
 */
export function readDevTimeMsAt(line: string, layout: LeefLayout, referenceMs: number): number {
  const vs = findValue(line, layout, 'devTime=');
  if (vs < 0) return Number.NaN;
  const ve = valueEnd(line, vs, layout.end, layout.delimiter);
  const fs = findValue(line, layout, 'devTimeFormat=');
  if (fs < 0) {
    const epoch = epochMsAt(line, vs, ve);
    if (epoch >= 0) {
      lastRead.yearless = false;
      return epoch;
    }
  }
  const parsed = readDevTimeSpan(line, layout, vs, ve, fs, referenceMs);
  if (parsed === null) return Number.NaN;
  lastRead.yearless = parsed.yearless;
  return parsed.ms;
}

/** Facts about the last value readDevTimeMsAt read. */
export const lastRead = { yearless: false };

/**
 * Timestamp of an RFC 5424 / RFC 3164 header that ends before `limit` (the `LEEF:` offset, or the
 * line length), or null. `header` receives the detection; `nearest` as in readRfc3164Time.
 */
export function readHeaderTimeAt(
  line: string,
  limit: number,
  referenceMs: number,
  nearest: boolean,
  header: SyslogHeader,
): ParsedTime | null {
  if (limit === 0 || !mayStartHeader(line)) return null;
  detectSyslogHeaderInto(line, header);
  if (header.timestampStart < 0 || header.timestampEnd > limit) return null;
  const text = line.slice(header.timestampStart, header.timestampEnd);
  const parsed = header.kind === 'rfc5424' ? readIso(text) : readRfc3164Time(text, referenceMs, nearest);
  if (parsed === null) return null;
  lastSpan.tsStart = header.timestampStart;
  lastSpan.tsEnd = header.timestampEnd;
  return parsed;
}

/** Every header form starts with `<`, a digit (octet prefix) or a month's capital letter. */
export function mayStartHeader(line: string): boolean {
  const c = line.charCodeAt(0);
  return c === 60 || (c >= 49 && c <= 57) || (c >= 65 && c <= 90);
}
