import {
  type CivilFields,
  civilToMs,
  daysInMonth,
  inferYear,
  msToCivil,
  newCivilFields,
  padZero,
} from './civil.ts';
import {
  CASE_LOWER,
  caseOf,
  DAYS_LONG,
  DAYS_SHORT,
  inCase,
  MONTHS_LONG,
  MONTHS_SHORT,
  matchName,
} from './names.ts';
import type { ParsedTime, TimeWriter } from './parsed-time.ts';
import { compilePattern, K, type Token } from './pattern-tokens.ts';
import { defaultZoneText, readGeneralZone, readIsoZone, readRfc822Zone, type ZoneOut } from './zones.ts';

/**
 * A compiled Java SimpleDateFormat pattern (devTimeFormat). Reading follows SimpleDateFormat in
 * its default lenient-where-it-matters way: whitespace before a field is skipped, text fields match
 * case-insensitively and in long or short form, `S` is a millisecond count, adjacent numeric
 * fields take exactly their letter count, and text after the pattern is ignored (kept verbatim
 * by the writer). Out-of-range fields (month 13, 31 June, hour 24 for `H`) are refused instead of
 * rolled over, so an odd vendor value stays untouched rather than being "fixed".
 *
 * A pattern without a zone letter is read and written as UTC. QRadar does not document the zone
 * it assumes; reading and writing in the same fixed zone makes the shift exact whatever that zone
 * is, UTC has no daylight-saving gaps, and it is what synthesized syslog headers use.
 */
export interface DateFormat extends TimeWriter {
  /** The pattern as given. */
  readonly pattern: string;
  /** Why the pattern cannot be used (unknown letter, unterminated quote), or undefined. */
  readonly problem: string | undefined;
  /** Smallest step the pattern can express, in ms (1 with `S`, 1000 with `s`, …). */
  readonly precisionMs: number;
  /** Epoch ms of `text`, or null when it does not match. */
  parse(text: string, referenceMs?: number): number | null;
  /**
   * The instant and the written style of `text`, or null when it does not match. A pattern with
   * no year letter takes its year from `referenceMs` (see inferYear); without a reference it is
   * 1970, as in Java.
   */
  read(text: string, referenceMs?: number): ParsedTime | null;
  /** `ms` written with this pattern, in the zone and style of `style` (UTC and defaults without). */
  format(ms: number, style?: ParsedTime | null): string;
  /**
   * Where the read that gave `parsed` found its seconds and milliseconds, for a reader of many
   * values that differ only there: `[secondStart, secondEnd, milliStart, milliEnd]` in its text
   * (-1 for a field the pattern lacks). Null unless `parsed` is the latest result of read() and the
   * pattern has a year, at most one `s` and one `S` field, and no `z`/`Z` zone before them —
   * otherwise another value's instant does not follow from its seconds and milliseconds alone
   * (see FieldSpans).
   */
  fieldSpans(parsed: ParsedTime): FieldSpans | null;
}

/**
 * fieldSpans(): the spans of the seconds (`s`) and milliseconds (`S`) in the text last read. A
 * value equal to that text outside these spans, with digits inside them, reads as the same fields
 * except those two (every field before them has the same text; each span ends where it did,
 * before the same byte or at the same letter count; what follows is the same text), and its
 * instant is the last one moved by the difference in seconds and milliseconds (milliseconds are a
 * count, carried into seconds by the same formula). Two readers break this and have no spans:
 * year inference, which depends on the time of day (patterns without a year), and a `z`/`Z` zone
 * before the seconds, whose bare GMT/UTC looks past its own text for an offset (`z'+'ss` reads
 * `GMT+45` as GMT then 45 seconds, but `GMT+15` as the zone GMT+15).
 */
export type FieldSpans = Readonly<Int32Array>;

// fieldStyles bits, one number per token (see ParsedTime.fieldStyles).
const WS_MASK = 0xff; // count of spaces/tabs skipped before the field
const WS_TAB = 1 << 8; // the skipped whitespace started with a tab
const UNPADDED = 1 << 9; // fewer digits than letters were written (`dd` read from "6")
const TWO_DIGIT_YEAR = 1 << 10; // `y`/`yyy…` read from exactly two digits: keep two
const CASE_SHIFT = 11; // 2 bits: name case
const LONG_NAME = 1 << 13;
const SHORT_NAME = 1 << 14;
const DIGITS_SHIFT = 16; // 8 bits: digits read (for space-padded numbers)

