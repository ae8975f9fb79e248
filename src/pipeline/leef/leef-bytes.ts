// The LEEF layout scan of leef-layout.ts on bytes: the same answers for a line held as UTF-8 bytes
// `buf[s, e)` whose bytes are all ASCII (then every byte is one character and offsets agree).
// Callers check that first and take the string functions for any other line. Reads past the
// line answer -1, which fails every test a character would fail (as charCodeAt's NaN does there).

import { delimiterOf } from './leef-layout.ts';

/** Where the parts of a LEEF line are, as byte offsets into the buffer (see LeefLayout). */
export interface LeefByteLayout {
  /** Offset of `LEEF:`. */
  start: number;
  /** Offset of the first attribute byte. */
  attrStart: number;
  /** Where trailing CRs begin (the line's end when there are none). */
  end: number;
  /** The attribute delimiter as a string (one UTF-16 unit). */
  delimiter: string;
  /** The delimiter's byte, or -2 when it is not ASCII (it then cannot occur in an ASCII line). */
  delimiterByte: number;
  /** LEEF 1.0-style label rules: no field 6 and not the PAN-OS `|` quirk. */
  noDelimiterField: boolean;
}

/** A layout record to fill (one per caller). */
export function newLeefByteLayout(): LeefByteLayout {
  return { start: 0, attrStart: 0, end: 0, delimiter: '\t', delimiterByte: 9, noDelimiterField: true };
}

/**
 * What the byte functions below keep from one call to the next, for one shipment pass (a reader
 * and the frame writer beside it): DataViews over the last buffer scanned and the last one written
 * (lines of one buffer come one after another, and a DataView per call would cost an allocation),
 * and the last spelled-out delimiter field read. A pass owns one, so a buffer of an earlier
 * shipment is never kept alive, or a memo reused, by another.
 */
export class LeefByteScratch {
  #inBuf: Buffer | null = null;
  #inView = new DataView(new ArrayBuffer(0));
  // Kept apart from the input's: the two alternate line by line.
  #outBuf: Buffer | null = null;
  #outView = new DataView(new ArrayBuffer(0));
  /** The last delimiter field spelled out (`x09`, `0x5E`) and what it names: they repeat line after line. */
  field = Buffer.alloc(0);
  fieldDelimiter: string | null = null;

  /** A DataView over `buf`, an input buffer. */
  viewOf(buf: Buffer): DataView {
    if (buf !== this.#inBuf) {
      this.#inBuf = buf;
      this.#inView = new DataView(buf.buffer as ArrayBuffer, buf.byteOffset, buf.length);
    }
    return this.#inView;
  }

  /** A DataView over `out`, an output buffer. */
  outViewOf(out: Buffer): DataView {
    if (out !== this.#outBuf) {
      this.#outBuf = out;
      this.#outView = new DataView(out.buffer as ArrayBuffer, out.byteOffset, out.length);
    }
    return this.#outView;
  }
}

const MAX_CANDIDATES = 4;
const PIPE = 124;

/**
 * scanLeefInto for the ASCII line `buf[s, e)`: `first` is the offset of the first `LEEF:` at or
 * after `s` (or any value >= e when there is none; see leefStartIn). False when the line holds
 * no LEEF header.
 */
export function scanLeefBytes(
  buf: Buffer,
  s: number,
  e: number,
  first: number,
  out: LeefByteLayout,
  scratch: LeefByteScratch,
): boolean {
  let end = e;
  while (end > s && buf[end - 1] === 13) end--;
  let start = first;
  for (let attempt = 0; attempt < MAX_CANDIDATES && start >= s && start < end; attempt++) {
    if (layoutAt(buf, start, end, e, out, scratch)) return true;
    start = leefStartIn(buf, start + 1, e);
  }
  return false;
}

