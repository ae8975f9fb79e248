import { civilToMs, daysInMonth, msToCivil, newCivilFields, pad2, padZero } from './civil.ts';
import type { ParsedTime, TimeWriter } from './parsed-time.ts';

// ISO 8601 / RFC 3339 date-times: `yyyy-MM-dd(T|t| )HH:mm[:ss[(.|,)fraction]][zone]`, zone being
// `Z`, `z`, `±hh:mm`, `±hhmm` or `±hh`. Used for RFC 5424 header timestamps and as the last
// fallback for a devTime without devTimeFormat. A fraction is a real fraction here (unlike Java's
// `S`): the first three digits are milliseconds, further digits are kept verbatim, and a fraction
// of one or two digits is written back with as many (the shifted time truncated to it).

// style bits
const SEP_MASK = 0xff; // char code between date and time
const HAS_SECONDS = 1 << 8;
const FRACTION_SHIFT = 9; // 4 bits: fraction digits (0-9)
const COMMA = 1 << 13;

/** Reads an ISO 8601 date-time filling all of `text`, or null. Without a zone it is UTC. */
export function readIso(text: string): ParsedTime | null {
  const n = text.length;
  if (n < 16) return null;
  const year = num(text, 0, 4);
  const month = num(text, 5, 2);
  const day = num(text, 8, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1) return null;
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return null;
  if (day > daysInMonth(year, month)) return null;
  const sep = text.charCodeAt(10);
  if (sep !== 84 && sep !== 116 && sep !== 32) return null; // T t space
  const hour = num(text, 11, 2);
  const minute = num(text, 14, 2);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || text.charCodeAt(13) !== 58) return null;
  let style = sep;
  let pos = 16;
  let second = 0;
  let millis = 0;
  let subMs = '';
  if (text.charCodeAt(pos) === 58) {
    second = num(text, pos + 1, 2);
    if (second < 0 || second > 59) return null;
    style |= HAS_SECONDS;
    pos += 3;
    const dot = text.charCodeAt(pos);
    if (dot === 46 || dot === 44) {
      const start = pos + 1;
      let end = start;
      while (end < n && end - start < 9) {
        const c = text.charCodeAt(end);
        if (c < 48 || c > 57) break;
        end++;
      }
      const digits = end - start;
      if (digits === 0) return null;
      for (let i = start; i < start + 3; i++) millis = millis * 10 + (i < end ? text.charCodeAt(i) - 48 : 0);
      if (digits > 3) subMs = text.slice(start + 3, end);
      style |= (digits << FRACTION_SHIFT) | (dot === 44 ? COMMA : 0);
      pos = end;
    }
  }
  let offsetMs = 0;
  let zoneText = '';
  if (pos < n) {
    const c = text.charCodeAt(pos);
    if (c === 90 || c === 122) {
      if (pos + 1 !== n) return null;
    } else if (c === 43 || c === 45) {
      const rest = n - pos;
      const hh = num(text, pos + 1, 2);
      let mm = 0;
      if (rest === 6 && text.charCodeAt(pos + 3) === 58) mm = num(text, pos + 4, 2);
      else if (rest === 5) mm = num(text, pos + 3, 2);
      else if (rest !== 3) return null;
      if (hh < 0 || hh > 23 || mm < 0 || mm > 59) return null;
      offsetMs = (c === 45 ? -1 : 1) * (hh * 3_600_000 + mm * 60_000);
    } else {
      return null;
    }
    zoneText = text.slice(pos);
  }
  const digits = (style >>> FRACTION_SHIFT) & 15;
  const precisionMs = !(style & HAS_SECONDS)
    ? 60_000
    : digits === 0
      ? 1000
      : digits >= 3
        ? 1
        : 10 ** (3 - digits);
  return {
    ms: civilToMs(year, month, day, hour, minute, second, millis) - offsetMs,
    offsetMs,
    zoneText,
    precisionMs,
    style,
    subMs,
    trailing: '',
    fieldStyles: null,
    carryMs: 0,
    yearless: false,
    writer: isoWriter,
  };
}

/** Writes ISO date-times in the style they were read with. */
export const isoWriter: TimeWriter = {
  write(ms: number, p: ParsedTime): string {
    // A fields record per call (the writer is shared): shipments write a timestamp in full once a
    // minute (ShiftedTextMemo), the rest of the minute from minuteTail.
    const f = msToCivil(ms + p.offsetMs, newCivilFields());
    const out = `${padZero(f.year, 4)}-${pad2(f.month)}-${pad2(f.day)}${String.fromCharCode(p.style & SEP_MASK)}${pad2(f.hour)}:${pad2(f.minute)}`;
    return p.style & HAS_SECONDS ? out + isoTail(f.second, f.millisecond, p) : out + p.zoneText;
  },
  minuteTail(second: number, millisecond: number, p: ParsedTime): string {
    return p.style & HAS_SECONDS ? isoTail(second, millisecond, p) : p.zoneText;
  },
};

/** `:ss`, the fraction as read (digits, separator, digits below a millisecond) and the zone text. */
function isoTail(second: number, millisecond: number, p: ParsedTime): string {
  let out = `:${pad2(second)}`;
  const digits = (p.style >>> FRACTION_SHIFT) & 15;
  if (digits > 0) {
    out += p.style & COMMA ? ',' : '.';
    out +=
      digits >= 3
        ? padZero(millisecond, 3) + p.subMs
        : padZero(Math.floor(millisecond / 10 ** (3 - digits)), digits);
  }
  return out + p.zoneText;
}

/** Non-negative integer of exactly `width` digits at `pos`, or -1. */
function num(text: string, pos: number, width: number): number {
  let v = 0;
  for (let i = pos; i < pos + width; i++) {
    const c = text.charCodeAt(i);
    // Written so that NaN (a position past the end) is not a digit either: `2024-03-11T09:15:`
    // read its missing seconds as NaN and denoted no instant, instead of being unreadable.
    if (!(c >= 48 && c <= 57)) return -1;
    v = v * 10 + (c - 48);
  }
  return v;
}
