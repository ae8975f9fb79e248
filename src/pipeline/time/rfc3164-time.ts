import {
  type CivilFields,
  civilToMs,
  daysInMonth,
  inferYear,
  msToCivil,
  newCivilFields,
  pad2,
  padZero,
} from './civil.ts';
import { MONTHS_SHORT } from './names.ts';
import type { ParsedTime, TimeWriter } from './parsed-time.ts';

// RFC 3164 TIMESTAMP `Mmm dd hh:mm:ss`: English month with a capital first letter, the day
// space-padded (`Aug  7`) or, from some devices, zero-padded (`Aug 07`), and an optional year some
// devices insert before the time (`Jan 18 2024 11:07:53`). No zone: read and written as UTC.
// Without a year, the year is inferred from a reference time (see inferYear): the latest year in
// which the time is not in the future of the reference (with one day of slack for device zones).

const ZERO_PADDED_DAY = 1;
const HAS_YEAR = 2;

/**
 * Reads `text` (exactly a 3164 TIMESTAMP, optionally with a year) relative to `referenceMs`,
 * or null when it is not one or names an impossible date. `nearest` picks the year closest to
 * the reference instead of the latest one not after it (see inferYear).
 */
export function readRfc3164Time(text: string, referenceMs: number, nearest = false): ParsedTime | null {
  const n = text.length;
  if (n !== 15 && n !== 20) return null;
  const month = monthAt(text);
  if (month < 0 || text.charCodeAt(3) !== 32 || text.charCodeAt(6) !== 32) return null;
  let style = 0;
  const d0 = text.charCodeAt(4);
  const d1 = text.charCodeAt(5) - 48;
  if (d1 < 0 || d1 > 9) return null;
  let day: number;
  if (d0 === 32) day = d1;
  else if (d0 >= 48 && d0 <= 51) {
    day = (d0 - 48) * 10 + d1;
    // Only a leading zero shows the device pads with zeros; "25" says nothing, so RFC spaces stay.
    if (d0 === 48) style |= ZERO_PADDED_DAY;
  } else return null;
  let pos = 7;
  let year = -1;
  if (n === 20) {
    year = digits(text, 7, 4);
    if (year < 0 || text.charCodeAt(11) !== 32) return null;
    style |= HAS_YEAR;
    pos = 12;
  }
  const hour = digits(text, pos, 2);
  const minute = digits(text, pos + 3, 2);
  const second = digits(text, pos + 6, 2);
  if (text.charCodeAt(pos + 2) !== 58 || text.charCodeAt(pos + 5) !== 58) return null;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59 || day < 1) return null;
  if (year < 0) {
    year = inferYear(month, day, hour * 3_600_000 + minute * 60_000 + second * 1000, 0, referenceMs, nearest);
    if (year < 0) return null;
  }
  if (day > daysInMonth(year, month)) return null;
  return {
    ms: civilToMs(year, month, day, hour, minute, second, 0),
    offsetMs: 0,
    zoneText: '',
    precisionMs: 1000,
    style,
    subMs: '',
    trailing: '',
    fieldStyles: null,
    carryMs: 0,
    yearless: (style & HAS_YEAR) === 0,
    writer: rfc3164Writer,
  };
}

/**
 * Writes a 3164 TIMESTAMP in the style it was read with (a fields record per call, as the writer is
 * shared: shipments write a timestamp in full once a minute, see ShiftedTextMemo).
 */
export const rfc3164Writer: TimeWriter = {
  write(ms: number, p: ParsedTime): string {
    return formatRfc3164Time(ms, (p.style & ZERO_PADDED_DAY) !== 0, (p.style & HAS_YEAR) !== 0);
  },
  minuteTail(second: number): string {
    return `:${pad2(second)}`;
  },
};

/**
 * `Mmm dd hh:mm:ss` in UTC; the day space-padded unless `zeroPadDay`; a year before the time when
 * `withYear`. `fields`: a record to fill, for a caller that writes many (a new one when not given).
 */
export function formatRfc3164Time(
  ms: number,
  zeroPadDay = false,
  withYear = false,
  fields: CivilFields = newCivilFields(),
): string {
  const f = msToCivil(ms, fields);
  const day = f.day < 10 ? (zeroPadDay ? '0' : ' ') + f.day : String(f.day);
  const year = withYear ? `${padZero(f.year, 4)} ` : '';
  return `${MONTHS_SHORT[f.month - 1]} ${day} ${year}${pad2(f.hour)}:${pad2(f.minute)}:${pad2(f.second)}`;
}

/** Month (1-12) of the `Mmm` at the start of `text`, exact case, or -1. */
function monthAt(text: string): number {
  for (let i = 0; i < 12; i++) {
    if (text.startsWith(MONTHS_SHORT[i] as string)) return i + 1;
  }
  return -1;
}

function digits(text: string, pos: number, width: number): number {
  let v = 0;
  for (let i = pos; i < pos + width; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
    v = v * 10 + (c - 48);
  }
  return v;
}
