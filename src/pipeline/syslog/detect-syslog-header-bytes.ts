// detectSyslogHeaderInto on bytes, for an ASCII line `buf[s, e)`: the same classification and
// spans (as buffer offsets). Reads past the line answer -1, which fails every test, as charCodeAt's
// NaN does in the string scanner. Only ASCII lines may come here: the string scanner counts a few
// non-ASCII characters (U+00A0, U+2000…) as spaces, which bytes cannot see.

import type { SyslogHeader } from './detect-syslog-header.ts';

/** Fills `out` like detectSyslogHeaderInto for the ASCII line `buf[s, e)`; offsets are into `buf`. */
export function detectSyslogHeaderBytes(buf: Buffer, s: number, e: number, out: SyslogHeader): SyslogHeader {
  out.kind = 'nonstandard';
  out.pri = -1;
  out.timestampStart = -1;
  out.timestampEnd = -1;
  out.hostnameStart = -1;
  out.hostnameEnd = -1;
  const p = octetPrefixEndBytes(buf, s, e);
  out.start = p;
  out.end = p;
  if (isLeefStart(buf, p, e)) {
    out.kind = 'leef-bare';
    return out;
  }
  if (!matchRfc5424(buf, p, e, out)) matchRfc3164(buf, p, e, out);
  return out;
}

/** Every header form starts with `<`, a digit 1-9 (octet prefix) or a capital letter (mayStartHeader). */
export function mayStartHeaderByte(c: number): boolean {
  return c === 60 || (c >= 49 && c <= 57) || (c >= 65 && c <= 90);
}

