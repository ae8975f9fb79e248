// Rebasing LEEF lines (decisions.md §5): one shift for a whole shipment, so the newest event lands
// at now + 2 h and every readable time moves by the same amount, written back in its own format.
//
// Two passes over the shipment, both line-in, value-out:
//   pass 1: readEventTime(line, ctx) for every line, then finishFirstPass(ctx, now) -> the shift
//   pass 2: shiftLine(line, shift, ctx) for every line, then labIndex, header mode, framing
//           (LeefFrameWriter does the same on bytes, held to this path by a property test).
// These string functions find devTime again in pass 2: stateless, both passes read the same time
// with the same code. The byte path (LeefLineReader) keeps pass 1's positions per chunk of an
// entry within a memory budget (LineIndexes: archives go up to 4 GiB, so they cannot all be kept)
// and finds the rest again.

import { ShipmentScratch } from '../shipment/shipment-scratch.ts';
import { writeShiftedOrNull, writtenInstant } from '../time/parsed-time.ts';
import { readDevTimeAt, readDevTimeMsAt, readHeaderTimeAt } from './event-time-reader.ts';
import { scanLeefInto } from './leef-layout.ts';

/** How far after "now" the newest event of a shipment lands (decisions.md §5). */
export const REBASE_LEAD_MS = 2 * 3_600_000;

/** Milliseconds per day, for shiftDays. */
export const DAY_MS = 86_400_000;

/** State shared by the lines of one shipment. */
export interface RebaseContext {
  /**
   * Reference for timestamps without a year (RFC 3164 headers, year-less devTimeFormats): they
   * get the latest year that does not put them in the future of this instant (one day of slack).
   * Starts as the shipment's now; finishFirstPass moves it to the newest dated event.
   */
  referenceMs: number;
  /** Pass 1: newest event time read from a value with a year (devTime, RFC 5424), or null. */
  latestDatedMs: number | null;
  /** Pass 1: newest event time whose year was inferred (RFC 3164 headers), or null. */
  latestYearlessMs: number | null;
  /** Pass 1: lines with and without a readable time, and those whose time has no year. */
  readable: number;
  yearless: number;
  unreadable: number;
  /**
   * Written by shiftLine: the rebased event time of the line just shifted (devTime, else the
   * header timestamp; at the precision it was written with), or null when it has none. This is
   * the time a synthesized header carries. An out-parameter keeps pass 2 allocation-free.
   */
  lastEventMs: number | null;
}

/** A context for one shipment; `nowMs` is the shipment's now. */
export function createRebaseContext(nowMs: number): RebaseContext {
  return {
    referenceMs: nowMs,
    latestDatedMs: null,
    latestYearlessMs: null,
    readable: 0,
    yearless: 0,
    unreadable: 0,
    lastEventMs: null,
  };
}

/** shift = (now + 2 h) − latest; 0 when no event had a readable time (the archive ships unchanged). */
export function computeShift(latestEventMs: number | null, nowMs: number): number {
  if (latestEventMs === null || !Number.isFinite(latestEventMs) || !Number.isFinite(nowMs)) return 0;
  return nowMs + REBASE_LEAD_MS - latestEventMs;
}

/** The shift in days, as reported (`shiftDays = shift / 86 400 000`). */
export function shiftDays(shiftMs: number): number {
  return shiftMs / DAY_MS;
}

/**
 * Pass 1: the event time of `line` in epoch ms: devTime (with devTimeFormat, else epoch or the
 * common formats), else the syslog header's timestamp; null when neither is readable. A devTime
 * that is present but unreadable falls back to the header. Also records the time in `ctx`.
 * `scratch`: the pass's (a new one when not given: compiled devTimeFormats are then not kept).
 */
export function readEventTime(
  line: string,
  ctx: RebaseContext,
  scratch: ShipmentScratch = new ShipmentScratch(),
): number | null {
  const ms = eventMsOf(line, ctx.referenceMs, scratch);
  if (Number.isNaN(ms)) {
    ctx.unreadable++;
    return null;
  }
  ctx.readable++;
  if (scratch.spans.yearless) {
    ctx.yearless++;
    if (ctx.latestYearlessMs === null || ms > ctx.latestYearlessMs) ctx.latestYearlessMs = ms;
  } else if (ctx.latestDatedMs === null || ms > ctx.latestDatedMs) {
    ctx.latestDatedMs = ms;
  }
  return ms;
}

/**
 * Ends pass 1: the shipment's shift, from the newest dated event when there is one. Year-less
 * times (RFC 3164 headers) read against now do not count: their year is a guess, and a header-
 * only line recorded with the archive would otherwise look a year or more newer than the dated
 * lines beside it and wreck the shift. For pass 2 their year is re-anchored on the newest dated
 * event; when the shipment has both kinds, yearlessPassContext reads them again against it so the
 * newest of all decides. With only year-less times, they decide (their year relative to now is then
 * harmless: only month and day are written back).
 */
export function finishFirstPass(ctx: RebaseContext, nowMs: number): number {
  if (ctx.latestDatedMs !== null) {
    ctx.referenceMs = ctx.latestDatedMs;
    return computeShift(ctx.latestDatedMs, nowMs);
  }
  return computeShift(ctx.latestYearlessMs, nowMs);
}

