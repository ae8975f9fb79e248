// Zone readers for the Java pattern letters z, Z and X. Each reads at `pos`, returns the index
// after the zone (or -1) and leaves the offset in `out.offsetMs`. Offsets are fixed: a time read
// as `PST` is written back as `PST` with -08:00 even if the shifted date falls into summer time, so
// the written instant is always exactly the shifted one.

/** Receives the offset a zone reader found. */
export interface ZoneOut {
  offsetMs: number;
}

const H = 3_600_000;
const M = 60_000;

/**
 * Zone abbreviations with the fixed offset Java's default English zone names give them
 * (ambiguous ones as Java resolves them, e.g. IST = India).
 */
export const ZONE_ABBREVIATIONS: ReadonlyMap<string, number> = new Map([
  ['GMT', 0],
  ['UTC', 0],
  ['UT', 0],
  ['WET', 0],
  ['WEST', 1 * H],
  ['BST', 1 * H],
  ['CET', 1 * H],
  ['CEST', 2 * H],
  ['MET', 1 * H],
  ['MEST', 2 * H],
  ['EET', 2 * H],
  ['EEST', 3 * H],
  ['MSK', 3 * H],
  ['IST', 5 * H + 30 * M],
  ['PKT', 5 * H],
  ['ICT', 7 * H],
  ['WIB', 7 * H],
  ['SGT', 8 * H],
  ['HKT', 8 * H],
  ['AWST', 8 * H],
  ['JST', 9 * H],
  ['KST', 9 * H],
  ['ACST', 9 * H + 30 * M],
  ['ACDT', 10 * H + 30 * M],
  ['AEST', 10 * H],
  ['AEDT', 11 * H],
  ['NZST', 12 * H],
  ['NZDT', 13 * H],
  ['AST', -4 * H],
  ['ADT', -3 * H],
  ['EST', -5 * H],
  ['EDT', -4 * H],
  ['CST', -6 * H],
  ['CDT', -5 * H],
  ['MST', -7 * H],
  ['MDT', -6 * H],
  ['PST', -8 * H],
  ['PDT', -7 * H],
  ['AKST', -9 * H],
  ['AKDT', -8 * H],
  ['HST', -10 * H],
]);

function digitAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c >= 48 && c <= 57 ? c - 48 : -1;
}

function signAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 43) return 1; // +
  if (c === 45) return -1; // -
  return 0;
}

/** `±hh[[:]mm]` with 1-2 hour digits (the GMT-offset form Java's `z` accepts). */
function readLooseOffset(text: string, pos: number, out: ZoneOut): number {
  const sign = signAt(text, pos);
  if (sign === 0) return -1;
  let i = pos + 1;
  const h1 = digitAt(text, i);
  if (h1 < 0) return -1;
  i++;
  let hours = h1;
  const h2 = digitAt(text, i);
  if (h2 >= 0) {
    hours = h1 * 10 + h2;
    i++;
  }
  let minutes = 0;
  let j = i;
  if (text.charCodeAt(j) === 58) j++; // ':'
  const m1 = digitAt(text, j);
  const m2 = digitAt(text, j + 1);
  if (m1 >= 0 && m2 >= 0) {
    minutes = m1 * 10 + m2;
    i = j + 2;
  }
  if (hours > 23 || minutes > 59) return -1;
  out.offsetMs = sign * (hours * H + minutes * M);
  return i;
}

/** RFC 822 `±hhmm`. */
function readRfc822(text: string, pos: number, out: ZoneOut): number {
  const sign = signAt(text, pos);
  if (sign === 0) return -1;
  const a = digitAt(text, pos + 1);
  const b = digitAt(text, pos + 2);
  const c = digitAt(text, pos + 3);
  const d = digitAt(text, pos + 4);
  if (a < 0 || b < 0 || c < 0 || d < 0) return -1;
  const hours = a * 10 + b;
  const minutes = c * 10 + d;
  if (hours > 23 || minutes > 59) return -1;
  out.offsetMs = sign * (hours * H + minutes * M);
  return pos + 5;
}

/** Java `z` (general zone): `GMT`/`UTC` with an optional offset, a known abbreviation, or RFC 822. */
export function readGeneralZone(text: string, pos: number, out: ZoneOut): number {
  const rfc = readRfc822(text, pos, out);
  if (rfc >= 0) return rfc;
  let end = pos;
  while (end < text.length) {
    const c = text.charCodeAt(end) | 32;
    if (c < 97 || c > 122) break;
    end++;
  }
  if (end === pos) return -1;
  // GMT and UTC (the usual cases) without building a string.
  const n = end - pos;
  const a = text.charCodeAt(pos) | 32;
  const b = text.charCodeAt(pos + 1) | 32;
  const c = text.charCodeAt(pos + 2) | 32;
  const utcLike =
    (n === 3 && ((a === 103 && b === 109 && c === 116) || (a === 117 && b === 116 && c === 99))) ||
    (n === 2 && a === 117 && b === 116);
  const name = utcLike ? 'UTC' : text.slice(pos, end).toUpperCase();
  if (utcLike) {
    const offEnd = readLooseOffset(text, end, out);
    if (offEnd >= 0) return offEnd;
    out.offsetMs = 0;
    return end;
  }
  const offset = ZONE_ABBREVIATIONS.get(name);
  if (offset === undefined) return -1;
  out.offsetMs = offset;
  return end;
}

/** Java `Z`: RFC 822 `-0800`; general zones are accepted too, as SimpleDateFormat does. */
export function readRfc822Zone(text: string, pos: number, out: ZoneOut): number {
  // A bare `Z` is no RFC 822 zone and no zone name: SimpleDateFormat refuses it for `Z` (the
  // Palo Alto sample with a literal Z stays unreadable, as QRadar would see it).
  return readGeneralZone(text, pos, out);
}

/** Java `X`, `XX`, `XXX`: `Z`, or `-08`, `-0800`, `-08:00` respectively. */
export function readIsoZone(text: string, pos: number, count: number, out: ZoneOut): number {
  if (text.charCodeAt(pos) === 90) {
    out.offsetMs = 0;
    return pos + 1;
  }
  const sign = signAt(text, pos);
  if (sign === 0) return -1;
  const a = digitAt(text, pos + 1);
  const b = digitAt(text, pos + 2);
  if (a < 0 || b < 0) return -1;
  const hours = a * 10 + b;
  let i = pos + 3;
  let minutes = 0;
  if (count >= 2) {
    if (count === 3) {
      if (text.charCodeAt(i) !== 58) return -1;
      i++;
    }
    const c = digitAt(text, i);
    const d = digitAt(text, i + 1);
    if (c < 0 || d < 0) return -1;
    minutes = c * 10 + d;
    i += 2;
  }
  if (hours > 23 || minutes > 59) return -1;
  out.offsetMs = sign * (hours * H + minutes * M);
  return i;
}

/** How a pattern's zone letter writes UTC when no zone text was captured (as Java does for UTC). */
export function defaultZoneText(letter: 'z' | 'Z' | 'X', count: number): string {
  if (letter === 'z') return count >= 4 ? 'Coordinated Universal Time' : 'UTC';
  if (letter === 'Z') return '+0000';
  return 'Z';
}
