import { type DateFormat, DateFormatCache } from './date-format.ts';
import { epochMsAt, epochParsed } from './epoch-time.ts';
import { readIso } from './iso-time.ts';
import type { ParsedTime } from './parsed-time.ts';

/**
 * The patterns IBM suggests for devTime (protocols §1.4), tried in this order when a line has no
 * devTimeFormat. QRadar does not document a default, so each must match the whole value.
 */
export const SUGGESTED_DEVTIME_PATTERNS = [
  'MMM dd yyyy HH:mm:ss',
  'MMM dd yyyy HH:mm:ss.SSS',
  'MMM dd yyyy HH:mm:ss.SSS z',
  'MMM dd yyyy HH:mm:ss z',
] as const;

const RECENT = 8;

/**
 * The devTime patterns of one shipment pass, compiled: the suggested ones, and the devTimeFormats
 * seen, in a cache with the last few in front. Compiled formats remember their last reads and
 * writes, so each pass has its own.
 */
export class DevTimeFormats {
  /** Every devTimeFormat compiled so far. */
  readonly cache = new DateFormatCache();
  // An archive repeats a few patterns: the last ones are compared before hashing into the cache.
  readonly #recent: DateFormat[] = [];
  #recentNext = 0;
  #suggested: readonly DateFormat[] | null = null;

  /** The compiled devTimeFormat `pattern`. */
  compiled(pattern: string): DateFormat {
    const recent = this.#recent;
    for (let i = 0; i < recent.length; i++) {
      const r = recent[i] as DateFormat;
      if (r.pattern === pattern) return r;
    }
    const f = this.cache.get(pattern);
    recent[this.#recentNext] = f;
    this.#recentNext = (this.#recentNext + 1) % RECENT;
    return f;
  }

  /** SUGGESTED_DEVTIME_PATTERNS compiled (on first use: most archives never need them). */
  get suggested(): readonly DateFormat[] {
    this.#suggested ??= SUGGESTED_DEVTIME_PATTERNS.map((p) => this.cache.get(p));
    return this.#suggested;
  }
}

/**
 * Reads a devTime value (decisions.md §5, protocols §1.4):
 * - with a devTimeFormat: that pattern; a value it does not match is still read as epoch when it
 *   has exactly 10 or 13 digits, and is otherwise unreadable (an odd vendor string stays as it is);
 * - without: epoch seconds (10 digits) or milliseconds (13), then the IBM-suggested patterns,
 *   then ISO 8601.
 * `referenceMs` places year-less patterns in time. Null when unreadable. `formats`: the shipment
 * pass's compiled patterns (a fresh set when not given: every pattern is then compiled again).
 */
export function readDevTime(
  value: string,
  format: string | null,
  referenceMs: number,
  formats: DevTimeFormats = new DevTimeFormats(),
): ParsedTime | null {
  if (typeof value !== 'string') return null;
  if (format !== null && format !== '') return readDevTimeWith(value, formats.compiled(format), referenceMs);
  const epoch = epochMsAt(value, 0, value.length);
  if (epoch >= 0) return epochParsed(epoch, value.length);
  const c = value.charCodeAt(0) | 32;
  if (c >= 97 && c <= 122) {
    for (const f of formats.suggested) {
      const parsed = f.read(value);
      if (parsed !== null && parsed.trailing === '') return parsed;
    }
    return null;
  }
  return readIso(value);
}

/** readDevTime of `value` with the compiled devTimeFormat `f` (its pattern not ''). */
export function readDevTimeWith(value: string, f: DateFormat, referenceMs: number): ParsedTime | null {
  if (f.problem === undefined) {
    const parsed = f.read(value, referenceMs);
    if (parsed !== null) return parsed;
  }
  const epoch = epochMsAt(value, 0, value.length);
  return epoch >= 0 ? epochParsed(epoch, value.length) : null;
}
