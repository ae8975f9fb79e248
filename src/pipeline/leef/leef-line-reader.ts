// Both rebase passes on lines held as bytes (see byte-lines.ts), for ASCII lines: the same times,
// spans and rewritten values as readEventTime and shiftLine of leef-rebase.ts, found by searching
// bytes instead of building a string per line. Epoch devTime (the common case) is read and written
// without any string; other values are decoded as the short slices they are. Lines with other bytes
// than ASCII go to the string functions (the caller checks; see isAsciiLine).

import { isAscii } from 'node:buffer';
import type { ByteLines } from '../archive/byte-lines.ts';
import { ShipmentScratch } from '../shipment/shipment-scratch.ts';
import { newSyslogHeader, type SyslogHeader } from '../syslog/detect-syslog-header.ts';
import { detectSyslogHeaderBytes, mayStartHeaderByte } from '../syslog/detect-syslog-header-bytes.ts';
import { HeaderTimeMemo } from '../syslog/header-time-memo.ts';
import type { DateFormat } from '../time/date-format.ts';
import { type DevTimeFormats, readDevTime, readDevTimeWith } from '../time/devtime.ts';
import { epochDigits } from '../time/epoch-time.ts';
import { type ParsedTime, writeShiftedOrNull, writtenInstant } from '../time/parsed-time.ts';
import { ShiftedTextMemo } from '../time/shifted-text-memo.ts';
import {
  bytesEqual,
  epochMsBytes,
  findValueAfter,
  findValueBytes,
  findValueInLine,
  isLeefAt,
  type LeefByteLayout,
  type LeefByteScratch,
  leefStartIn,
  NeedleCursor,
  newLeefByteLayout,
  scanLeefBytes,
  valueEndBytes,
} from './leef-bytes.ts';
import type { RebaseContext } from './leef-rebase.ts';
import { TimeStyles } from './time-styles.ts';

/**
 * Pass 1's findings about the lines of each chunk, for pass 2: where `LEEF:`, the attributes and
 * the devTime value start, the delimiter, and what the value reads as: an epoch value's time, or
 * another value's time and style (TimeStyles). Year-less values are not kept: pass 2 reads them
 * against another reference. Seven numbers (28 bytes) per line; pass 2 then neither scans the LEEF
 * header nor searches devTime, nor reads the value again.
 *
 * Lines are known by their entry and offset (ByteLines.offset): pass 2 inflates the same bytes
 * again, or replays the very chunk pass 1 kept, and a buffer of the same offset and length holds
 * the same lines; the line count, the first line's start, the last line's end and the length are
 * checked too. Findings are kept up to `maxBytes` in all (1 MiB covers about 65,000 lines);
 * beyond, pass 1 records nothing and pass 2 reads those lines afresh.
 */
export class LineIndexes {
  readonly #byOffset = new Map<string, LineIndex>();
  readonly #maxBytes: number;
  readonly #styles = new TimeStyles();
  #bytes = 0;

  constructor(maxBytes = DEFAULT_INDEX_BYTES) {
    this.#maxBytes = maxBytes;
  }

