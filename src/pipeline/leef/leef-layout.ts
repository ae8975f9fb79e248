/**
 * Where the parts of a LEEF line are, found without building any attribute list: the hot path
 * (devTime lookup, `labIndex=` insertion) only needs these offsets.
 */
export interface LeefLayout {
  /** Index of `LEEF:`; text before it is a syslog header, an octet-count prefix or a TAG. */
  start: number;
  /** Indexes of the `|` ending version, vendor, product, product version and event id. */
  versionEnd: number;
  vendorEnd: number;
  productEnd: number;
  productVersionEnd: number;
  eventIdEnd: number;
  /** LEEF 2.0 field 6 exactly as written (`^`, `x5E`, `0x09`, ''), or null when absent. */
  delimiterField: string | null;
  /** The attribute delimiter in effect (TAB for LEEF 1.0 and when field 6 is absent or empty). */
  delimiter: string;
  /** LEEF 1.0 with `|` between attributes (PAN-OS). */
  pipeQuirk: boolean;
  /** Index of the first attribute character. */
  attrStart: number;
  /** Index where a trailing CR/LF starts (line length when there is none). */
  end: number;
}

const LEEF = 'LEEF:';

/** A layout record to fill with scanLeefInto (one per caller, reused line after line). */
export function newLeefLayout(): LeefLayout {
  return {
    start: 0,
    versionEnd: 0,
    vendorEnd: 0,
    productEnd: 0,
    productVersionEnd: 0,
    eventIdEnd: 0,
    delimiterField: null,
    delimiter: '\t',
    pipeQuirk: false,
    attrStart: 0,
    end: 0,
  };
}

/** Layout of `line`, or null when it holds no LEEF header (`LEEF:<version>|` and five `|`-ended fields). */
export function scanLeef(line: string): LeefLayout | null {
  const out = newLeefLayout();
  return scanLeefInto(line, out) ? out : null;
}

/** Fills `out` with the layout of `line`; false (and `out` undefined) when it holds no LEEF header. */
export function scanLeefInto(line: string, out: LeefLayout): boolean {
  if (typeof line !== 'string') return false;
  let end = line.length;
  // A line from a CRLF file keeps its terminator out of the last attribute value.
  while (end > 0) {
    const c = line.charCodeAt(end - 1);
    if (c !== 10 && c !== 13) break;
    end--;
  }
  // Bare lines (the common archive form) start with LEEF: and need no search.
  let start =
    line.charCodeAt(0) === 76 &&
    line.charCodeAt(1) === 69 &&
    line.charCodeAt(4) === 58 &&
    line.startsWith(LEEF)
      ? 0
      : line.indexOf(LEEF);
  // A few candidates only: `LEEF:` inside a TAG or a value is rare, and a bound keeps a hostile
  // line of many `LEEF:` fragments linear.
  for (let attempt = 0; attempt < MAX_CANDIDATES && start >= 0 && start < end; attempt++) {
    if (layoutAt(line, start, end, out)) return true;
    start = line.indexOf(LEEF, start + 1);
  }
  return false;
}

const MAX_CANDIDATES = 4;

function layoutAt(line: string, start: number, end: number, out: LeefLayout): boolean {
  const v = start + LEEF.length;
  const c = line.charCodeAt(v);
  if (c < 48 || c > 57) return false; // version starts with a digit
  let versionEnd = v + 1;
  while (versionEnd < end && versionEnd - v <= 8 && line.charCodeAt(versionEnd) !== 124) versionEnd++;
  if (versionEnd >= end || line.charCodeAt(versionEnd) !== 124) return false;
  const vendorEnd = headerPipe(line, versionEnd + 1, end);
  if (vendorEnd < 0) return false;
  const productEnd = headerPipe(line, vendorEnd + 1, end);
  if (productEnd < 0) return false;
  const productVersionEnd = headerPipe(line, productEnd + 1, end);
  if (productVersionEnd < 0) return false;
  const eventIdEnd = headerPipe(line, productVersionEnd + 1, end);
  if (eventIdEnd < 0) return false;

  let attrStart = eventIdEnd + 1;
  let delimiterField: string | null = null;
  let delimiter = '\t';
  let pipeQuirk = false;
  if (c === 50) {
    // LEEF 2.0: field 6 names the delimiter, but emitters in the wild omit it; a candidate that is
    // no delimiter spec (e.g. it holds `k=v`) means "absent", with TAB (as OpenTelemetry does).
    if (line.charCodeAt(attrStart) === 124 && line.charCodeAt(attrStart + 1) === 124 && attrStart + 1 < end) {
      delimiterField = '|';
      delimiter = '|';
      attrStart += 2;
    } else {
      const q = line.indexOf('|', attrStart);
      if (q >= 0 && q < end) {
        const d = delimiterAt(line, attrStart, q);
        if (d !== null) {
          delimiterField = q - attrStart === 1 ? d : line.slice(attrStart, q);
          delimiter = d;
          attrStart = q + 1;
        }
      }
    }
  } else {
    // LEEF 1.0 is TAB-delimited, except PAN-OS which uses `|`: no TAB after field 5, and the
    // first attribute chunk before a `|` is a `k=v` pair.
    const tab = line.indexOf('\t', attrStart);
    if (tab < 0 || tab >= end) {
      const pipe = line.indexOf('|', attrStart);
      if (pipe >= 0 && pipe < end) {
        const eq = line.indexOf('=', attrStart);
        if (eq > attrStart && eq < pipe) {
          pipeQuirk = true;
          delimiter = '|';
        }
      }
    }
  }
  out.start = start;
  out.versionEnd = versionEnd;
  out.vendorEnd = vendorEnd;
  out.productEnd = productEnd;
  out.productVersionEnd = productVersionEnd;
  out.eventIdEnd = eventIdEnd;
  out.delimiterField = delimiterField;
  out.delimiter = delimiter;
  out.pipeQuirk = pipeQuirk;
  out.attrStart = attrStart;
  out.end = end;
  return true;
}