// Token kinds as module constants, which the optimizing compiler folds into the switches below.
const {
  LITERAL,
  YEAR,
  MONTH,
  DAY,
  HOUR_0_23,
  HOUR_1_12,
  HOUR_0_11,
  HOUR_1_24,
  MINUTE,
  SECOND,
  MILLI,
  AMPM,
  WEEKDAY,
  ZONE_GENERAL,
  ZONE_RFC822,
} = K;

const CACHE_LIMIT = 512;
const PATTERN_MAX = 256;

/**
 * Compiled patterns by their text, for one shipment pass: patterns repeat on every line of an
 * archive, and each compiled form remembers its last reads and writes (see JavaDateFormat), which
 * must not carry over from one shipment to another.
 */
export class DateFormatCache {
  readonly #byPattern = new Map<string, DateFormat>();

  /** Whether `pattern` has been compiled into this cache (and not dropped since). */
  has(pattern: string): boolean {
    return this.#byPattern.has(pattern);
  }

  /** The compiled form of `pattern`, compiled on first use. */
  get(pattern: string): DateFormat {
    const hit = this.#byPattern.get(pattern);
    if (hit !== undefined) return hit;
    const compiled = new JavaDateFormat(pattern);
    // Archives are untrusted: a line-per-pattern archive must not grow the cache without bound.
    if (this.#byPattern.size >= CACHE_LIMIT) this.#byPattern.clear();
    this.#byPattern.set(pattern, compiled);
    return compiled;
  }
}

/**
 * The compiled form of `pattern`: from `cache` when given (a shipment passes its own), else a new
 * one (newDateFormat).
 */
export function compileDateFormat(pattern: string, cache?: DateFormatCache): DateFormat {
  return cache === undefined ? new JavaDateFormat(pattern) : cache.get(pattern);
}

/** A new compiled form of `pattern`, outside any cache and with none of its memory of earlier calls. */
export function newDateFormat(pattern: string): DateFormat {
  return new JavaDateFormat(pattern);
}

class JavaDateFormat implements DateFormat {
  readonly pattern: string;
  readonly problem: string | undefined;
  readonly precisionMs: number;
  readonly #tokens: readonly Token[];
  readonly #hasYear: boolean;
  // Records #read and #format fill (the format's own: formats are per shipment pass).
  readonly #fields: CivilFields = newCivilFields();
  readonly #zone: ZoneOut = { offsetMs: 0 };

  constructor(pattern: string) {
    this.pattern = pattern;
    const compiled =
      typeof pattern !== 'string' || pattern.length > PATTERN_MAX
        ? { tokens: [], problem: `pattern longer than ${PATTERN_MAX} characters` }
        : compilePattern(pattern);
    this.#tokens = compiled.tokens;
    this.problem = compiled.problem;
    this.precisionMs = precisionOf(compiled.tokens);
    this.#hasYear = compiled.tokens.some((t) => t.kind === YEAR);
    const tokens = compiled.tokens;
    const count = (kind: number) => tokens.filter((t) => t.kind === kind).length;
    const seconds = count(SECOND);
    const millis = count(MILLI);
    // A `z`/`Z` zone written as bare GMT/UTC looks past its own text for an offset (`GMT+10`):
    // placed before the seconds, what it reads could change with their digits.
    const lastSpan = tokens.findLastIndex((t) => t.kind === SECOND || t.kind === MILLI);
    const peekingZone = tokens.some(
      (t, i) => i < lastSpan && (t.kind === ZONE_GENERAL || t.kind === ZONE_RFC822),
    );
    this.#spansUsable = this.#hasYear && seconds <= 1 && millis <= 1 && seconds + millis > 0 && !peekingZone;
    this.#runPatchable = seconds <= 1 && millis <= 1 && seconds + millis > 0;
  }

  /** The pattern has at most one `s` and one `S` field, and one of them (see #followRun). */
  readonly #runPatchable: boolean;

