import { readIso } from '../time/iso-time.ts';
import type { ParsedTime } from '../time/parsed-time.ts';
import { readRfc3164Time } from '../time/rfc3164-time.ts';

/** Header timestamps longer than this are read afresh each time (RFC 5424's are at most 35 bytes). */
const MAX_TEXT = 64;
// The year of a year-less RFC 3164 timestamp read `nearest` stays the same while the reference
// moves less than this (see inferYear: other years are more than 200 days further away).
const NEAREST_WINDOW_MS = 150 * 86_400_000;
// RFC 5424 TIMESTAMP as detected (rfc3339End): `yyyy-MM-ddTHH:mm:ss[.f{1,9}](Z|±hh:mm)`.
const ISO_SECOND_AT = 17;
const ISO_FRACTION_AT = 20;

/**
 * Reads the syslog header timestamps of lines one after another, as the ASCII bytes detection
 * found (detectSyslogHeaderBytes): RFC 3164 ones like readRfc3164Time, RFC 5424 ones like readIso,
 * with the same results. A timestamp equal byte for byte to the last one reads the same. One that
 * differs from it only in the digits of its seconds (RFC 5424: and of its milliseconds) is the
 * last instant moved by the difference: events of one minute mostly differ there, and a full read
 * builds a string and computes the calendar date. Not for RFC 3164 read against the latest year
 * (`nearest` false), whose year depends on the time of day; those follow only when equal.
 */
export class HeaderTimeMemo {
  readonly #raw = Buffer.alloc(MAX_TEXT);
  #length = -1;
  #rfc3164 = false;
  #ref = Number.NaN;
  #nearest = false;
  #last: ParsedTime | null = null;
  // Spans of the last text's seconds and milliseconds (relative; -1 when it has none), and their values.
  #secondAt = -1;
  #milliAt = -1;
  #milliEnd = -1;
  #second = 0;
  #milli = 0;

  /**
   * The time of the timestamp `buf[ts, te)` (ASCII; RFC 3164 when `rfc3164`, else RFC 5424),
   * read against `referenceMs` (`nearest`: see readRfc3164Time), or null when it is not readable.
   */
  read(
    buf: Buffer,
    ts: number,
    te: number,
    rfc3164: boolean,
    referenceMs: number,
    nearest: boolean,
  ): ParsedTime | null {
    const n = te - ts;
    if (this.#last !== null && n === this.#length && rfc3164 === this.#rfc3164) {
      const followed = this.#follow(buf, ts, n, referenceMs, nearest);
      if (followed !== undefined) return followed;
    }
    const text = buf.toString('latin1', ts, te);
    const parsed = rfc3164 ? readRfc3164Time(text, referenceMs, nearest) : readIso(text);
    this.#remember(buf, ts, n, rfc3164, referenceMs, nearest, parsed);
    return parsed;
  }

  /** What `buf[ts, ts + n)` reads as when it follows from the last text; undefined when it must be read. */
  #follow(buf: Buffer, ts: number, n: number, referenceMs: number, nearest: boolean): ParsedTime | undefined {
    const last = this.#last as ParsedTime;
    // The year of a year-less timestamp depends on the reference (RFC 5424 ones have a year).
    if (
      this.#rfc3164 &&
      (nearest !== this.#nearest ||
        (nearest ? !(Math.abs(last.ms - referenceMs) < NEAREST_WINDOW_MS) : referenceMs !== this.#ref))
    ) {
      return undefined;
    }
    const raw = this.#raw;
    const sa = this.#secondAt;
    const ma = this.#milliAt;
    const me = this.#milliEnd;
    let differs = false;
    for (let i = 0; i < n; i++) {
      const b = buf[ts + i] as number;
      if (b === raw[i]) continue;
      if (b < 48 || b > 57 || !((i >= sa && i < sa + 2) || (i >= ma && i < me))) return undefined;
      differs = true;
    }
    if (!differs) return last;
    if (this.#rfc3164 && !nearest) return undefined;
    const second = ((buf[ts + sa] as number) - 48) * 10 + (buf[ts + sa + 1] as number) - 48;
    if (second > 59) return undefined;
    const milli = ma < 0 ? 0 : millisOf(buf, ts + ma, ts + me);
    const parsed: ParsedTime = {
      ms: last.ms + (second - this.#second) * 1000 + (milli - this.#milli),
      offsetMs: last.offsetMs,
      zoneText: last.zoneText,
      precisionMs: last.precisionMs,
      style: last.style,
      subMs: last.subMs,
      trailing: last.trailing,
      fieldStyles: last.fieldStyles,
      carryMs: last.carryMs,
      yearless: last.yearless,
      writer: last.writer,
    };
    raw[sa] = buf[ts + sa] as number;
    raw[sa + 1] = buf[ts + sa + 1] as number;
    for (let i = ma; i < me; i++) raw[i] = buf[ts + i] as number;
    this.#second = second;
    this.#milli = milli;
    this.#last = parsed;
    return parsed;
  }

  #remember(
    buf: Buffer,
    ts: number,
    n: number,
    rfc3164: boolean,
    referenceMs: number,
    nearest: boolean,
    parsed: ParsedTime | null,
  ): void {
    this.#last = null;
    if (parsed === null || n > MAX_TEXT) return;
    const raw = this.#raw;
    // A loop: a native copy costs more in the call than these few bytes.
    for (let i = 0; i < n; i++) raw[i] = buf[ts + i] as number;
    this.#length = n;
    this.#rfc3164 = rfc3164;
    this.#ref = referenceMs;
    this.#nearest = nearest;
    this.#last = parsed;
    if (rfc3164) {
      // `Mmm dd [yyyy ]hh:mm:ss`: the seconds end it.
      this.#secondAt = n - 2;
      this.#milliAt = -1;
      this.#milliEnd = -1;
    } else {
      this.#secondAt = ISO_SECOND_AT;
      let end = ISO_FRACTION_AT;
      if (raw[ISO_FRACTION_AT - 1] === 46)
        while (end < n && end < ISO_FRACTION_AT + 3 && isDigit(raw[end])) end++;
      this.#milliAt = end > ISO_FRACTION_AT ? ISO_FRACTION_AT : -1;
      this.#milliEnd = end > ISO_FRACTION_AT ? end : -1;
    }
    const sa = this.#secondAt;
    this.#second = ((raw[sa] as number) - 48) * 10 + (raw[sa + 1] as number) - 48;
    this.#milli = this.#milliAt < 0 ? 0 : millisOf(raw, this.#milliAt, this.#milliEnd);
  }
}

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= 48 && c <= 57;
}

/** Milliseconds of the first one to three fraction digits `buf[s, e)` (`5` is 500, as readIso reads it). */
function millisOf(buf: Buffer, s: number, e: number): number {
  let v = 0;
  for (let i = s; i < s + 3; i++) v = v * 10 + (i < e ? (buf[i] as number) - 48 : 0);
  return v;
}