function at(buf: Buffer, i: number, e: number): number {
  return i < e ? (buf[i] as number) : -1;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** JavaScript's `\s` restricted to ASCII. */
function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

function octetPrefixEndBytes(buf: Buffer, s: number, e: number): number {
  const c = at(buf, s, e);
  if (!(c >= 49 && c <= 57)) return s;
  let i = s + 1;
  while (i - s < 6 && isDigit(at(buf, i, e))) i++;
  if (at(buf, i, e) !== 32) return s;
  return priEnd(buf, i + 1, e) > 0 ? i + 1 : s;
}

function isLeefStart(buf: Buffer, p: number, e: number): boolean {
  const v = at(buf, p + 5, e);
  return (
    at(buf, p, e) === 76 &&
    at(buf, p + 1, e) === 69 &&
    at(buf, p + 2, e) === 69 &&
    at(buf, p + 3, e) === 70 &&
    at(buf, p + 4, e) === 58 &&
    (v === 49 || v === 50) &&
    at(buf, p + 6, e) === 46 &&
    at(buf, p + 7, e) === 48 &&
    at(buf, p + 8, e) === 124
  );
}

function priEnd(buf: Buffer, pos: number, e: number): number {
  if (at(buf, pos, e) !== 60) return -1;
  let i = pos + 1;
  while (i - pos - 1 < 3 && isDigit(at(buf, i, e))) i++;
  if (i === pos + 1 || at(buf, i, e) !== 62) return -1;
  return i + 1;
}

function priValue(buf: Buffer, pos: number, end: number): number {
  let v = 0;
  for (let i = pos + 1; i < end - 1; i++) v = v * 10 + ((buf[i] as number) - 48);
  return v;
}

function digits(buf: Buffer, pos: number, n: number, e: number): boolean {
  for (let i = pos; i < pos + n; i++) if (!isDigit(at(buf, i, e))) return false;
  return true;
}

function matchRfc5424(buf: Buffer, s: number, e: number, out: SyslogHeader): boolean {
  const pe = priEnd(buf, s, e);
  if (pe < 0) return false;
  const v0 = at(buf, pe, e);
  if (!(v0 >= 49 && v0 <= 57)) return false;
  let i = pe + 1;
  while (i - pe < 3 && isDigit(at(buf, i, e))) i++;
  if (at(buf, i, e) !== 32) return false;
  i++;
  const tsStart = i;
  let tsEnd: number;
  if (at(buf, i, e) === 45) tsEnd = i + 1;
  else {
    tsEnd = rfc3339End(buf, i, e);
    if (tsEnd < 0) return false;
  }
  if (at(buf, tsEnd, e) !== 32) return false;
  const hostStart = tsEnd + 1;
  let h = hostStart;
  while (h < e && !isSpace(buf[h] as number)) h++;
  if (h === hostStart || h - hostStart > 255 || at(buf, h, e) !== 32) return false;
  out.kind = 'rfc5424';
  out.pri = priValue(buf, s, pe);
  out.timestampStart = tsEnd - tsStart === 1 ? -1 : tsStart;
  out.timestampEnd = tsEnd - tsStart === 1 ? -1 : tsEnd;
  out.hostnameStart = hostStart;
  out.hostnameEnd = h;
  out.end = h + 1;
  return true;
}

function rfc3339End(buf: Buffer, i: number, e: number): number {
  if (!digits(buf, i, 4, e) || at(buf, i + 4, e) !== 45) return -1;
  if (!digits(buf, i + 5, 2, e) || at(buf, i + 7, e) !== 45) return -1;
  if (!digits(buf, i + 8, 2, e) || at(buf, i + 10, e) !== 84) return -1;
  if (!digits(buf, i + 11, 2, e) || at(buf, i + 13, e) !== 58) return -1;
  if (!digits(buf, i + 14, 2, e) || at(buf, i + 16, e) !== 58) return -1;
  if (!digits(buf, i + 17, 2, e)) return -1;
  let p = i + 19;
  if (at(buf, p, e) === 46) {
    let d = p + 1;
    while (d - p - 1 < 9 && isDigit(at(buf, d, e))) d++;
    if (d === p + 1) return -1;
    p = d;
  }
  const z = at(buf, p, e);
  if (z === 90) return p + 1;
  if (z !== 43 && z !== 45) return -1;
  if (!digits(buf, p + 1, 2, e) || at(buf, p + 3, e) !== 58 || !digits(buf, p + 4, 2, e)) return -1;
  return p + 6;
}

function matchRfc3164(buf: Buffer, s: number, e: number, out: SyslogHeader): boolean {
  let i = s;
  let pri = -1;
  if (at(buf, i, e) === 60) {
    const pe = priEnd(buf, i, e);
    if (pe < 0) return false;
    pri = priValue(buf, i, pe);
    i = pe;
  }
  const tsStart = i;
  if (!isMonthAt(buf, i, e) || at(buf, i + 3, e) !== 32) return false;
  const d0 = at(buf, i + 4, e);
  if (!(d0 === 32 || (d0 >= 48 && d0 <= 51)) || !isDigit(at(buf, i + 5, e))) return false;
  if (at(buf, i + 6, e) !== 32) return false;
  i += 7;
  if (digits(buf, i, 4, e) && at(buf, i + 4, e) === 32) i += 5;
  if (!digits(buf, i, 2, e) || at(buf, i + 2, e) !== 58) return false;
  if (!digits(buf, i + 3, 2, e) || at(buf, i + 5, e) !== 58 || !digits(buf, i + 6, 2, e)) return false;
  const tsEnd = i + 8;
  if (at(buf, tsEnd, e) !== 32) return false;
  const hostStart = tsEnd + 1;
  let h = hostStart;
  while (h < e && !isSpace(buf[h] as number)) h++;
  if (h === hostStart || at(buf, h, e) !== 32) return false;
  out.kind = 'rfc3164';
  out.pri = pri;
  out.timestampStart = tsStart;
  out.timestampEnd = tsEnd;
  out.hostnameStart = hostStart;
  out.hostnameEnd = h;
  out.end = h + 1;
  return true;
}

function isMonthAt(buf: Buffer, i: number, e: number): boolean {
  const a = at(buf, i, e);
  const b = at(buf, i + 1, e);
  const c = at(buf, i + 2, e);
  switch (a) {
    case 74:
      return (b === 97 && c === 110) || (b === 117 && (c === 110 || c === 108));
    case 70:
      return b === 101 && c === 98;
    case 77:
      return b === 97 && (c === 114 || c === 121);
    case 65:
      return (b === 112 && c === 114) || (b === 117 && c === 103);
    case 83:
      return b === 101 && c === 112;
    case 79:
      return b === 99 && c === 116;
    case 78:
      return b === 111 && c === 118;
    case 68:
      return b === 101 && c === 99;
    default:
      return false;
  }
}