/**
 * After finishFirstPass: a context for a second reading of the shipment's lines when it mixes
 * dated and year-less event times, else null. Year-less times were read against now in pass 1, but
 * pass 2 places them against the newest dated event (up to a day after it), where one of them may be
 * the newest event of all. Reading every line again against that reference (readEventTime, or
 * LeefLineReader.eventTime without an index) finds it; finishYearlessPass then gives the shift.
 */
export function yearlessPassContext(ctx: RebaseContext): RebaseContext | null {
  if (ctx.latestDatedMs === null || ctx.latestYearlessMs === null) return null;
  return createRebaseContext(ctx.referenceMs);
}

/**
 * The shift once `again` (yearlessPassContext) has read every line: from the newest event as pass 2
 * will place it, dated or year-less, so that it lands at now + 2 h (decisions.md §5).
 */
export function finishYearlessPass(ctx: RebaseContext, again: RebaseContext, nowMs: number): number {
  const dated = ctx.latestDatedMs as number;
  const yearless = again.latestYearlessMs;
  return computeShift(yearless !== null && yearless > dated ? yearless : dated, nowMs);
}

/**
 * Pass 2: `line` with devTime and the syslog header timestamp moved by `shiftMs`, each in its own
 * format, zone and precision; everything else byte for byte. A line without a readable time comes
 * back unchanged (the caller counts it). Sets `ctx.lastEventMs`. `scratch` as in readEventTime.
 */
export function shiftLine(
  line: string,
  shiftMs: number,
  ctx: RebaseContext,
  scratch: ShipmentScratch = new ShipmentScratch(),
): string {
  ctx.lastEventMs = null;
  if (typeof line !== 'string') return line;
  const shift = Number.isFinite(shiftMs) ? shiftMs : 0;
  const layout = scratch.layout;
  const isLeef = scanLeefInto(line, layout);
  const dev = isLeef ? readDevTimeAt(line, layout, ctx.referenceMs, scratch) : null;
  const devStart = scratch.spans.devStart;
  const devEnd = scratch.spans.devEnd;
  const headerEnd = isLeef ? layout.start : line.length;
  // A header without a year is placed in the year nearest its devTime when there is one: a header
  // written seconds after devTime across New Year lands next to it, and shifting back and forth
  // gives the same year (which decides whether 29 February exists).
  const header =
    dev === null
      ? readHeaderTimeAt(line, headerEnd, ctx.referenceMs, false, scratch)
      : readHeaderTimeAt(line, headerEnd, dev.ms, true, scratch);
  if (dev === null && header === null) return line;

  let out = line;
  if (dev !== null) {
    const shifted = writeShiftedOrNull(dev, shift);
    if (shifted !== null) out = line.slice(0, devStart) + shifted + line.slice(devEnd);
    ctx.lastEventMs = writtenInstant(dev, dev.ms + shift);
  }
  if (header !== null) {
    // The header precedes LEEF:, so its offsets are unaffected by the devTime rewrite.
    const { tsStart, tsEnd } = scratch.spans;
    const shifted = writeShiftedOrNull(header, shift);
    if (shifted !== null) out = out.slice(0, tsStart) + shifted + out.slice(tsEnd);
    if (dev === null) ctx.lastEventMs = writtenInstant(header, header.ms + shift);
  }
  return out;
}

/** Result of rebaseLines. */
export interface RebasedLines {
  lines: string[];
  shiftMs: number;
  shiftDays: number;
  /** Lines without a readable time (shipped unchanged). */
  unreadable: number;
  /** Rebased event time per line (null when unreadable), for synthesized headers. */
  eventTimes: Array<number | null>;
}

/** Both passes over an in-memory list of lines (small shipments and tests), with one scratch. */
export function rebaseLines(lines: readonly string[], nowMs: number): RebasedLines {
  const scratch = new ShipmentScratch();
  const ctx = createRebaseContext(nowMs);
  for (const line of lines) readEventTime(line, ctx, scratch);
  let shiftMs = finishFirstPass(ctx, nowMs);
  const again = yearlessPassContext(ctx);
  if (again !== null) {
    for (const line of lines) readEventTime(line, again, scratch);
    shiftMs = finishYearlessPass(ctx, again, nowMs);
  }
  const out: string[] = new Array(lines.length);
  const eventTimes: Array<number | null> = new Array(lines.length);
  for (let i = 0; i < lines.length; i++) {
    out[i] = shiftLine(lines[i] as string, shiftMs, ctx, scratch);
    eventTimes[i] = ctx.lastEventMs;
  }
  return { lines: out, shiftMs, shiftDays: shiftDays(shiftMs), unreadable: ctx.unreadable, eventTimes };
}

/**
 * Event time of `line` (NaN when none), without allocating for epoch devTime; sets
 * scratch.spans.yearless. The records it fills are the scratch's (the functions here are
 * synchronous and non-reentrant): no allocation per line.
 */
function eventMsOf(line: string, referenceMs: number, scratch: ShipmentScratch): number {
  if (typeof line !== 'string') return Number.NaN;
  const layout = scratch.layout;
  const isLeef = scanLeefInto(line, layout);
  if (isLeef) {
    const dev = readDevTimeMsAt(line, layout, referenceMs, scratch);
    if (!Number.isNaN(dev)) return dev;
  }
  const header = readHeaderTimeAt(line, isLeef ? layout.start : line.length, referenceMs, false, scratch);
  if (header === null) return Number.NaN;
  scratch.spans.yearless = header.yearless;
  return header.ms;
}