  /**
   * A new index for `lines` of the entry known as `entry` (lineIndexKey; filled by
   * LeefLineReader.eventTime), or null once the budget is spent.
   */
  create(lines: ByteLines, entry: string): LineIndex | null {
    const count = lines.starts.length;
    const size = INDEX_HEADER + INDEX_STRIDE * count;
    if (this.#bytes + 4 * size > this.#maxBytes) return null;
    // -1 everywhere: a line pass 1 did not record (not ASCII) is read again in pass 2.
    const index = new Int32Array(size).fill(-1);
    index[0] = count;
    index[1] = count > 0 ? (lines.starts[0] as number) : -1;
    index[2] = count > 0 ? (lines.ends[count - 1] as number) : -1;
    index[3] = lines.buf.length;
    const found = new LineIndex(index, this.#styles);
    this.#byOffset.set(indexKey(entry, lines.offset), found);
    this.#bytes += index.byteLength;
    return found;
  }

  /** The index made for the same lines of the same entry, or null. */
  find(lines: ByteLines, entry: string): LineIndex | null {
    const found = this.#byOffset.get(indexKey(entry, lines.offset));
    if (found === undefined) return null;
    const index = found.data;
    const count = lines.starts.length;
    return index[0] === count &&
      index[1] === (count > 0 ? lines.starts[0] : -1) &&
      index[2] === (count > 0 ? lines.ends[count - 1] : -1) &&
      index[3] === lines.buf.length
      ? found
      : null;
  }
}

/**
 * One chunk's findings (LineIndexes): `data` holds a header and seven numbers per line; the style
 * numbers in it are those of `styles`, the shipment's, which travels with them.
 */
export class LineIndex {
  readonly data: Int32Array;
  readonly styles: TimeStyles;

  constructor(data: Int32Array, styles: TimeStyles) {
    this.data = data;
    this.styles = styles;
  }
}

/**
 * LineIndexes' default budget: two million lines (28 bytes each). Positions for every chunk of a
 * million lines took the main thread from 0.73 to 0.63 s (min of 6; docs/performance-history.md); memory
 * beyond that budget would grow with the archive, up to 7 GiB of it.
 */
export const DEFAULT_INDEX_BYTES = 56 * 1024 * 1024;

function indexKey(entry: string, offset: number): string {
  return `${offset}:${entry}`;
}

const DEV_TIME = Buffer.from('devTime=', 'latin1');
const DEV_TIME_FORMAT = Buffer.from('devTimeFormat=', 'latin1');
// A delimiter among these bytes can split `devTime=` itself: devTime() then searches the whole line.
const DEV_TIME_BYTES = new Set(DEV_TIME);
const INDEX_HEADER = 4;
const INDEX_STRIDE = 7;
// A time as two int32: ms / 10^8 and the rest (13 digits need more than 32 bits).
const TIME_SPLIT = 100_000_000;
const KIND_EPOCH = 1;
/** A value pass 2 reads again (year-less, unreadable, or past the kept styles). */
const KIND_OTHER = 2;
/** A value read as the kept time and style (TimeStyles). */
const KIND_STYLED = 3;
const DELIMITER_CHARS = Array.from({ length: 128 }, (_, i) => String.fromCharCode(i));

/** Whether line `k` of `lines` is all ASCII (the condition for every byte-level reader). */
export function isAsciiLine(lines: ByteLines, k: number): boolean {
  return lines.ascii || isAscii(lines.buf.subarray(lines.starts[k], lines.ends[k]));
}

const MAX_PATTERNS = 8;

/** What devTime() found. */
export const DEV_NONE = 0;
export const DEV_EPOCH = 1;
export const DEV_PARSED = 2;
export const DEV_UNREADABLE = 3;

/**
 * Reads LEEF lines held as bytes, one after another (calls for later lines of the same buffer are
 * cheapest). Not reentrant; results are left in its public fields. One per pass over a shipment:
 * its memos are its own fields and those of the pass's ShipmentScratch.
 */
export class LeefLineReader {
  /** The pass's scratch (also for the lines of the pass that take the string path, see rebasedLine). */
  readonly scratch: ShipmentScratch;
  // Parts of the scratch the hot path uses, one load away.
  readonly #bytes: LeefByteScratch;
  readonly #devTimes: DevTimeFormats;

  /** `scratch`: the pass's; a new one when not given (a reader that is a pass of its own). */
  constructor(scratch: ShipmentScratch = new ShipmentScratch()) {
    this.scratch = scratch;
    this.#bytes = scratch.leefBytes;
    this.#devTimes = scratch.devTimes;
  }

  /** Layout of the last line layout() accepted. */
  readonly L: LeefByteLayout = newLeefByteLayout();
  /** Header detection of the last headerTime() call. */
  readonly H: SyslogHeader = newSyslogHeader();

  // devTime(): the value's span and what it denotes.
  devStart = -1;
  devEnd = -1;
  devMs = Number.NaN;
  /** 10 or 13 for an epoch value. */
  devDigits = 0;
  devParsed: ParsedTime | null = null;

  // headerTime(): the timestamp's span and reading.
  tsStart = -1;
  tsEnd = -1;
  tsParsed: ParsedTime | null = null;

  // shift(): the rewritten values (null: unchanged) and the event time the line carries after it.
  /** Rewritten devTime text (epoch values: see devValue), or null when unchanged. */
  devText: string | null = null;
  /** Epoch devTime after the shift (digits to write, devDigits wide), or -1. */
  devValue = -1;
  tsText: string | null = null;
  eventMs: number | null = null;

  #fmtSeen = false;
  readonly #fmtCursor = new NeedleCursor('devTimeFormat=', 7);
  // devTimeFormat values repeat: recent patterns by their bytes.
  readonly #patterns: PatternSlot[] = [];
  #patternNext = 0;
  // Header timestamps read and written: consecutive events mostly share all but their seconds.
  // One of each per RFC: a file that mixes them would otherwise find the other one's last time.
  readonly #rfc3164Times = new HeaderTimeMemo();
  readonly #rfc5424Times = new HeaderTimeMemo();
  readonly #rfc3164Texts = new ShiftedTextMemo();
  readonly #rfc5424Texts = new ShiftedTextMemo();

  /** scanLeefInto for the ASCII line `buf[s, e)`; fills L. */
  layout(buf: Buffer, s: number, e: number): boolean {
    const first = isLeefAt(buf, s, e) ? s : leefStartIn(buf, s, e);
    return scanLeefBytes(buf, s, e, first, this.L, this.#bytes);
  }

  /**
   * devTime of the LEEF line laid out in L (readDevTimeAt): DEV_NONE without a devTime attribute,
   * DEV_EPOCH (devMs, devDigits), DEV_PARSED (devParsed, devMs) or DEV_UNREADABLE.
   */
  devTime(buf: Buffer, referenceMs: number): number {
    const L = this.L;
    const bytes = this.#bytes;
    this.devParsed = null;
    // Archives that carry devTimeFormat carry it on (nearly) every line: after a line with one, it
    // is searched first, within the line (anchored on `F`) rather than by a native search per line.
    let fs = -2;
    let fe = -1;
    let vs: number;
    if (this.#fmtSeen) {
      fs = findValueInLine(buf, L, DEV_TIME_FORMAT, 7, bytes);
      this.#fmtSeen = fs >= 0;
    }
    if (fs === L.attrStart + DEV_TIME_FORMAT.length && !DEV_TIME_BYTES.has(L.delimiterByte)) {
      // devTimeFormat is the first attribute: no `devTime=` chunk starts inside it (one would
      // end its value), so the search starts after its value.
      fe = valueEndBytes(buf, fs, L.end, L.delimiterByte, bytes);
      vs = findValueAfter(buf, L, DEV_TIME, 3, fe, bytes);
    } else {
      // Anchored on `T`, rarer in attributes than the other letters of the key.
      vs = findValueInLine(buf, L, DEV_TIME, 3, bytes);
    }
    if (vs < 0) return DEV_NONE;
    return this.#readDev(buf, vs, valueEndBytes(buf, vs, L.end, L.delimiterByte, bytes), fs, fe, referenceMs);
  }

  /**
   * The rest of devTime() for the value `buf[vs, ve)`: `fs` is where the devTimeFormat value
   * starts (-1: none, -2: not searched yet), `fe` its end (-1: not known yet).
   */
  #readDev(buf: Buffer, vs: number, ve: number, fs: number, fe: number, referenceMs: number): number {
    const L = this.L;
    this.devStart = vs;
    this.devEnd = ve;
    if (fs === -2) {
      // Lines without devTimeFormat (those that follow one without): one native search per chunk
      // for `Format=` — its `F` is rare in attributes — answers every line that lacks it. A
      // search from `devTimeFormat=`'s common `d` ran at 1.3 GB/s; a scan of each line for the
      // `F` cost ≈ 0.05 µs per line in each pass.
      fs = findValueBytes(buf, L, this.#fmtCursor, DEV_TIME_FORMAT.length);
      this.#fmtSeen = fs >= 0;
    }
    let parsed: ParsedTime | null;
    if (fs < 0) {
      const epoch = epochMsBytes(buf, vs, ve, this.#bytes);
      if (epoch >= 0) {
        this.devMs = epoch;
        this.devDigits = ve - vs;
        return DEV_EPOCH;
      }
      parsed = readDevTime(buf.toString('latin1', vs, ve), null, referenceMs, this.#devTimes);
    } else {
      if (fe < 0) fe = valueEndBytes(buf, fs, L.end, L.delimiterByte, this.#bytes);
      parsed =
        fe === fs
          ? readDevTime(buf.toString('latin1', vs, ve), '', referenceMs, this.#devTimes)
          : this.#readFormatted(buf, vs, ve, fs, fe, referenceMs);
    }
    if (parsed === null) return DEV_UNREADABLE;
    this.devParsed = parsed;
    this.devMs = parsed.ms;
    return DEV_PARSED;
  }

  /**
   * The header timestamp of the ASCII line `buf[s, e)` ending before `limit` (readHeaderTimeAt
   * with `nearest`): true with tsStart, tsEnd and tsParsed set. H always holds the detection
   * (kind 'nonstandard', start `s` when the line cannot start with a header).
   */
  headerTime(
    buf: Buffer,
    s: number,
    e: number,
    limit: number,
    referenceMs: number,
    nearest: boolean,
  ): boolean {
    const H = this.H;
    this.tsParsed = null;
    if (!mayStartHeaderByte(buf[s] as number)) {
      H.kind = 'nonstandard';
      H.start = s;
      H.end = s;
      H.timestampStart = -1;
      H.timestampEnd = -1;
      return false;
    }
    detectSyslogHeaderBytes(buf, s, e, H);
    if (H.timestampStart < 0 || H.timestampEnd > limit) return false;
    const ts = H.timestampStart;
    const te = H.timestampEnd;
    this.tsStart = ts;
    this.tsEnd = te;
    this.tsParsed =
      H.kind === 'rfc3164'
        ? this.#rfc3164Times.read(buf, ts, te, true, referenceMs, nearest)
        : this.#rfc5424Times.read(buf, ts, te, false, referenceMs, nearest);
    return this.tsParsed !== null;
  }

  /**
   * Pass 1 for the ASCII line `buf[s, e)` (readEventTime): the event time in ms or NaN; records it
   * in `ctx` like readEventTime does, and what pass 2 can reuse in entry `j` of `index`.
   */
  eventTime(
    buf: Buffer,
    s: number,
    e: number,
    ctx: RebaseContext,
    index: LineIndex | null,
    j: number,
  ): number {
    const isLeef = this.layout(buf, s, e);
    let ms = Number.NaN;
    let yearless = false;
    let dev = DEV_NONE;
    if (isLeef) {
      dev = this.devTime(buf, ctx.referenceMs);
      if (dev === DEV_EPOCH) ms = this.devMs;
      else if (dev === DEV_PARSED) {
        ms = this.devMs;
        yearless = (this.devParsed as ParsedTime).yearless;
      }
    }
    if (index !== null) this.#record(index, j, isLeef, dev);
    if (Number.isNaN(ms)) {
      const limit = isLeef ? this.L.start : e;
      if (limit > s && this.headerTime(buf, s, e, limit, ctx.referenceMs, false)) {
        const parsed = this.tsParsed as ParsedTime;
        ms = parsed.ms;
        yearless = parsed.yearless;
      }
    }
    if (Number.isNaN(ms)) {
      ctx.unreadable++;
      return ms;
    }
    ctx.readable++;
    if (yearless) {
      ctx.yearless++;
      if (ctx.latestYearlessMs === null || ms > ctx.latestYearlessMs) ctx.latestYearlessMs = ms;
    } else if (ctx.latestDatedMs === null || ms > ctx.latestDatedMs) {
      ctx.latestDatedMs = ms;
    }
    return ms;
  }

  #record(found: LineIndex, j: number, isLeef: boolean, dev: number): void {
    const index = found.data;
    const o = INDEX_HEADER + INDEX_STRIDE * j;
    const L = this.L;
    const attrOffset = L.attrStart - L.start;
    if (!isLeef || L.delimiterByte < 0 || attrOffset > 0xffff) {
      index[o] = -1;
      return;
    }
    index[o] = L.start;
    index[o + 1] = dev === DEV_NONE ? -1 : this.devStart;
    index[o + 2] = this.devEnd;
    let kind = dev === DEV_NONE ? 0 : dev === DEV_EPOCH ? KIND_EPOCH : KIND_OTHER;
    // Two int32 hold a safe integer exactly (its split and the sum back are exact). A pattern's
    // milliseconds field (S…S, as many digits as letters) can carry a time far past that.
    if (dev === DEV_PARSED && Number.isSafeInteger(this.devMs)) {
      const style = found.styles.idOf(this.devParsed as ParsedTime);
      if (style >= 0) {
        kind = KIND_STYLED;
        index[o + 6] = style;
      }
    }
    index[o + 3] = attrOffset | (L.delimiterByte << 16) | ((L.noDelimiterField ? 1 : 0) << 23) | (kind << 24);
    if (kind === KIND_EPOCH || kind === KIND_STYLED) {
      const high = Math.floor(this.devMs / TIME_SPLIT);
      index[o + 4] = high;
      index[o + 5] = this.devMs - high * TIME_SPLIT;
    }
  }

  /** Layout and devTime of line `j` from `index` (see LineIndexes); false when it holds nothing. */
  #fromIndex(buf: Buffer, e: number, found: LineIndex, j: number, referenceMs: number): number {
    const index = found.data;
    const o = INDEX_HEADER + INDEX_STRIDE * j;
    const start = index[o] as number;
    if (start < 0) return -1;
    const packed = index[o + 3] as number;
    const L = this.L;
    const d = (packed >>> 16) & 0x7f;
    let end = e;
    while (end > start && buf[end - 1] === 13) end--;
    L.start = start;
    L.attrStart = start + (packed & 0xffff);
    L.end = end;
    L.delimiterByte = d;
    L.delimiter = DELIMITER_CHARS[d] as string;
    L.noDelimiterField = ((packed >>> 23) & 1) === 1;
    const kind = packed >>> 24;
    if (kind === 0) return DEV_NONE;
    if (kind === KIND_EPOCH) {
      const vs = index[o + 1] as number;
      const ve = index[o + 2] as number;
      this.devParsed = null;
      this.devStart = vs;
      this.devEnd = ve;
      this.devMs = (index[o + 4] as number) * TIME_SPLIT + (index[o + 5] as number);
      this.devDigits = ve - vs;
      return DEV_EPOCH;
    }
    if (kind === KIND_STYLED) {
      // Pass 1's reading, rebuilt: the value's time and style do not depend on the reference.
      const ms = (index[o + 4] as number) * TIME_SPLIT + (index[o + 5] as number);
      this.devStart = index[o + 1] as number;
      this.devEnd = index[o + 2] as number;
      this.devParsed = found.styles.at(index[o + 6] as number, ms);
      this.devMs = ms;
      return DEV_PARSED;
    }
    // Pass 1 found the value on these very bytes: only the devTimeFormat is searched again, within
    // the line once lines have one, as devTime() does: the chunk-wide search ran once per line in
    // archives that carry it on every line (282 ms per million formatted lines in a profile).
    this.devParsed = null;
    let fs = -2;
    if (this.#fmtSeen) {
      fs = findValueInLine(buf, L, DEV_TIME_FORMAT, 7, this.#bytes);
      this.#fmtSeen = fs >= 0;
    }
    return this.#readDev(buf, index[o + 1] as number, index[o + 2] as number, fs, -1, referenceMs);
  }

  /**
   * Pass 2 for the ASCII line `buf[s, e)` (shiftLine): fills devText/devValue, tsText and eventMs;
   * returns whether the line is LEEF (L then holds its layout). Spans: devStart/devEnd when
   * devText or devValue is set, tsStart/tsEnd when tsText is set. `index` (may be null) is what
   * pass 1 recorded for these lines; `j` the line's place in it.
   */
  shift(
    buf: Buffer,
    s: number,
    e: number,
    shiftMs: number,
    ctx: RebaseContext,
    index: LineIndex | null = null,
    j = 0,
  ): boolean {
    const shift = Number.isFinite(shiftMs) ? shiftMs : 0;
    this.devText = null;
    this.devValue = -1;
    this.tsText = null;
    this.eventMs = null;
    let dev = index === null ? -1 : this.#fromIndex(buf, e, index, j, ctx.referenceMs);
    let isLeef = true;
    if (dev < 0) {
      isLeef = this.layout(buf, s, e);
      dev = isLeef ? this.devTime(buf, ctx.referenceMs) : DEV_NONE;
    }
    const hasDev = dev === DEV_EPOCH || dev === DEV_PARSED;
    if (dev === DEV_EPOCH) {
      const epoch = this.devMs;
      const ms = epoch + shift;
      const seconds = this.devDigits === 10;
      const moved = seconds ? Math.floor(ms / 1000) : Math.floor(ms);
      // writeShiftedOrNull of an epoch value (MAX_WRITABLE_MS is out of reach of 13 digits).
      if (moved !== (seconds ? epoch / 1000 : epoch) && ms >= MIN_WRITABLE)
        this.devValue = Math.max(0, moved);
      this.eventMs = seconds ? moved * 1000 : ms;
    } else if (dev === DEV_PARSED) {
      const parsed = this.devParsed as ParsedTime;
      this.devText = writeShiftedOrNull(parsed, shift);
      this.eventMs = writtenInstant(parsed, parsed.ms + shift);
    }
    const limit = isLeef ? this.L.start : e;
    if (limit > s) {
      const read = hasDev
        ? this.headerTime(buf, s, e, limit, this.devMs, true)
        : this.headerTime(buf, s, e, limit, ctx.referenceMs, false);
      if (read) {
        const parsed = this.tsParsed as ParsedTime;
        this.tsText =
          this.H.kind === 'rfc3164'
            ? this.#rfc3164Texts.write(parsed, shift)
            : this.#rfc5424Texts.write(parsed, shift);
        if (!hasDev) this.eventMs = writtenInstant(parsed, parsed.ms + shift);
      }
    } else {
      this.H.kind = 'leef-bare';
      this.H.start = s;
    }
    return isLeef;
  }

  /** The line as shiftLine returns it, after shift() (`buf[s, e)` as the ASCII string it is). */
  shiftedText(buf: Buffer, s: number, e: number): string {
    const line = buf.toString('latin1', s, e);
    const dev = this.devValue >= 0 ? epochDigits(this.devValue, this.devDigits) : this.devText;
    const ts = this.tsText;
    if (dev === null && ts === null) return line;
    let out = '';
    let pos = 0;
    if (ts !== null) {
      out = line.slice(0, this.tsStart - s) + ts;
      pos = this.tsEnd - s;
    }
    if (dev !== null) {
      out += line.slice(pos, this.devStart - s) + dev;
      pos = this.devEnd - s;
    }
    return out + line.slice(pos);
  }

  /**
   * readDevTime of the value `buf[vs, ve)` with the devTimeFormat `buf[fs, fe)` (not empty). Recent
   * patterns are found by their bytes, and a value equal byte for byte to the last one read with
   * the same pattern and reference gives the same result without decoding it (readDevTime is a
   * pure function of its arguments, and ParsedTime objects are never modified).
   */
  #readFormatted(
    buf: Buffer,
    vs: number,
    ve: number,
    fs: number,
    fe: number,
    referenceMs: number,
  ): ParsedTime | null {
    const slots = this.#patterns;
    let slot: PatternSlot | null = null;
    for (let i = 0; i < slots.length; i++) {
      const candidate = slots[i] as PatternSlot;
      if (bytesEqual(buf, fs, fe, candidate.bytes)) {
        slot = candidate;
        break;
      }
    }
    if (slot === null) {
      const format = this.#devTimes.cache.get(buf.toString('latin1', fs, fe));
      if (fe - fs > 256) return readDevTimeWith(buf.toString('latin1', vs, ve), format, referenceMs);
      slot = new PatternSlot(Buffer.from(buf.subarray(fs, fe)), format);
      const at = slots.length < MAX_PATTERNS ? slots.length : this.#patternNext;
      this.#patternNext = (at + 1) % MAX_PATTERNS;
      slots[at] = slot;
    }
    const n = ve - vs;
    if (n === slot.lastLength) {
      const moved = slot.follow(buf, vs, n, referenceMs);
      if (moved !== undefined) return moved;
    }
    const parsed = readDevTimeWith(buf.toString('latin1', vs, ve), slot.format, referenceMs);
    slot.remember(buf, vs, n, referenceMs, parsed);
    return parsed;
  }
}

/**
 * A devTimeFormat seen recently: its bytes, compiled form and the last value read with it. Values
 * of one pattern come in runs that differ in their last digits (events of one minute), so a value
 * is first compared with the last one: equal, it reads the same; different only in the digits of
 * its seconds and milliseconds (FieldSpans), it is the last instant moved by the difference.
 */
class PatternSlot {
  readonly bytes: Buffer;
  readonly format: DateFormat;
  readonly lastValue = Buffer.alloc(64);
  lastLength = -1;
  lastRef = Number.NaN;
  lastParsed: ParsedTime | null = null;
  /** The last full read's spans relative to the value: seconds [0, 1), milliseconds [2, 3); -1: none. */
  readonly #spans = new Int32Array(4);
  /** Whether #spans holds the spans of the run the last value belongs to. */
  #hasSpans = false;
  #lastSecond = 0;
  #lastMilli = 0;

  constructor(bytes: Buffer, format: DateFormat) {
    this.bytes = bytes;
    this.format = format;
  }

  /**
   * What the value `buf[vs, vs + n)` reads as (n equals lastLength), when it follows from the last
   * value without reading it; undefined when it must be read.
   */
  follow(buf: Buffer, vs: number, n: number, referenceMs: number): ParsedTime | null | undefined {
    const last = this.lastValue;
    const sp = this.#spans;
    let differs = false;
    for (let i = 0; i < n; i++) {
      const b = buf[vs + i] as number;
      if (b === last[i]) continue;
      if (!this.#hasSpans || b < 48 || b > 57) return undefined;
      if (!((i >= sp[0]! && i < sp[1]!) || (i >= sp[2]! && i < sp[3]!))) return undefined;
      differs = true;
    }
    // Spans exist only for patterns with a year, whose reading does not depend on the reference.
    if (!differs) return referenceMs === this.lastRef || this.#hasSpans ? this.lastParsed : undefined;
    const second = sp[0]! < 0 ? 0 : digitsValue(buf, vs + sp[0]!, vs + sp[1]!);
    if (second > 59) return undefined;
    const milli = sp[2]! < 0 ? 0 : digitsValue(buf, vs + sp[2]!, vs + sp[3]!);
    const p = this.lastParsed as ParsedTime;
    const parsed: ParsedTime = {
      ms: p.ms + (second - this.#lastSecond) * 1000 + (milli - this.#lastMilli),
      offsetMs: p.offsetMs,
      zoneText: p.zoneText,
      precisionMs: p.precisionMs,
      style: p.style,
      subMs: p.subMs,
      trailing: p.trailing,
      fieldStyles: p.fieldStyles,
      carryMs: milli - (milli % 1000),
      yearless: p.yearless,
      writer: p.writer,
    };
    for (let i = 0; i < n; i++) last[i] = buf[vs + i] as number;
    this.#lastSecond = second;
    this.#lastMilli = milli;
    this.lastParsed = parsed;
    return parsed;
  }

  /** Keeps `parsed`, the full reading of `buf[vs, vs + n)` against `referenceMs`, for follow(). */
  remember(buf: Buffer, vs: number, n: number, referenceMs: number, parsed: ParsedTime | null): void {
    if (n > this.lastValue.length) {
      this.lastLength = -1;
      return;
    }
    // A loop: a native copy costs more in the call than these few bytes.
    const last = this.lastValue;
    for (let i = 0; i < n; i++) last[i] = buf[vs + i] as number;
    this.lastLength = n;
    this.lastRef = referenceMs;
    this.lastParsed = parsed;
    const spans = parsed === null ? null : this.format.fieldSpans(parsed);
    this.#hasSpans = spans !== null;
    if (spans === null) return;
    const sp = this.#spans;
    for (let k = 0; k < 4; k++) sp[k] = spans[k]!;
    this.#lastSecond = sp[0]! < 0 ? 0 : digitsValue(buf, vs + sp[0]!, vs + sp[1]!);
    this.#lastMilli = sp[2]! < 0 ? 0 : digitsValue(buf, vs + sp[2]!, vs + sp[3]!);
  }
}

/** The decimal number of the ASCII digits `buf[s, e)`. */
function digitsValue(buf: Buffer, s: number, e: number): number {
  let v = 0;
  for (let i = s; i < e; i++) v = v * 10 + ((buf[i] as number) - 48);
  return v;
}

// MIN_WRITABLE_MS of civil.ts, inlined for the hot epoch path.
const MIN_WRITABLE = -62_135_596_800_000;