  // Spans of the seconds and milliseconds of the last successful #read (see fieldSpans); a field
  // the pattern lacks stays -1, one it has is written by every read that gets past it.
  readonly #spans = new Int32Array([-1, -1, -1, -1]);
  readonly #spansUsable: boolean;

  fieldSpans(parsed: ParsedTime): FieldSpans | null {
    return this.#spansUsable && parsed === this.#lastParsed ? this.#spans : null;
  }

  parse(text: string, referenceMs?: number): number | null {
    const parsed = this.read(text, referenceMs);
    return parsed === null ? null : parsed.ms;
  }

  read(text: string, referenceMs?: number): ParsedTime | null {
    // Events of one second repeat the same text: the last result is returned again (ParsedTime
    // objects are never modified, so sharing one is safe).
    if (text === this.#lastText && referenceMs === this.#lastRef) return this.#lastParsed;
    const parsed = this.#read(text, referenceMs);
    this.#lastText = text;
    this.#lastRef = referenceMs;
    this.#lastParsed = parsed;
    return parsed;
  }

  #lastText: string | undefined = undefined;
  #lastRef: number | undefined = undefined;
  #lastParsed: ParsedTime | null = null;

  #read(text: string, referenceMs: number | undefined): ParsedTime | null {
    if (this.problem !== undefined || typeof text !== 'string') return null;
    const tokens = this.#tokens;
    const len = text.length;
    let pos = 0;
    let year = 1970;
    let month = 1;
    let day = 1;
    let hour24 = -1;
    let hour12 = -1;
    let pm = -1;
    let minute = 0;
    let second = 0;
    let millis = 0;
    let offsetMs = 0;
    let zoneText = '';
    let styles: number[] | null = null;
    const spans = this.#spans;

    for (let t = 0; t < tokens.length; t++) {
      const tok = tokens[t] as Token;
      if (tok.kind === LITERAL) {
        // Char by char: most literals are one character, and a builtin call per literal costs more.
        const lit = tok.text;
        if (pos + lit.length > len) return null;
        for (let j = 0; j < lit.length; j++) {
          if (text.charCodeAt(pos + j) !== lit.charCodeAt(j)) return null;
        }
        pos += lit.length;
        continue;
      }
      // SimpleDateFormat skips spaces and tabs before every field.
      const wsStart = pos;
      while (pos < len) {
        const c = text.charCodeAt(pos);
        if (c !== 32 && c !== 9) break;
        pos++;
      }
      if (pos >= len) return null;
      let style = 0;
      if (pos > wsStart) {
        style = Math.min(pos - wsStart, WS_MASK) | (text.charCodeAt(wsStart) === 9 ? WS_TAB : 0);
      }

      if (tok.numeric) {
        const start = pos;
        const limit = tok.fixed ? tok.count : 12;
        let value = 0;
        while (pos < len && pos - start < limit) {
          const c = text.charCodeAt(pos);
          if (c < 48 || c > 57) break;
          value = value * 10 + (c - 48);
          pos++;
        }
        const digits = pos - start;
        if (digits === 0 || (tok.fixed && digits !== tok.count)) return null;
        if (tok.kind === SECOND) {
          spans[0] = start;
          spans[1] = pos;
        } else if (tok.kind === MILLI) {
          spans[2] = start;
          spans[3] = pos;
        }
        if (digits < tok.count) style |= UNPADDED;
        if (style & WS_MASK) style |= Math.min(digits, 0xff) << DIGITS_SHIFT;
        switch (tok.kind) {
          case YEAR:
            if (tok.count <= 2 && digits === 2) {
              // Java maps two-digit years into a window around "now"; a fixed window keeps reading
              // pure. Only the century's leap-year rule depends on it: the writer keeps two digits.
              year = value < 80 ? 2000 + value : 1900 + value;
            } else {
              year = value;
            }
            if (digits === 2 && tok.count !== 2) style |= TWO_DIGIT_YEAR;
            if (year > 9999) return null;
            break;
          case MONTH:
            if (value < 1 || value > 12) return null;
            month = value;
            break;
          case DAY:
            if (value < 1 || value > 31) return null;
            day = value;
            break;
          case HOUR_0_23:
            if (value > 23) return null;
            hour24 = value;
            break;
          case HOUR_1_24:
            if (value < 1 || value > 24) return null;
            hour24 = value % 24;
            break;
          case HOUR_1_12:
            if (value < 1 || value > 12) return null;
            hour12 = value % 12;
            break;
          case HOUR_0_11:
            if (value > 11) return null;
            hour12 = value;
            break;
          case MINUTE:
            if (value > 59) return null;
            minute = value;
            break;
          case SECOND:
            if (value > 59) return null;
            second = value;
            break;
          default:
            // MILLI: a millisecond COUNT. `.123456` with SSSSSS is 123,456 ms (Java is lenient
            // here and so is QRadar); whole seconds above 999 ms are carried, see format().
            millis = value;
            break;
        }
      } else {
        const start = pos;
        switch (tok.kind) {
          case MONTH: {
            let i = matchName(text, pos, MONTHS_LONG);
            if (i >= 0) {
              pos += (MONTHS_LONG[i] as string).length;
              // "May" is both forms: it says nothing about the style, so the pattern decides.
              if (i !== 4) style |= LONG_NAME;
            } else {
              i = matchName(text, pos, MONTHS_SHORT);
              if (i < 0) return null;
              pos += 3;
              style |= SHORT_NAME;
            }
            month = i + 1;
            style |= caseOf(text, start, pos) << CASE_SHIFT;
            break;
          }
          case WEEKDAY: {
            // Read and ignored, as Java does when year, month and day are present.
            let i = matchName(text, pos, DAYS_LONG);
            if (i >= 0) {
              pos += (DAYS_LONG[i] as string).length;
              style |= LONG_NAME;
            } else {
              i = matchName(text, pos, DAYS_SHORT);
              if (i < 0) return null;
              pos += 3;
              style |= SHORT_NAME;
            }
            style |= caseOf(text, start, pos) << CASE_SHIFT;
            break;
          }
          case AMPM: {
            const c0 = text.charCodeAt(pos) | 32;
            const c1 = text.charCodeAt(pos + 1) | 32;
            if (c1 !== 109 || (c0 !== 97 && c0 !== 112)) return null; // am / pm
            pm = c0 === 112 ? 1 : 0;
            pos += 2;
            // AM/PM is written in capitals by default; only lower case needs remembering.
            if ((text.charCodeAt(start) | 0) >= 97) style |= CASE_LOWER << CASE_SHIFT;
            break;
          }
          default: {
            const zone = this.#zone;
            const end =
              tok.kind === ZONE_GENERAL
                ? readGeneralZone(text, pos, zone)
                : tok.kind === ZONE_RFC822
                  ? readRfc822Zone(text, pos, zone)
                  : readIsoZone(text, pos, tok.count, zone);
            if (end < 0) return null;
            offsetMs = zone.offsetMs;
            zoneText = text.slice(pos, end);
            pos = end;
          }
        }
      }
      if (style !== 0) {
        if (styles === null) styles = new Array<number>(tokens.length).fill(0);
        styles[t] = style;
      }
    }

    let hour = 0;
    if (hour24 >= 0) hour = hour24;
    else if (hour12 >= 0) hour = hour12 + (pm === 1 ? 12 : 0);
    if (!this.#hasYear && referenceMs !== undefined) {
      const timeOfDay = hour * 3_600_000 + minute * 60_000 + second * 1000 + millis;
      year = inferYear(month, day, timeOfDay, offsetMs, referenceMs);
      if (year < 0) return null;
    }
    if (day > daysInMonth(year, month)) return null;
    const carryMs = millis - (millis % 1000);
    const ms = civilToMs(year, month, day, hour, minute, second, millis % 1000) + carryMs - offsetMs;
    if (!Number.isFinite(ms)) return null;
    return {
      ms,
      offsetMs,
      zoneText,
      precisionMs: this.precisionMs,
      style: 0,
      subMs: '',
      trailing: pos < len ? text.slice(pos) : '',
      fieldStyles: styles,
      carryMs,
      yearless: !this.#hasYear,
      writer: this,
    };
  }