function layoutAt(
  buf: Buffer,
  start: number,
  end: number,
  e: number,
  out: LeefByteLayout,
  scratch: LeefByteScratch,
): boolean {
  const v = start + 5;
  const c = v < e ? (buf[v] as number) : -1;
  if (c < 48 || c > 57) return false;
  let versionEnd = v + 1;
  while (versionEnd < end && versionEnd - v <= 8 && buf[versionEnd] !== PIPE) versionEnd++;
  if (versionEnd >= end || buf[versionEnd] !== PIPE) return false;
  // Vendor, product, version and event id: the fourth `|` not escaped by a `\` before it.
  let eventIdEnd = versionEnd + 1;
  let pipes = 0;
  let previous = PIPE;
  for (; eventIdEnd < end; eventIdEnd++) {
    const b = buf[eventIdEnd] as number;
    if (b === PIPE && previous !== 92 && ++pipes === 4) break;
    previous = b;
  }
  if (pipes < 4) return false;

  let attrStart = eventIdEnd + 1;
  let hasField = false;
  let delimiter = '\t';
  if (c === 50) {
    if (attrStart + 1 < end && buf[attrStart] === PIPE && buf[attrStart + 1] === PIPE) {
      hasField = true;
      delimiter = '|';
      attrStart += 2;
    } else {
      // A field 6 longer than 6 characters is no delimiter spec (delimiterAt), so look no further.
      let q = attrStart;
      const stop = Math.min(end, attrStart + 7);
      while (q < stop && buf[q] !== PIPE) q++;
      if (q < stop) {
        const d = delimiterBetween(buf, attrStart, q, scratch);
        if (d !== null) {
          hasField = true;
          delimiter = d;
          attrStart = q + 1;
        }
      }
    }
  } else if (indexIn(buf, 9, attrStart, end, scratch) < 0) {
    // LEEF 1.0 without a TAB: the PAN-OS `|` quirk when the first chunk before a `|` is `k=v`.
    const pipe = indexIn(buf, PIPE, attrStart, end, scratch);
    if (pipe >= 0) {
      const eq = indexIn(buf, 61, attrStart, end, scratch);
      if (eq > attrStart && eq < pipe) delimiter = '|';
    }
  }
  const code = delimiter.charCodeAt(0);
  out.start = start;
  out.attrStart = attrStart;
  out.end = end;
  out.delimiter = delimiter;
  out.delimiterByte = code < 128 ? code : -2;
  out.noDelimiterField = !hasField && delimiter !== '|';
  return true;
}

/** The delimiter field 6 `buf[from, to)` names, or null (delimiterAt of leef-layout.ts). */
function delimiterBetween(buf: Buffer, from: number, to: number, scratch: LeefByteScratch): string | null {
  const n = to - from;
  if (n === 0) return '\t';
  if (n === 1) return CHARS[buf[from] as number] as string;
  if (n > 6) return null;
  // Spelled-out fields (`x09`, `0x5E`) repeat line after line: keep the last one.
  if (n === scratch.field.length && bytesEqual(buf, from, to, scratch.field)) return scratch.fieldDelimiter;
  const d = delimiterOf(buf.toString('latin1', from, to));
  scratch.field = Buffer.from(buf.subarray(from, to));
  scratch.fieldDelimiter = d;
  return d;
}

const CHARS = Array.from({ length: 128 }, (_, i) => String.fromCharCode(i));

/**
 * Offset of `byte` in `buf[from, to)`, or -1. Reads four bytes at a time through a DataView (a
 * word holds the byte when `w ^ repeated` has a zero byte; the lowest flagged byte is the first
 * one): lines are scanned in JavaScript, and a native search per field would cost more in calls
 * than it saves.
 */
export function indexIn(
  buf: Buffer,
  byte: number,
  from: number,
  to: number,
  scratch: LeefByteScratch,
): number {
  let i = from;
  if (to - from >= 8) {
    const dv = scratch.viewOf(buf);
    const repeated = byte * 0x01010101;
    const last = to - 4;
    for (; i <= last; i += 4) {
      const w = dv.getUint32(i, true) ^ repeated;
      const found = (w - 0x01010101) & ~w & 0x80808080;
      if (found !== 0) return i + ((31 - Math.clz32(found & -found)) >> 3);
    }
  }
  for (; i < to; i++) if (buf[i] === byte) return i;
  return -1;
}

/**
 * valueEnd of leef-layout.ts on bytes: end of the attribute value starting at `from` — the next
 * delimiter that starts a `k=v` chunk, or the start of a trailing run of delimiters, or `end`.
 */
export function valueEndBytes(
  buf: Buffer,
  from: number,
  end: number,
  delimiter: number,
  scratch: LeefByteScratch,
): number {
  let p = from;
  for (;;) {
    const d = indexIn(buf, delimiter, p, end, scratch);
    if (d < 0) return end;
    let chunkStart = d + 1;
    while (chunkStart < end && buf[chunkStart] === delimiter) chunkStart++;
    if (chunkStart >= end) return d;
    // The chunk up to its `=` (a key is short) or the next delimiter, whichever comes first.
    let i = chunkStart;
    for (; i < end; i++) {
      const c = buf[i];
      if (c === delimiter) break;
      if (c === 61) return chunkStart - 1;
    }
    if (i >= end) return end;
    p = i;
  }
}

