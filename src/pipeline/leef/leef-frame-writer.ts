// Pass 2 of a LEEF shipment straight to syslog frames as bytes. For an ASCII line held as bytes
// (byte-lines.ts) it gives the bytes the string path gives — shiftLine, setAttribute(labIndex),
// the header mode (HeaderWriter.apply) and the framing, in turn, then UTF-8 — by copying the
// line's bytes around the rewritten values into the caller's buffer: devTime and the header
// timestamp moved, `labIndex=` added, a header synthesized or kept, the frame's LF or length
// prefix. It decides in the order of the string path: the header mode looks at the line with its
// labIndex, and CRs a line still ends with are message (sent with octet counting). A property
// test holds it to the string path. With framing `none` it writes the rebased, labelled line
// alone (LEEF events held as bytes, leef-byte-events.ts).
// Lines it does not cover answer SLOW and go the string path.

import type { ByteLines } from '../archive/byte-lines.ts';
import { newSyslogHeader } from '../syslog/detect-syslog-header.ts';
import { detectSyslogHeaderBytes } from '../syslog/detect-syslog-header-bytes.ts';
import { createHeaderWriter, type HeaderModeSettings, type HeaderWriter } from '../syslog/header-mode.ts';
import type { Framing } from '../syslog/syslog-options.ts';
import { sanitizeLeefValue } from './emit-leef.ts';
import {
  digitCount,
  findValueBytes,
  indexIn,
  type LeefByteScratch,
  NeedleCursor,
  writeAscii,
  writeDigits,
  writeEpochDigits,
} from './leef-bytes.ts';
import type { LeefLines } from './leef-line-batch.ts';
import { isAsciiLine, type LeefLineReader, type LineIndex } from './leef-line-reader.ts';
import type { RebaseContext } from './leef-rebase.ts';

/** prepare(): the line needs the string path (not LEEF, a CR inside, `labIndex=` already there…). */
export const FRAME_SLOW = -1;
/** prepare(): a header must be synthesized and the settings cannot (HeaderWriter.problem). */
export const FRAME_NO_HEADER = -2;
/** prepare(): the message is longer than maxMessageBytes. */
export const FRAME_TOO_LONG = -3;

/**
 * How a written line ends: a syslog framing, or `none` for the line itself — exactly the line the
 * string path's rebasedLine gives (shiftLine, setAttribute(labIndex)) as UTF-8: nothing before it
 * stripped or synthesized (the header mode is not applied), CRs it ends with kept, no LF or length
 * prefix. Drivers that wrap lines in their own envelopes (HEC) read lines this way.
 */
export type LineFraming = Framing | 'none';

/** What a frame writer needs for one shipment to one syslog destination. */
export interface LeefFrameSettings {
  /** Not applied with framing `none`. */
  readonly header: HeaderModeSettings;
  readonly framing: LineFraming;
  /** Longest message (header + LEEF, framing excluded) in bytes. */
  readonly maxMessageBytes: number;
  /** Shipping time: the header time of events without a readable time. */
  readonly now: number;
}

const LAB_KEY = 'labIndex';
const LAB_NEEDLE = Buffer.from(`${LAB_KEY}=`, 'latin1');
// Delimiter bytes that occur in `labIndex` (the string path then splits the key): a table, as
// LAB_KEY.includes(delimiter) cost ≈ 10 ns per line.
const IN_LAB_KEY = Uint8Array.from({ length: 256 }, (_, c) =>
  LAB_KEY.includes(String.fromCharCode(c)) ? 1 : 0,
);

/**
 * Writes frames of ASCII LEEF lines held as bytes. Use: `n = prepare(...)`; when n >= 0, make room
 * for n bytes and call `write(out, pos)` before the next prepare. Not reentrant. Part of the pass
 * its reader belongs to: it keeps its byte memos in the reader's ShipmentScratch.
 */
export class LeefFrameWriter {
  readonly #reader: LeefLineReader;
  readonly #bytes: LeefByteScratch;
  readonly #writer: HeaderWriter;
  readonly #framing: LineFraming;
  /** Framing `none`: the line as it is, header untouched. */
  readonly #bare: boolean;
  readonly #max: number;
  readonly #now: number;
  readonly #cr = new NeedleCursor('\r');
  // Most lines have no labIndex=: one search per chunk, for `Index=` (its `I` is rare in LEEF text,
  // where a search starting at `l` stops at every lower-case l), then `lab` before it.
  readonly #lab = new NeedleCursor(`${LAB_KEY}=`, 3);
  // Labels per labIndex and delimiter: `<delim>labIndex=<value>` and the same without delimiter.
  #labIndex: string | null = null;
  readonly #labels: Array<Label | undefined> = new Array(256).fill(undefined);
  // The synthesized header last used, as bytes.
  #headerText = '';
  #headerBytes = Buffer.alloc(0);
  // Header detection of what stands before `LEEF:` (see #hostnameReachesDevTime).
  readonly #probe = newSyslogHeader();
  #probeBuf = Buffer.alloc(256);