  write(ms: number, style: ParsedTime): string {
    return this.format(ms, style);
  }

  format(ms: number, style?: ParsedTime | null): string {
    const s = style ?? null;
    const step = Math.floor((ms + (s === null ? 0 : s.offsetMs)) / this.precisionMs);
    if (s === this.#lastStyle && step === this.#lastStep && this.precisionMs > 1) return this.#lastOut;
    const out = this.#followRun(ms, s) ?? this.#format(ms, s);
    this.#lastStyle = s;
    this.#lastStep = step;
    this.#lastOut = out;
    return out;
  }

  #lastStyle: ParsedTime | null | undefined = undefined;
  #lastStep = Number.NaN;
  #lastOut = '';

  // Values of one device come in runs within a minute: the last full #format output, the wall-clock
  // minute it was written for, its style, and where its fixed-width seconds and milliseconds stand
  // (-1: the output has no such field that can be patched). Within the same minute and style, no
  // other field's text can differ, so the next value is the last text with those digits replaced.
  #runOut = '';
  #runMinute = Number.NaN;
  #runStyle: ParsedTime | null = null;
  #runSecondAt = -1;
  #runSecondWidth = 0;
  #runMilliAt = -1;
  #runMilliWidth = 0;

  /** The output for `ms` from the last one when it lies in the same minute and style, else undefined. */
  #followRun(ms: number, style: ParsedTime | null): string | undefined {
    const run = this.#runStyle;
    if (style === null || run === null || !Number.isInteger(ms)) return undefined;
    if (
      style !== run &&
      (style.offsetMs !== run.offsetMs ||
        style.carryMs !== run.carryMs ||
        style.fieldStyles !== run.fieldStyles ||
        style.zoneText !== run.zoneText ||
        style.trailing !== run.trailing)
    ) {
      return undefined;
    }
    const wall = ms - style.carryMs + style.offsetMs;
    const minute = Math.floor(wall / 60_000);
    if (minute !== this.#runMinute) return undefined;
    const rest = wall - minute * 60_000;
    const second = Math.floor(rest / 1000);
    const milli = rest - second * 1000;
    const text = this.#runOut;
    const sAt = this.#runSecondAt;
    const mAt = this.#runMilliAt;
    let out: string;
    if (mAt < 0) {
      out =
        text.slice(0, sAt) + padZero(second, this.#runSecondWidth) + text.slice(sAt + this.#runSecondWidth);
    } else if (sAt < 0) {
      out = text.slice(0, mAt) + padZero(milli, this.#runMilliWidth) + text.slice(mAt + this.#runMilliWidth);
    } else {
      const [a, aw, av, b, bw, bv] =
        sAt < mAt
          ? [sAt, this.#runSecondWidth, second, mAt, this.#runMilliWidth, milli]
          : [mAt, this.#runMilliWidth, milli, sAt, this.#runSecondWidth, second];
      out = text.slice(0, a) + padZero(av, aw) + text.slice(a + aw, b) + padZero(bv, bw) + text.slice(b + bw);
    }
    this.#runOut = out;
    this.#runStyle = style;
    return out;
  }

  #format(ms: number, style: ParsedTime | null): string {
    this.#runStyle = null;
    if (this.problem !== undefined || !Number.isFinite(ms)) return '';
    const tokens = this.#tokens;
    const offsetMs = style ? style.offsetMs : 0;
    const carryMs = style ? style.carryMs : 0;
    // Where the seconds and milliseconds land in `out`, when written at a width their values in a
    // minute cannot change (see #followRun); `patchable` turns false for anything else.
    let secondAt = -1;
    let secondWidth = 0;
    let milliAt = -1;
    let milliWidth = 0;
    let patchable = style !== null && this.#runPatchable && carryMs === 0 && Number.isInteger(ms);
    const styles = style ? style.fieldStyles : null;
    const f = msToCivil(ms - carryMs + offsetMs, this.#fields);
    let out = '';
    for (let t = 0; t < tokens.length; t++) {
      const tok = tokens[t] as Token;
      if (tok.kind === LITERAL) {
        out += tok.text;
        continue;
      }
      const s = styles === null ? 0 : (styles[t] ?? 0);
      const ws = s & WS_MASK;
      const pad = s & WS_TAB ? '\t' : ' ';
      if (tok.numeric) {
        let value: number;
        switch (tok.kind) {
          case YEAR:
            value = tok.count === 2 || s & TWO_DIGIT_YEAR ? f.year % 100 : f.year;
            break;
          case MONTH:
            value = f.month;
            break;
          case DAY:
            value = f.day;
            break;
          case HOUR_0_23:
            value = f.hour;
            break;
          case HOUR_1_24:
            value = f.hour === 0 ? 24 : f.hour;
            break;
          case HOUR_1_12:
            value = f.hour % 12 === 0 ? 12 : f.hour % 12;
            break;
          case HOUR_0_11:
            value = f.hour % 12;
            break;
          case MINUTE:
            value = f.minute;
            break;
          case SECOND:
            value = f.second;
            break;
          default:
            value = carryMs + f.millisecond;
        }
        const twoDigits = (tok.kind === YEAR && tok.count === 2) || s & TWO_DIGIT_YEAR;
        if (patchable && (tok.kind === SECOND || tok.kind === MILLI)) {
          // Fixed width: zero-padded to at least as many digits as the field can have in a minute.
          const width = tok.kind === SECOND ? 2 : 3;
          if (ws > 0 || s & UNPADDED || tok.count < width) patchable = false;
          else if (tok.kind === SECOND) {
            secondAt = out.length;
            secondWidth = tok.count;
          } else {
            milliAt = out.length;
            milliWidth = tok.count;
          }
        }
        if (ws > 0) {
          // Space-padded like C's %e ("Jun  6"): right-align in the width that was read.
          const digits = String(value);
          const width = ws + ((s >>> DIGITS_SHIFT) & 0xff);
          out += digits.length >= width ? digits : pad.repeat(width - digits.length) + digits;
        } else if (s & UNPADDED && !twoDigits) {
          out += String(value);
        } else {
          out += padZero(value, twoDigits ? 2 : tok.count);
        }
        continue;
      }
      if (ws > 0) out += pad.repeat(ws);
      const nameCase = (s >>> CASE_SHIFT) & 3;
      switch (tok.kind) {
        case MONTH: {
          const long = s & LONG_NAME ? true : s & SHORT_NAME ? false : tok.count >= 4;
          out += inCase((long ? MONTHS_LONG : MONTHS_SHORT)[f.month - 1] as string, nameCase);
          break;
        }
        case WEEKDAY: {
          const long = s & LONG_NAME ? true : s & SHORT_NAME ? false : tok.count >= 4;
          out += inCase((long ? DAYS_LONG : DAYS_SHORT)[f.weekday] as string, nameCase);
          break;
        }
        case AMPM: {
          const word = f.hour >= 12 ? 'PM' : 'AM';
          out += nameCase === CASE_LOWER ? word.toLowerCase() : word;
          break;
        }
        default:
          out +=
            style && style.zoneText !== ''
              ? style.zoneText
              : defaultZoneText(
                  tok.kind === ZONE_GENERAL ? 'z' : tok.kind === ZONE_RFC822 ? 'Z' : 'X',
                  tok.count,
                );
      }
    }
    const written = style && style.trailing !== '' ? out + style.trailing : out;
    if (patchable && style !== null && (secondAt >= 0 || milliAt >= 0)) {
      this.#runOut = written;
      this.#runMinute = Math.floor((ms - carryMs + offsetMs) / 60_000);
      this.#runStyle = style;
      this.#runSecondAt = secondAt;
      this.#runSecondWidth = secondWidth;
      this.#runMilliAt = milliAt;
      this.#runMilliWidth = milliWidth;
    }
    return written;
  }
}

function precisionOf(tokens: readonly Token[]): number {
  let p = 86_400_000;
  for (const tok of tokens) {
    if (tok.kind === MILLI) return 1;
    if (tok.kind === SECOND) p = Math.min(p, 1000);
    else if (tok.kind === MINUTE) p = Math.min(p, 60_000);
    else if (tok.kind === HOUR_0_23 || tok.kind === HOUR_1_24) p = Math.min(p, 3_600_000);
    else if (tok.kind === HOUR_1_12 || tok.kind === HOUR_0_11) p = Math.min(p, 3_600_000);
  }
  return p;
}
