import { compileDateFormat, type DateFormat } from './date-format.ts';
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
const recent: DateFormat[] = [];
let recentNext = 0;

const suggested: readonly DateFormat[] = SUGGESTED_DEVTIME_PATTERNS.map((p) => compileDateFormat(p));

/**
 * Reads a devTime value (decisions.md §5, protocols §1.4):
 * - with a devTimeFormat: that pattern; a value it does not match is still read as epoch when it
 *   has exactly 10 or 13 digits, and is otherwise unreadable (an odd vendor string stays as it is);
 * - without: epoch seconds (10 digits) or milliseconds (13), then the IBM-suggested patterns,
 *   then ISO 8601.
 * `referenceMs` places year-less patterns in time. Null when unreadable.
 */
export function readDevTime(value: string, format: string | null, referenceMs: number): ParsedTime | null {
  if (typeof value !== 'string') return null;
  if (format !== null && format !== '') {
    // An archive repeats a few patterns: compare with the last ones before hashing into the cache.
    let f: DateFormat | undefined;
    for (let i = 0; i < recent.length; i++) {
      const r = recent[i] as DateFormat;
      if (r.pattern === format) {
        f = r;
        break;
      }
    }
    if (f === undefined) {
      f = compileDateFormat(format);
      recent[recentNext] = f;
      recentNext = (recentNext + 1) % RECENT;
    }
    return readDevTimeWith(value, f, referenceMs);
  }
  const epoch = epochMsAt(value, 0, value.length);
  if (epoch >= 0) return epochParsed(epoch, value.length);
  const c = value.charCodeAt(0) | 32;
  if (c >= 97 && c <= 122) {
    for (const f of suggested) {
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