  // The prepared frame.
  #buf: Buffer = Buffer.alloc(0);
  #synth: Buffer | null = null;
  #keepFrom = 0;
  #tsStart = -1;
  #tsEnd = -1;
  #ts: string | null = null;
  #devStart = -1;
  #devEnd = -1;
  #devText: string | null = null;
  #devValue = -1;
  /** Bytes the moved devTime takes (0 when unchanged). */
  #devLength = 0;
  #labelAt = -1;
  #label: Buffer | null = null;
  #end = 0;
  #messageBytes = 0;

  constructor(reader: LeefLineReader, settings: LeefFrameSettings) {
    this.#reader = reader;
    this.#bytes = reader.scratch.leefBytes;
    this.#writer = createHeaderWriter(settings.header);
    this.#framing = settings.framing;
    this.#bare = settings.framing === 'none';
    this.#max = settings.maxMessageBytes;
    this.#now = settings.now;
  }

  /** Rebased event time of the line last prepared (the time a synthesized header carries), or null. */
  get eventMs(): number | null {
    return this.#reader.eventMs;
  }

  /**
   * Works out the frame of the ASCII line `buf[s, e)` moved by `shiftMs` (pass 1 done in `ctx`)
   * with `labIndex` set: its length in bytes, or FRAME_SLOW, FRAME_NO_HEADER or FRAME_TOO_LONG.
   * `index` and `j`: pass 1's findings about the line, when kept (LeefLineReader.shift).
   */
  prepare(
    buf: Buffer,
    s: number,
    e: number,
    shiftMs: number,
    ctx: RebaseContext,
    labIndex: string | null,
    index: LineIndex | null = null,
    j = 0,
  ): number {
    const R = this.#reader;
    if (!R.shift(buf, s, e, shiftMs, ctx, index, j)) return FRAME_SLOW;
    const L = R.L;
    // A CR inside the message: LF framing turns it into a space, which the string path does.
    if (this.#cr.at(buf, s) < L.end) return FRAME_SLOW;
    if (
      labIndex !== null &&
      ((L.delimiterByte >= 0 && IN_LAB_KEY[L.delimiterByte] === 1) ||
        findValueBytes(buf, L, this.#lab, LAB_NEEDLE.length) >= 0)
    ) {
      return FRAME_SLOW;
    }
    // A CR or LF delimiter (x0D, x0A) puts one inside the label: LF framing makes it a space.
    if (labIndex !== null && this.#framing === 'lf' && (L.delimiterByte === 13 || L.delimiterByte === 10)) {
      return FRAME_SLOW;
    }

    // The string path sets the label before it looks for a header: a space in the label (the
    // delimiter, or what sanitizing put in the value) may end the HOSTNAME of a header without one.
    const bare = this.#bare;
    if (
      labIndex !== null &&
      !bare &&
      L.start > s &&
      this.#writer.mode === 'synthesize_if_missing' &&
      this.#labelsFor(labIndex, L.delimiter, L.noDelimiterField).spaced
    ) {
      return FRAME_SLOW;
    }

    let keepFrom = s;
    let hasHeader = false;
    const writer = this.#writer;
    if (L.start > s && !bare) {
      const kind = R.H.kind;
      hasHeader = kind === 'rfc5424' || kind === 'rfc3164';
      keepFrom = R.H.start;
      // The string path looks for the header on the moved line: a HOSTNAME that runs on into a
      // moved devTime may end elsewhere there, or pass the 255 characters RFC 5424 allows.
      if (
        writer.mode === 'synthesize_if_missing' &&
        (R.devValue >= 0 || R.devText !== null) &&
        this.#hostnameReachesDevTime(buf, s, hasHeader)
      ) {
        return FRAME_SLOW;
      }
    }
    let synth: Buffer | null = null;
    if (
      !bare &&
      (writer.mode === 'force_synthesize' || (writer.mode === 'synthesize_if_missing' && !hasHeader))
    ) {
      const h = writer.headerFor(R.eventMs, this.#now);
      if (h === null) return FRAME_NO_HEADER;
      if (h !== this.#headerText) {
        // Headers are printable ASCII (the HOSTNAME is checked), so Latin-1 is their UTF-8.
        this.#headerText = h;
        this.#headerBytes = Buffer.from(h, 'latin1');
      }
      synth = this.#headerBytes;
      keepFrom = L.start;
    }

    let bytes = (synth === null ? 0 : synth.length) + L.end - keepFrom;
    const ts = R.tsText !== null && R.tsStart >= keepFrom ? R.tsText : null;
    if (ts !== null) bytes += ts.length - (R.tsEnd - R.tsStart);
    let devText: string | null = null;
    let devValue = -1;
    let devLength = 0;
    if (R.devValue >= 0) {
      devValue = R.devValue;
      devLength = Math.max(R.devDigits, digitCount(devValue));
      bytes += devLength - (R.devEnd - R.devStart);
    } else if (R.devText !== null) {
      devText = R.devText;
      devLength = devText.length;
      bytes += devLength - (R.devEnd - R.devStart);
    }
    let label: Buffer | null = null;
    let labelAt = -1;
    if (labIndex !== null) {
      // After the last attribute, before trailing delimiters; without any `k=v` pair, at the end.
      const d = L.delimiterByte;
      // setAttribute runs on the moved line: a moved devTime that ends the attributes and now ends
      // with the delimiter (a digit or letter) would lend it trailing delimiters. String path.
      if (devValue >= 0 || devText !== null) {
        // The last digit without `%`: on a 13-digit value (no small integer) it is a call to fmod.
        const last =
          devText === null
            ? 48 + devValue - Math.floor(devValue / 10) * 10
            : devText.charCodeAt(devText.length - 1);
        let t = R.devEnd;
        while (t < L.end && buf[t] === d) t++;
        if (last === d && t === L.end) return FRAME_SLOW;
      }
      let t = L.end;
      while (t > L.attrStart && buf[t - 1] === d) t--;
      const eq = indexIn(buf, 61, L.attrStart, t, this.#bytes);
      const hasPair = eq >= 0;
      labelAt = hasPair ? t : L.end;
      const bare = !hasPair && (labelAt === L.attrStart || buf[labelAt - 1] === d);
      label = this.#labelBytes(labIndex, L.delimiter, L.noDelimiterField, bare);
      bytes += label.length;
    }
    // CRs the line still ends with (from a CR CR LF file) are message to the string path: octet
    // counting sends them, LF framing drops them, and both count them against the limit (the line
    // itself, framing `none`, keeps them as the string path's line does).
    const tail = e - L.end;
    if (bytes + tail > this.#max) return FRAME_TOO_LONG;
    const end = this.#framing === 'lf' ? L.end : e;
    bytes += end - L.end;

    this.#buf = buf;
    this.#synth = synth;
    this.#keepFrom = keepFrom;
    this.#ts = ts;
    this.#tsStart = R.tsStart;
    this.#tsEnd = R.tsEnd;
    this.#devText = devText;
    this.#devValue = devValue;
    this.#devLength = devLength;
    this.#devStart = R.devStart;
    this.#devEnd = R.devEnd;
    this.#label = label;
    this.#labelAt = labelAt;
    this.#end = end;
    this.#messageBytes = bytes;
    if (bare) return bytes;
    return this.#framing === 'lf' ? bytes + 1 : digitCount(bytes) + 1 + bytes;
  }

  /**
   * prepare() for line `j` of `segment` in a batch of `lines` (`index`: pass 1's findings for the
   * segment, or null): FRAME_SLOW for a line that is not ASCII.
   */
  prepareLine(lines: LeefLines, segment: ByteLines, j: number, index: LineIndex | null): number {
    if (!isAsciiLine(segment, j)) return FRAME_SLOW;
    return this.prepare(
      segment.buf,
      segment.starts[j] as number,
      segment.ends[j] as number,
      lines.shiftMs,
      lines.ctx,
      lines.labIndex,
      index,
      j,
    );
  }

  /** Writes the prepared frame at `out[pos]`; returns the offset after it. */
  write(out: Buffer, pos: number): number {
    const buf = this.#buf;
    let o = pos;
    if (this.#framing === 'octet_counting') {
      const n = this.#messageBytes;
      o = writeDigits(out, o, n, digitCount(n));
      out[o++] = 32;
    }
    // Whole short buffers by TypedArray set: Buffer#copy's argument handling cost more than the copy.
    const synth = this.#synth;
    if (synth !== null) {
      out.set(synth, o);
      o += synth.length;
    }
    const label = this.#label;
    const stop = label === null ? this.#end : this.#labelAt;
    const ts = this.#ts;
    const devValue = this.#devValue;
    const devText = this.#devText;
    const devLength = this.#devLength;
    const hasDev = devValue >= 0 || devText !== null;
    if (
      (ts === null || ts.length === this.#tsEnd - this.#tsStart) &&
      (!hasDev || devLength === this.#devEnd - this.#devStart)
    ) {
      // The common case: the line's bytes in one copy, the moved values written over their old text.
      const base = o - this.#keepFrom;
      o += buf.copy(out, o, this.#keepFrom, stop);
      if (ts !== null) writeAscii(out, base + this.#tsStart, ts);
      if (devValue >= 0) writeEpochDigits(out, base + this.#devStart, devValue, devLength, this.#bytes);
      else if (devText !== null) writeAscii(out, base + this.#devStart, devText);
    } else {
      let from = this.#keepFrom;
      if (ts !== null) {
        o += buf.copy(out, o, from, this.#tsStart);
        o = writeAscii(out, o, ts);
        from = this.#tsEnd;
      }
      if (hasDev) {
        o += buf.copy(out, o, from, this.#devStart);
        if (devValue >= 0) o = writeEpochDigits(out, o, devValue, devLength, this.#bytes);
        else o = writeAscii(out, o, devText as string);
        from = this.#devEnd;
      }
      o += buf.copy(out, o, from, stop);
    }
    if (label !== null) {
      out.set(label, o);
      o += label.length;
      if (stop < this.#end) o += buf.copy(out, o, stop, this.#end);
    }
    if (this.#framing === 'lf') out[o++] = 10;
    return o;
  }

  /**
   * Whether header detection on the line just shifted reached devTime inside a HOSTNAME: the
   * detected one runs up to it, or, with none detected, one would start at the word `LEEF:` is part
   * of (what stands before it is a header up to its HOSTNAME) and nothing in between is a space.
   */
  #hostnameReachesDevTime(buf: Buffer, s: number, hasHeader: boolean): boolean {
    const R = this.#reader;
    const dev = R.devStart;
    if (hasHeader) return R.H.hostnameEnd >= dev;
    const start = R.L.start;
    for (let i = start; i < dev; i++) if (isSpaceByte(buf[i] as number)) return false;
    let w = start;
    while (w > s && !isSpaceByte(buf[w - 1] as number)) w--;
    if (w === s) return false;
    // What stands before that word, then `x `: a header there has its HOSTNAME at the word.
    const n = w - s + 2;
    if (this.#probeBuf.length < n) this.#probeBuf = Buffer.alloc(Math.max(n, 2 * this.#probeBuf.length));
    buf.copy(this.#probeBuf, 0, s, w);
    this.#probeBuf[n - 2] = 120;
    this.#probeBuf[n - 1] = 32;
    const h = detectSyslogHeaderBytes(this.#probeBuf, 0, n, this.#probe);
    return (h.kind === 'rfc5424' || h.kind === 'rfc3164') && h.hostnameStart === w - s;
  }

  /** `<delim>labIndex=<value>` as setAttribute writes it for this delimiter (without `<delim>` when bare). */
  #labelBytes(labIndex: string, delimiter: string, noField: boolean, bare: boolean): Buffer {
    const hit = this.#labelsFor(labIndex, delimiter, noField);
    return bare ? hit.bare : hit.full;
  }

  /** The labels for this delimiter, and whether they hold a space. */
  #labelsFor(labIndex: string, delimiter: string, noField: boolean): Label {
    if (labIndex !== this.#labIndex) {
      this.#labIndex = labIndex;
      this.#labels.fill(undefined);
    }
    const code = delimiter.charCodeAt(0);
    const slot = code < 128 ? code + (noField ? 0 : 128) : -1;
    let hit = slot >= 0 ? this.#labels[slot] : undefined;
    if (hit === undefined) {
      let safe = sanitizeLeefValue(labIndex, delimiter);
      // In LEEF 1.0 a `|` in a value could make the line read as PAN-OS pipe-delimited.
      if (noField && safe.includes('|')) safe = safe.replaceAll('|', ' ');
      const full = `${delimiter}${LAB_KEY}=${safe}`;
      hit = {
        full: Buffer.from(full, 'utf8'),
        bare: Buffer.from(`${LAB_KEY}=${safe}`, 'utf8'),
        spaced: full.includes(' '),
      };
      if (slot >= 0) this.#labels[slot] = hit;
    }
    return hit;
  }
}

/** ASCII whitespace: JavaScript's `\s` within ASCII, where header detection ends a HOSTNAME. */
function isSpaceByte(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/** A label as bytes, with and without its delimiter. */
interface Label {
  full: Buffer;
  bare: Buffer;
  /** Holds a space: a HOSTNAME running into the label would end there (no other whitespace does). */
  spaced: boolean;
}
