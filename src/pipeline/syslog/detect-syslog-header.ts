// Header detection by hand-written scanners that accept exactly what the anchored regular
// expressions of protocols-qradar-leef-syslog.md §3.5 accept (a property test checks this
// against the regexes themselves). Scanners instead of regexes: this runs on every shipped line,
// allocates one small object, and cannot backtrack badly on hostile input.

/** What stands in front of a message: nothing before `LEEF:`, an RFC 5424 or RFC 3164 header, or something else. */
export type SyslogHeaderKind = 'leef-bare' | 'rfc5424' | 'rfc3164' | 'nonstandard';

/** Result of detectSyslogHeader; all indexes are into the line given. */
export interface SyslogHeader {
  kind: SyslogHeaderKind;
  /** Where the syslog message starts: after a leftover RFC 6587 octet-count prefix (`123 `), else 0. */
  start: number;
  /** Index just after the header's HOSTNAME and its space; equals `start` when there is no header. */
  end: number;
  /** PRI value, or -1 when the header has none (3164 allows that) or there is no header. */
  pri: number;
  /** Span of the TIMESTAMP (3164: `Mmm dd[ yyyy] hh:mm:ss`); -1 when absent or the 5424 NILVALUE. */
  timestampStart: number;
  timestampEnd: number;
  /** Span of the HOSTNAME; -1 when there is no header. */
  hostnameStart: number;
  hostnameEnd: number;
}

/** Classifies the start of `line` (protocols §3.5) and locates the header's parts. */
export function detectSyslogHeader(line: string): SyslogHeader {
  return detectSyslogHeaderInto(line, newSyslogHeader());
}

/** A record for detectSyslogHeaderInto (one per caller, reused line after line). */
export function newSyslogHeader(): SyslogHeader {
  return {
    kind: 'nonstandard',
    start: 0,
    end: 0,
    pri: -1,
    timestampStart: -1,
    timestampEnd: -1,
    hostnameStart: -1,
    hostnameEnd: -1,
  };
}

/** detectSyslogHeader into a caller's record (no allocation on the hot path); returns `out`. */
export function detectSyslogHeaderInto(line: string, out: SyslogHeader): SyslogHeader {
  out.kind = 'nonstandard';
  out.start = 0;
  out.end = 0;
  out.pri = -1;
  out.timestampStart = -1;
  out.timestampEnd = -1;
  out.hostnameStart = -1;
  out.hostnameEnd = -1;
  if (typeof line !== 'string') return out;
  const s = octetPrefixEnd(line);
  out.start = s;
  out.end = s;
  if (isLeefStart(line, s)) {
    out.kind = 'leef-bare';
    return out;
  }
  if (!matchRfc5424(line, s, out)) matchRfc3164(line, s, out);
  return out;
}

/** End of an RFC 6587 octet-count prefix (`[1-9]\d{0,5} ` before `<\d{1,3}>`), or 0. */
export function octetPrefixEnd(line: string): number {
  const c = line.charCodeAt(0);
  if (!(c >= 49 && c <= 57)) return 0;
  let i = 1;
  while (i < 6 && isDigit(line.charCodeAt(i))) i++;
  if (line.charCodeAt(i) !== 32) return 0;
  return priEnd(line, i + 1) > 0 ? i + 1 : 0;
}

/** `LEEF:1.0|` or `LEEF:2.0|` at `pos`. */
function isLeefStart(line: string, pos: number): boolean {
  const v = line.charCodeAt(pos + 5);
  return (
    line.charCodeAt(pos) === 76 &&
    line.charCodeAt(pos + 1) === 69 &&
    line.charCodeAt(pos + 2) === 69 &&
    line.charCodeAt(pos + 3) === 70 &&
    line.charCodeAt(pos + 4) === 58 &&
    (v === 49 || v === 50) &&
    line.charCodeAt(pos + 6) === 46 &&
    line.charCodeAt(pos + 7) === 48 &&
    line.charCodeAt(pos + 8) === 124
  );
}

/** Index after `<\d{1,3}>` at `pos`, or -1. */
function priEnd(line: string, pos: number): number {
  if (line.charCodeAt(pos) !== 60) return -1;
  let i = pos + 1;
  while (i - pos - 1 < 3 && isDigit(line.charCodeAt(i))) i++;
  if (i === pos + 1 || line.charCodeAt(i) !== 62) return -1;
  return i + 1;
}

function priValue(line: string, pos: number, end: number): number {
  let v = 0;
  for (let i = pos + 1; i < end - 1; i++) v = v * 10 + (line.charCodeAt(i) - 48);
  return v;
}