/** The delimiter that field 6 `line[from, to)` names, or null (see delimiterOf), without slicing. */
function delimiterAt(line: string, from: number, to: number): string | null {
  const n = to - from;
  if (n === 0) return '\t';
  if (n === 1) return DELIMITER_CHARS[line.charCodeAt(from)] ?? line.charAt(from);
  if (n > 6) return null;
  return delimiterOf(line.slice(from, to));
}

// One-character strings for ASCII delimiters, so reading one allocates nothing.
const DELIMITER_CHARS = Array.from({ length: 128 }, (_, i) => String.fromCharCode(i));

/** The `|` ending a header field at or after `from` (a `\|` is part of the field), or -1. */
function headerPipe(line: string, from: number, end: number): number {
  let i = line.indexOf('|', from);
  while (i >= 0 && i < end && i > from && line.charCodeAt(i - 1) === 92) i = line.indexOf('|', i + 1);
  return i >= 0 && i < end ? i : -1;
}

/**
 * The delimiter a LEEF 2.0 field 6 names, or null when it is no delimiter spec: one literal
 * character, or `x`/`0x` with 1-4 hex digits (IBM's grammar; parsers disagree, so reading is
 * generous and re-emission keeps the field as written). Empty means the default TAB.
 */
export function delimiterOf(field: string): string | null {
  if (field.length === 0) return '\t';
  if (field.length === 1) return field;
  let i = 0;
  if (field.charCodeAt(0) === 48 && (field.charCodeAt(1) | 32) === 120) i = 2;
  else if ((field.charCodeAt(0) | 32) === 120) i = 1;
  else return null;
  const digits = field.length - i;
  if (digits < 1 || digits > 4) return null;
  let code = 0;
  for (; i < field.length; i++) {
    const h = hexValue(field.charCodeAt(i));
    if (h < 0) return null;
    code = code * 16 + h;
  }
  return String.fromCharCode(code);
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 32;
  if (l >= 97 && l <= 102) return l - 87;
  return -1;
}

/**
 * End of the attribute value starting at `from`: the next delimiter that starts a `k=v` chunk,
 * or the start of a trailing run of delimiters, or `end`. A chunk without `=` belongs to the
 * value before it (a delimiter inside a value), which keeps parsing lossless.
 */
export function valueEnd(line: string, from: number, end: number, delimiter: string): number {
  const dl = delimiter.length;
  if (dl === 0) return end;
  let p = from;
  for (;;) {
    const d = line.indexOf(delimiter, p);
    if (d < 0 || d >= end) return end;
    // Skip the whole run of delimiters at once (linear even for a line of 100,000 TABs).
    let chunkStart = d + dl;
    while (chunkStart < end && line.startsWith(delimiter, chunkStart)) chunkStart += dl;
    if (chunkStart >= end) return d;
    let next = line.indexOf(delimiter, chunkStart);
    if (next < 0 || next > end) next = end;
    for (let i = chunkStart; i < next; i++) {
      if (line.charCodeAt(i) === 61) return chunkStart - dl;
    }
    p = next;
    if (p >= end) return end;
  }
}

/** Whether `line[from, end)` is nothing but repeated delimiters. */
export function onlyDelimiters(line: string, from: number, end: number, delimiter: string): boolean {
  const dl = delimiter.length;
  if ((end - from) % dl !== 0) return false;
  for (let i = from; i < end; i += dl) {
    if (!line.startsWith(delimiter, i)) return false;
  }
  return true;
}

/**
 * Index of the value after `needle` (`key=`) in the first attribute chunk at or after `from` that
 * starts with it, or -1. Taking the needle ready-made keeps the hot path free of concatenation.
 */
export function findValue(line: string, layout: LeefLayout, needle: string, from = layout.attrStart): number {
  const { attrStart, end, delimiter } = layout;
  const dl = delimiter.length;
  let i = line.indexOf(needle, Math.max(from, attrStart));
  while (i >= 0 && i + needle.length <= end) {
    if (i === attrStart || line.startsWith(delimiter, i - dl)) return i + needle.length;
    i = line.indexOf(needle, i + 1);
  }
  return -1;
}