/**
 * Finds occurrences of a byte sequence that most lines lack (a CR, `labIndex=`) in one buffer, line
 * after line. Each call searches the whole buffer from `from` once and remembers the hit, so a
 * needle missing from a chunk costs one search for all its lines. Calls with a `from` lower than the
 * last one search again. The native search looks for the needle's first byte with memchr and
 * compares from there, so a needle starting with a common byte is slow (`devTimeFormat=` from its
 * `d` ran at 1.3 GB/s); `anchor` starts the search at a rarer byte of the needle (`F` there).
 */
export class NeedleCursor {
  readonly #needle: Buffer;
  /** The needle from `anchor` on: what the native search looks for. */
  readonly #tail: Buffer;
  readonly #anchor: number;
  #buf: Buffer | null = null;
  #from = 0;
  #hit = 0;

  /**
   * `anchor`: where in the needle the native search starts, best at a byte that is rare in the
   * text (the search looks for that first byte with memchr, so a common one makes it slow); the
   * bytes before it are compared at each candidate.
   */
  constructor(needle: string, anchor = 0) {
    this.#needle = Buffer.from(needle, 'latin1');
    this.#anchor = anchor;
    this.#tail = this.#needle.subarray(anchor);
  }

  /** First offset >= `from` where the needle starts in `buf`, or `buf.length` when none. */
  at(buf: Buffer, from: number): number {
    if (buf !== this.#buf || from < this.#from) {
      this.#buf = buf;
      this.#hit = -1;
    }
    this.#from = from;
    if (this.#hit < from) this.#hit = this.#search(buf, from);
    return this.#hit;
  }

  #search(buf: Buffer, from: number): number {
    const a = this.#anchor;
    let p = from + a;
    for (;;) {
      const t = buf.indexOf(this.#tail, p);
      if (t < 0) return buf.length;
      if (prefixEqual(buf, t - a, this.#needle, a)) return t - a;
      p = t + 1;
    }
  }
}

/**
 * findValue of leef-layout.ts on bytes: offset of the value after `needle` (`key=`) in the first
 * attribute chunk that starts with it, or -1. Searched within the line, first right at the first
 * attribute, then by its byte `needle[anchor]` (best a rare one) four bytes at a time.
 */
export function findValueInLine(
  buf: Buffer,
  L: LeefByteLayout,
  needle: Buffer,
  anchor: number,
  scratch: LeefByteScratch,
): number {
  const { attrStart, end, delimiterByte } = L;
  const n = needle.length;
  if (attrStart + n > end) return -1;
  if (prefixEqual(buf, attrStart, needle, n)) return attrStart + n;
  const a = needle[anchor] as number;
  let p = attrStart + 1 + anchor;
  for (;;) {
    p = indexIn(buf, a, p, end, scratch);
    if (p < 0) return -1;
    const i = p - anchor;
    if (i + n > end) return -1;
    if (buf[i - 1] === delimiterByte && prefixEqual(buf, i, needle, n)) return i + n;
    p++;
  }
}

/**
 * findValueInLine for the keys that start after `from` (a chunk starting at `from` or before is
 * not looked at): the value's offset, or -1. Kept apart from findValueInLine on purpose: making
 * that one call this measured 3-4 % slower on the epoch path, the hottest loop of a shipment.
 */
export function findValueAfter(
  buf: Buffer,
  L: LeefByteLayout,
  needle: Buffer,
  anchor: number,
  from: number,
  scratch: LeefByteScratch,
): number {
  const { end, delimiterByte } = L;
  const n = needle.length;
  const a = needle[anchor] as number;
  let p = from + 1 + anchor;
  for (;;) {
    p = indexIn(buf, a, p, end, scratch);
    if (p < 0) return -1;
    const i = p - anchor;
    if (i + n > end) return -1;
    if (buf[i - 1] === delimiterByte && prefixEqual(buf, i, needle, n)) return i + n;
    p++;
  }
}

/** Offset of the first `LEEF:` in `buf[s, e)`, or `e` (a loop: it stands near the start). */
export function leefStartIn(buf: Buffer, s: number, e: number): number {
  const last = e - 5;
  for (let i = s; i <= last; i++) if (isLeefAt(buf, i, e)) return i;
  return e;
}

/** Whether `buf[s, e)` starts with `LEEF:`. */
export function isLeefAt(buf: Buffer, s: number, e: number): boolean {
  return (
    e - s >= 5 &&
    buf[s] === 76 &&
    buf[s + 1] === 69 &&
    buf[s + 2] === 69 &&
    buf[s + 3] === 70 &&
    buf[s + 4] === 58
  );
}

/**
 * findValue of leef-layout.ts on bytes with a NeedleCursor: offset of the value after `key=` in
 * the first attribute chunk that starts with it, or -1; for keys most lines lack (one search per
 * chunk instead of a scan of every line). `cursor` searches for `key=`, `needleLength` long.
 */
export function findValueBytes(
  buf: Buffer,
  L: LeefByteLayout,
  cursor: NeedleCursor,
  needleLength: number,
): number {
  const { attrStart, end, delimiterByte } = L;
  let i = cursor.at(buf, attrStart);
  while (i + needleLength <= end) {
    if (i === attrStart || buf[i - 1] === delimiterByte) return i + needleLength;
    i = cursor.at(buf, i + 1);
  }
  return -1;
}

/** Epoch value of `buf[start, end)` in ms when it is 10 or 13 ASCII digits, else -1 (epochMsAt). */
export function epochMsBytes(buf: Buffer, start: number, end: number, scratch: LeefByteScratch): number {
  const digits = end - start;
  if ((digits !== 13 && digits !== 10) || start < 0 || end > buf.length) return -1;
  // The last eight digits as two words, the five or two before them as a byte and a word or two
  // bytes: a loop over 13 digits is 13 dependent steps with a test each, in both passes.
  const dv = scratch.viewOf(buf);
  const low = fourDigits(dv.getUint32(end - 8, true));
  const lowest = fourDigits(dv.getUint32(end - 4, true));
  const first = (buf[start] as number) - 48;
  let high: number;
  if (digits === 13) {
    const next = fourDigits(dv.getUint32(start + 1, true));
    high = next < 0 ? -1 : first * 10_000 + next;
  } else {
    const second = (buf[start + 1] as number) - 48;
    high = second < 0 || second > 9 ? -1 : first * 10 + second;
  }
  if (low < 0 || lowest < 0 || high < 0 || first < 0 || first > 9) return -1;
  const value = high * 100_000_000 + low * 10_000 + lowest;
  return digits === 10 ? value * 1000 : value;
}

/**
 * The number four ASCII digits in the little-endian word `w` write (the first digit in its lowest
 * byte), or -1 when a byte is no digit. A byte is a digit when its high nibble is 3 and adding 6
 * keeps it 3; then pairs of digits are combined within the word, and the two pairs.
 */
function fourDigits(w: number): number {
  if (((w & 0xf0f0f0f0) | (((w + 0x06060606) & 0xf0f0f0f0) >>> 4)) !== 0x33333333) return -1;
  const pairs = (Math.imul(w & 0x0f0f0f0f, 10) + ((w >>> 8) & 0x000f000f)) & 0x00ff00ff;
  return (pairs & 0xff) * 100 + (pairs >>> 16);
}

/**
 * writeDigits for an epoch value (nearly every line a shipment rewrites): 13 or 10 digits are
 * written four a store (a table of 10,000 words, three divisions); other widths go to writeDigits.
 * Apart from writeDigits so that one stays small enough for V8 to inline where it is called.
 */
export function writeEpochDigits(
  out: Buffer,
  pos: number,
  value: number,
  digits: number,
  scratch: LeefByteScratch,
): number {
  if (digits === 13 && value < 1e13) {
    const hi = Math.floor(value / 100_000_000);
    const lo = (value - hi * 100_000_000) | 0;
    const first = (hi / 10_000) | 0;
    const mid = (lo / 10_000) | 0;
    const dv = scratch.outViewOf(out);
    out[pos] = 48 + first;
    dv.setUint32(pos + 1, FOUR_DIGITS[hi - first * 10_000] as number, true);
    dv.setUint32(pos + 5, FOUR_DIGITS[mid] as number, true);
    dv.setUint32(pos + 9, FOUR_DIGITS[lo - mid * 10_000] as number, true);
    return pos + 13;
  }
  if (digits === 10 && value < 1e10) {
    const hi = Math.floor(value / 100_000_000);
    const lo = (value - hi * 100_000_000) | 0;
    const mid = (lo / 10_000) | 0;
    const dv = scratch.outViewOf(out);
    out[pos] = DIGIT_PAIRS[2 * hi] as number;
    out[pos + 1] = DIGIT_PAIRS[2 * hi + 1] as number;
    dv.setUint32(pos + 2, FOUR_DIGITS[mid] as number, true);
    dv.setUint32(pos + 6, FOUR_DIGITS[lo - mid * 10_000] as number, true);
    return pos + 10;
  }
  return writeDigits(out, pos, value, digits);
}

/**
 * Writes `value` (a non-negative integer below 10^15) in decimal with exactly `digits` digits
 * (zero-padded; `digits` must be enough) at `pos`; returns the offset after it (epochDigits).
 */
export function writeDigits(out: Buffer, pos: number, value: number, digits: number): number {
  // Two int32 halves: modulo and division on doubles are several times slower. Two digits a
  // step from a table: half the divisions (≈ 15 ns less per epoch value).
  let hi = Math.floor(value / 10_000_000) | 0;
  let lo = (value - hi * 10_000_000) | 0;
  let i = pos + digits - 1;
  // The low half: seven digits (its leading zeros are digits of the value).
  let n = 0;
  for (; n < 6 && i > pos; n += 2, i -= 2) {
    const q = (lo / 100) | 0;
    const r = 2 * (lo - q * 100);
    out[i] = DIGIT_PAIRS[r + 1] as number;
    out[i - 1] = DIGIT_PAIRS[r] as number;
    lo = q;
  }
  for (; n < 7 && i >= pos; n++, i--) {
    const q = (lo / 10) | 0;
    out[i] = 48 + lo - q * 10;
    lo = q;
  }
  for (; i > pos; i -= 2) {
    const q = (hi / 100) | 0;
    const r = 2 * (hi - q * 100);
    out[i] = DIGIT_PAIRS[r + 1] as number;
    out[i - 1] = DIGIT_PAIRS[r] as number;
    hi = q;
  }
  if (i === pos) out[i] = 48 + (hi % 10);
  return pos + digits;
}

// `00` to `99` as ASCII bytes, two per number.
const DIGIT_PAIRS = Uint8Array.from(
  { length: 200 },
  (_, k) => 48 + (k % 2 === 0 ? (k / 20) | 0 : (k >> 1) % 10),
);

// `0000` to `9999` as four ASCII bytes in a little-endian word (the first digit in the lowest byte).
const FOUR_DIGITS = Uint32Array.from(
  { length: 10_000 },
  (_, n) =>
    (48 + ((n / 1000) | 0)) |
    ((48 + (((n / 100) | 0) % 10)) << 8) |
    ((48 + (((n / 10) | 0) % 10)) << 16) |
    ((48 + (n % 10)) << 24),
);

/** Decimal digits of a non-negative integer below 10^16 (at least 1). */
export function digitCount(value: number): number {
  // Epoch values (10-13 digits) and frame lengths (3-5) both take a few steps.
  let n = 1;
  let p = 10;
  if (value >= 1e9) {
    n = 10;
    p = 1e10;
  }
  while (value >= p && n < 16) {
    p *= 10;
    n++;
  }
  return n;
}

/** Whether `buf[s, e)` equals `other` byte for byte. */
export function bytesEqual(buf: Buffer, s: number, e: number, other: Buffer): boolean {
  return e - s === other.length && prefixEqual(buf, s, other, other.length);
}

/** Whether `buf[s, s + n)` equals the first `n` bytes of `other`. */
export function prefixEqual(buf: Buffer, s: number, other: Buffer, n: number): boolean {
  for (let i = 0; i < n; i++) if (buf[s + i] !== other[i]) return false;
  return true;
}

/**
 * Writes the ASCII string `text` at `out[pos]` (one byte per character); returns the offset after
 * it. A loop: for the short texts written per line (timestamps) it beats Buffer.write, which
 * crosses into C++ and first flattens a concatenated string.
 */
export function writeAscii(out: Buffer, pos: number, text: string): number {
  const n = text.length;
  for (let i = 0; i < n; i++) out[pos + i] = text.charCodeAt(i);
  return pos + n;
}
