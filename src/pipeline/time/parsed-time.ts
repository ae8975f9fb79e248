import { MAX_WRITABLE_MS, MIN_WRITABLE_MS } from './civil.ts';

/**
 * What a reader learned about one written timestamp: the instant plus everything a writer needs
 * to write another instant in exactly the same style (zone text, digit counts, padding, case).
 * One shape for every reader keeps the hot path monomorphic.
 */
export interface ParsedTime {
  /** The instant, epoch milliseconds. */
  ms: number;
  /** Offset of the written wall clock from UTC in ms (0 when the text names no zone). */
  offsetMs: number;
  /** Zone text exactly as written (`Z`, `+02:00`, `GMT-08:00`, `PST`); '' when there was none. */
  zoneText: string;
  /** Smallest step the written form can express, in ms (1000 for epoch seconds). */
  precisionMs: number;
  /** Reader-specific style number (digit count of an epoch value, fraction digits, day padding). */
  style: number;
  /** Digits below one millisecond (ISO / RFC 3339 fractions), written back unchanged. */
  subMs: string;
  /** Text after the part a Java pattern consumed (SimpleDateFormat ignores it), kept verbatim. */
  trailing: string;
  /** Java patterns: per-token styles (padding, case, long names); null when all are default. */
  fieldStyles: number[] | null;
  /** Java patterns: whole seconds carried by an `S` count of 1000 or more, kept on writing. */
  carryMs: number;
  /** The text has no year (RFC 3164, year-less pattern): the year was inferred from a reference. */
  yearless: boolean;
  /** Writes another instant in this style; null for a time that was not read from text. */
  writer: TimeWriter | null;
}

/** Writes an instant in the style a reader captured. */
export interface TimeWriter {
  write(ms: number, style: ParsedTime): string;
  /**
   * For writers whose text is what the style and the wall-clock minute fix, followed by the rest
   * from the seconds on: that rest for wall-clock `second` and `millisecond` (see
   * ShiftedTextMemo). Instants of one minute then share everything before it.
   */
  minuteTail?(second: number, millisecond: number, style: ParsedTime): string;
}

/**
 * Whether moving `parsed` to `ms` leaves its written form unchanged: both instants fall into the
 * same step of the form's precision (in its own wall clock). Writers then keep the original text,
 * so a zero or sub-precision shift is byte-for-byte lossless even for unusual spellings.
 */
export function sameWrittenStep(parsed: ParsedTime, ms: number): boolean {
  const p = parsed.precisionMs;
  return Math.floor((parsed.ms + parsed.offsetMs) / p) === Math.floor((ms + parsed.offsetMs) / p);
}

/**
 * `text` (read as `parsed`) moved by `shiftMs` and written in its own style. The text comes back
 * unchanged when the written form would not move (zero or sub-precision shift), or when the
 * shifted instant falls outside years 1-9999.
 */
export function writeShifted(parsed: ParsedTime, text: string, shiftMs: number): string {
  return writeShiftedOrNull(parsed, shiftMs) ?? text;
}

/**
 * writeShifted without the original text: null where writeShifted keeps it. Callers that need to
 * know whether anything changed use this instead of comparing strings (a freshly written string
 * would have to be flattened to compare).
 */
export function writeShiftedOrNull(parsed: ParsedTime, shiftMs: number): string | null {
  const ms = parsed.ms + shiftMs;
  if (parsed.writer === null || !(ms >= MIN_WRITABLE_MS && ms <= MAX_WRITABLE_MS)) return null;
  if (sameWrittenStep(parsed, ms)) return null;
  return parsed.writer.write(ms, parsed);
}

/** The instant a value written for `ms` in the style of `parsed` denotes (truncated to its precision). */
export function writtenInstant(parsed: ParsedTime, ms: number): number {
  const p = parsed.precisionMs;
  if (p <= 1) return ms;
  return Math.floor((ms + parsed.offsetMs) / p) * p - parsed.offsetMs;
}