function matchRfc5424(line: string, s: number, out: SyslogHeader): boolean {
  const pe = priEnd(line, s);
  if (pe < 0) return false;
  // VERSION [1-9]\d{0,2} then SP
  const v0 = line.charCodeAt(pe);
  if (!(v0 >= 49 && v0 <= 57)) return false;
  let i = pe + 1;
  while (i - pe < 3 && isDigit(line.charCodeAt(i))) i++;
  if (line.charCodeAt(i) !== 32) return false;
  i++;
  const tsStart = i;
  let tsEnd: number;
  if (line.charCodeAt(i) === 45) {
    tsEnd = i + 1;
  } else {
    tsEnd = rfc3339End(line, i);
    if (tsEnd < 0) return false;
  }
  if (line.charCodeAt(tsEnd) !== 32) return false;
  const hostStart = tsEnd + 1;
  let h = hostStart;
  while (h < line.length && !isSpace(line.charCodeAt(h))) h++;
  if (h === hostStart || h - hostStart > 255 || line.charCodeAt(h) !== 32) return false;
  out.kind = 'rfc5424';
  out.pri = priValue(line, s, pe);
  out.timestampStart = tsEnd - tsStart === 1 ? -1 : tsStart;
  out.timestampEnd = tsEnd - tsStart === 1 ? -1 : tsEnd;
  out.hostnameStart = hostStart;
  out.hostnameEnd = h;
  out.end = h + 1;
  return true;
}

/** End of `\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})` at `i`, or -1. */
function rfc3339End(line: string, i: number): number {
  if (!digits(line, i, 4) || line.charCodeAt(i + 4) !== 45) return -1;
  if (!digits(line, i + 5, 2) || line.charCodeAt(i + 7) !== 45) return -1;
  if (!digits(line, i + 8, 2) || line.charCodeAt(i + 10) !== 84) return -1;
  if (!digits(line, i + 11, 2) || line.charCodeAt(i + 13) !== 58) return -1;
  if (!digits(line, i + 14, 2) || line.charCodeAt(i + 16) !== 58) return -1;
  if (!digits(line, i + 17, 2)) return -1;
  let p = i + 19;
  if (line.charCodeAt(p) === 46) {
    let d = p + 1;
    while (d - p - 1 < 9 && isDigit(line.charCodeAt(d))) d++;
    if (d === p + 1) return -1;
    p = d;
  }
  const z = line.charCodeAt(p);
  if (z === 90) return p + 1;
  if (z !== 43 && z !== 45) return -1;
  if (!digits(line, p + 1, 2) || line.charCodeAt(p + 3) !== 58 || !digits(line, p + 4, 2)) return -1;
  return p + 6;
}

function matchRfc3164(line: string, s: number, out: SyslogHeader): boolean {
  let i = s;
  let pri = -1;
  if (line.charCodeAt(i) === 60) {
    const pe = priEnd(line, i);
    if (pe < 0) return false;
    pri = priValue(line, i, pe);
    i = pe;
  }
  const tsStart = i;
  if (!isMonthAt(line, i) || line.charCodeAt(i + 3) !== 32) return false;
  const d0 = line.charCodeAt(i + 4);
  if (!(d0 === 32 || (d0 >= 48 && d0 <= 51)) || !isDigit(line.charCodeAt(i + 5))) return false;
  if (line.charCodeAt(i + 6) !== 32) return false;
  i += 7;
  if (digits(line, i, 4) && line.charCodeAt(i + 4) === 32) i += 5;
  if (!digits(line, i, 2) || line.charCodeAt(i + 2) !== 58) return false;
  if (!digits(line, i + 3, 2) || line.charCodeAt(i + 5) !== 58 || !digits(line, i + 6, 2)) return false;
  const tsEnd = i + 8;
  if (line.charCodeAt(tsEnd) !== 32) return false;
  const hostStart = tsEnd + 1;
  let h = hostStart;
  while (h < line.length && !isSpace(line.charCodeAt(h))) h++;
  if (h === hostStart || line.charCodeAt(h) !== 32) return false;
  out.kind = 'rfc3164';
  out.pri = pri;
  out.timestampStart = tsStart;
  out.timestampEnd = tsEnd;
  out.hostnameStart = hostStart;
  out.hostnameEnd = h;
  out.end = h + 1;
  return true;
}

/** `Jan`…`Dec` (exact case) at `i`. */
function isMonthAt(line: string, i: number): boolean {
  const a = line.charCodeAt(i);
  const b = line.charCodeAt(i + 1);
  const c = line.charCodeAt(i + 2);
  switch (a) {
    case 74: // J: Jan Jun Jul
      return (b === 97 && c === 110) || (b === 117 && (c === 110 || c === 108));
    case 70: // F: Feb
      return b === 101 && c === 98;
    case 77: // M: Mar May
      return b === 97 && (c === 114 || c === 121);
    case 65: // A: Apr Aug
      return (b === 112 && c === 114) || (b === 117 && c === 103);
    case 83: // S: Sep
      return b === 101 && c === 112;
    case 79: // O: Oct
      return b === 99 && c === 116;
    case 78: // N: Nov
      return b === 111 && c === 118;
    case 68: // D: Dec
      return b === 101 && c === 99;
    default:
      return false;
  }
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function digits(line: string, pos: number, n: number): boolean {
  for (let i = pos; i < pos + n; i++) {
    if (!isDigit(line.charCodeAt(i))) return false;
  }
  return true;
}

/** JavaScript's `\s`: what `\S` in the reference regexes excludes. */
function isSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 160) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}
