import type { ParsedTime, TimeWriter } from './parsed-time.ts';

// QRadar reads a devTime of exactly 10 digits as epoch seconds and 13 digits as epoch
// milliseconds, without a devTimeFormat. Nothing else counts as epoch.

/** Epoch value of `text.slice(start, end)` in ms when it is 10 or 13 ASCII digits, else -1. */
export function epochMsAt(text: string, start: number, end: number): number {
  const digits = end - start;
  if (digits !== 13 && digits !== 10) return -1;
  let value = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
    value = value * 10 + (c - 48);
  }
  return digits === 10 ? value * 1000 : value;
}

/** Writes epoch values with the digit count they were read with (style = 10 or 13). */
export const epochWriter: TimeWriter = {
  write(ms: number, style: ParsedTime): string {
    // Epoch values are digits only: nothing before 1970 can be written (rebasing never goes there).
    const value = Math.max(0, style.style === 10 ? Math.floor(ms / 1000) : Math.floor(ms));
    return epochDigits(value, style.style);
  },
};

/**
 * `value` (a non-negative integer) in decimal with at least `digits` digits. Leading zeros keep
 * the digit count, and so the epoch reading, for the rare value that shifts below 10^9 s. Split
 * in two small integers: 13-digit values are not small integers in V8 and print much slower.
 */
export function epochDigits(value: number, digits: number): string {
  let s: string;
  if (value < 1_000_000_000) s = String(value);
  else {
    const hi = Math.floor(value / 10_000_000);
    const lo = String(value - hi * 10_000_000);
    s = `${hi}${lo.length === 7 ? lo : '0'.repeat(7 - lo.length) + lo}`;
  }
  return s.length >= digits ? s : '0'.repeat(digits - s.length) + s;
}

/** A 10- or 13-digit epoch `text`, or null. */
export function readEpoch(text: string): ParsedTime | null {
  const ms = epochMsAt(text, 0, text.length);
  return ms < 0 ? null : epochParsed(ms, text.length);
}

/** The ParsedTime of an epoch value with `digits` (10 or 13) digits. */
export function epochParsed(ms: number, digits: number): ParsedTime {
  return {
    ms,
    offsetMs: 0,
    zoneText: '',
    precisionMs: digits === 10 ? 1000 : 1,
    style: digits,
    subMs: '',
    trailing: '',
    fieldStyles: null,
    carryMs: 0,
    yearless: false,
    writer: epochWriter,
  };
}
