/**
 * ECS date values: ISO 8601 strings (as Elasticsearch's `strict_date_optional_time` writes them),
 * epoch milliseconds as JSON numbers, and epoch milliseconds as digit strings (`epoch_millis`).
 * A shifted value is written the way it was read: same zone notation and offset, same separator,
 * same number of fraction digits (digits beyond milliseconds are kept as they were), number stays
 * number. Years outside 1000-9999 are not read, so a value never changes its width.
 */

/**
 * One shipment pass's scratch for ECS date values: what the last read found, for
 * ecsTimeAfterShift, and the last day read and written (consecutive events mostly fall on the
 * same day). Fields, so the hot path allocates nothing; one per pass, never shared.
 */
export class EcsTimeScratch {
  // What the last readEcsTimeValue / readEcsTimeText call read: the value's unit (see
  // ecsTimeUnitMs; a shift moves it by whole units only), its notation (0: JSON number, 1: epoch
  // digits, 2: ISO) and, for ISO, the offset of its written wall clock.
  unitMs = 1;
  kind = 0;
  offsetMs = 0;
  /** daysFromCivil: the last date's key (year, month, day packed) and its day number. */
  civilKey = -1;
  civilDays = 0;
  /** dateOfDays: the last day number written and its `YYYY-MM-DD` (null outside years 1000-9999). */
  days = Number.NaN;
  date: string | null = null;
  /** What the last parseIso read (one object per pass, not one per value). */
  readonly iso = new IsoTime();
}

// The local times ISO values can be written for (years 1000-9999, see dateOfDays).
const MIN_ISO_LOCAL_MS = Date.UTC(1000, 0, 1);
const END_ISO_LOCAL_MS = Date.UTC(10000, 0, 1);

/**
 * The instant the value last read with `scratch` (`beforeMs`) denotes once shiftEcsTimeValue has
 * moved it by `shiftMs`: moved by whole units; `beforeMs` itself when the moved value cannot be
 * written and the value stays as it was.
 */
export function ecsTimeAfterShift(beforeMs: number, shiftMs: number, scratch: EcsTimeScratch): number {
  const { unitMs, kind, offsetMs } = scratch;
  const moved = unitMs <= 1 ? beforeMs + shiftMs : beforeMs + Math.floor(shiftMs / unitMs) * unitMs;
  if (kind === 1) return isWritableEpoch(moved) ? moved : beforeMs;
  if (kind === 2) {
    const local = Math.floor((moved + offsetMs) / DAY_MS) * DAY_MS;
    return local >= MIN_ISO_LOCAL_MS && local < END_ISO_LOCAL_MS ? moved : beforeMs;
  }
  return moved;
}

/**
 * Epoch milliseconds of an ECS date value, or null when it is not a readable date. `scratch`
 * receives what was read (see ecsTimeAfterShift); a shipment passes its own.
 */
export function readEcsTimeValue(
  value: unknown,
  scratch: EcsTimeScratch = new EcsTimeScratch(),
): number | null {
  if (typeof value === 'number') {
    scratch.unitMs = 1;
    scratch.kind = 0;
    return Number.isFinite(value) ? value : null;
  }
  if (typeof value !== 'string') return null;
  return readEcsTimeText(value, 0, value.length, scratch);
}

/**
 * The value moved by `shiftMs`, in its own notation; null when it is not a readable date or the
 * result would leave the years the notation can hold. A value with fewer than three fraction digits
 * (or none) can only move in its own unit: it moves by `shiftMs` rounded down to that unit, so it
 * never lands later than the exact shift would put it.
 */
export function shiftEcsTimeValue(
  value: unknown,
  shiftMs: number,
  scratch: EcsTimeScratch = new EcsTimeScratch(),
): string | number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value + shiftMs : null;
  if (typeof value !== 'string') return null;
  return shiftEcsTimeText(value, 0, value.length, shiftMs, scratch);
}

/** The smallest step a value's notation can express (1 ms when it has 3 or more fraction digits). */
export function ecsTimeUnitMs(value: unknown, scratch: EcsTimeScratch = new EcsTimeScratch()): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? 1 : null;
  if (typeof value !== 'string') return null;
  if (isEpochDigits(value, 0, value.length)) return 1;
  return parseIso(value, 0, value.length, scratch)?.unitMs ?? null;
}

/** readEcsTimeValue of the string `text.slice(from, to)`, without slicing it out. */
export function readEcsTimeText(
  text: string,
  from: number,
  to: number,
  scratch: EcsTimeScratch = new EcsTimeScratch(),
): number | null {
  scratch.unitMs = 1;
  if (isEpochDigits(text, from, to)) {
    scratch.kind = 1;
    return Number(text.slice(from, to));
  }
  const iso = parseIso(text, from, to, scratch);
  if (iso === null) return null;
  scratch.unitMs = iso.unitMs;
  scratch.kind = 2;
  scratch.offsetMs = iso.offsetMs;
  return iso.utcMs;
}

/** shiftEcsTimeValue of the string `text.slice(from, to)`, without slicing it out. */
export function shiftEcsTimeText(
  text: string,
  from: number,
  to: number,
  shiftMs: number,
  scratch: EcsTimeScratch = new EcsTimeScratch(),
): string | null {
  if (isEpochDigits(text, from, to)) {
    const shifted = Number(text.slice(from, to)) + shiftMs;
    return isWritableEpoch(shifted) ? String(shifted) : null;
  }
  const iso = parseIso(text, from, to, scratch);
  if (iso === null) return null;
  const unit = iso.unitMs;
  return formatIso(iso, iso.utcMs + Math.floor(shiftMs / unit) * unit, text, to, scratch);
}

/**
 * shiftEcsTimeText written as bytes at `out[at]` (room for `to - from` bytes, or 15 for epoch
 * digits): the offset after them, or -1 when shiftEcsTimeText gives null. No string is built: this
 * runs for every time value of every ASCII document pass 2 ships (ecs-byte-document.ts);
 * ecs-byte-document.test.ts holds it to shiftEcsTimeText.
 */
export function writeShiftedEcsTimeText(
  text: string,
  from: number,
  to: number,
  shiftMs: number,
  scratch: EcsTimeScratch,
  out: Buffer,
  at: number,
): number {
  if (isEpochDigits(text, from, to)) {
    const shifted = Number(text.slice(from, to)) + shiftMs;
    return isWritableEpoch(shifted) ? writeDecimal(out, at, shifted) : -1;
  }
  const iso = parseIso(text, from, to, scratch);
  if (iso === null) return -1;
  const unit = iso.unitMs;
  const local = iso.utcMs + Math.floor(shiftMs / unit) * unit + iso.offsetMs;
  const days = Math.floor(local / DAY_MS);
  let rest = local - days * DAY_MS;
  const date = dateOfDays(days, scratch);
  if (date === null) return -1;
  let o = writeText(out, at, date, 0, 10);
  if (iso.dateOnly) return o;
  const hour = Math.floor(rest / 3_600_000);
  rest -= hour * 3_600_000;
  const minute = Math.floor(rest / 60_000);
  rest -= minute * 60_000;
  out[o] = iso.separator.charCodeAt(0);
  o = write2(out, o + 1, hour);
  out[o] = 0x3a;
  o = write2(out, o + 1, minute);
  if (iso.hasSeconds) {
    const second = Math.floor(rest / 1000);
    out[o] = 0x3a;
    o = write2(out, o + 1, second);
    if (iso.msDigits > 0) {
      out[o++] = iso.fractionSeparator.charCodeAt(0);
      const ms = rest - second * 1000;
      out[o] = 48 + Math.floor(ms / 100);
      if (iso.msDigits > 1) out[o + 1] = 48 + (Math.floor(ms / 10) % 10);
      if (iso.msDigits > 2) out[o + 2] = 48 + (ms % 10);
      o += iso.msDigits;
    }
  }
  return iso.tailStart < to ? writeText(out, o, text, iso.tailStart, to) : o;
}

/** Writes the non-negative integer `n` in decimal at `out[at]`; returns the offset after it. */
function writeDecimal(out: Buffer, at: number, n: number): number {
  let digits = 1;
  for (let v = n; v >= 10; v = Math.floor(v / 10)) digits++;
  for (let k = at + digits - 1, v = n; k >= at; k--, v = Math.floor(v / 10)) out[k] = 48 + (v % 10);
  return at + digits;
}

function write2(out: Buffer, at: number, n: number): number {
  out[at] = 48 + Math.floor(n / 10);
  out[at + 1] = 48 + (n % 10);
  return at + 2;
}

function writeText(out: Buffer, at: number, s: string, from: number, to: number): number {
  for (let k = from; k < to; k++) out[at++] = s.charCodeAt(k);
  return at;
}

/** An ISO value as parseIso read it: what formatIso needs to write a moved instant the same way. */
class IsoTime {
  utcMs = 0;
  /** Offset of the written local time from UTC, in ms. */
  offsetMs = 0;
  /** `YYYY-MM-DD` alone: no time, no zone (midnight UTC). */
  dateOnly = false;
  /** Between date and time: `T`, `t` or a space. */
  separator = 'T';
  hasSeconds = false;
  fractionSeparator = '';
  /** Fraction digits that carry milliseconds (at most 3). */
  msDigits = 0;
  /** Where the unchanged tail starts: fraction digits beyond milliseconds, then the zone. */
  tailStart = 0;
  unitMs = 1;
}

const DAY_MS = 86_400_000;
const PAD2 = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const PAD3 = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));

// An epoch-milliseconds string is written only with 5 to 15 digits, so it reads back as one.
function isWritableEpoch(ms: number): boolean {
  return Number.isInteger(ms) && ms >= 10_000 && ms <= 999_999_999_999_999;
}

// Up to 4 digits Elasticsearch reads as a year, not as epoch milliseconds; 15 keeps it a safe integer.
function isEpochDigits(s: string, from: number, to: number): boolean {
  const length = to - from;
  if (length < 5 || length > 15) return false;
  for (let k = from; k < to; k++) if (!isDigit(s.charCodeAt(k))) return false;
  return true;
}

/**
 * Parses `YYYY-MM-DD(T|t| )hh:mm[:ss[(.|,)f{1,9}]][Z|z|±hh|±hhmm|±hh:mm]`, or `YYYY-MM-DD` alone, in `s[from, to)` by
 * character codes: this runs for every time field of every event, where a regex, slices and Date
 * objects cost too much. The result is `scratch.iso`, valid until the next parse.
 */
function parseIso(s: string, from: number, to: number, scratch: EcsTimeScratch): IsoTime | null {
  if (to - from === 10) return parseDate(s, from, to, scratch);
  if (to - from < 16) return null;
  const year = digits(s, from, 4);
  const month = digits(s, from + 5, 2);
  const day = digits(s, from + 8, 2);
  const sep = s.charCodeAt(from + 10);
  const hour = digits(s, from + 11, 2);
  const minute = digits(s, from + 14, 2);
  if (year < 1000 || s.charCodeAt(from + 4) !== 45 || s.charCodeAt(from + 7) !== 45) return null;
  if (s.charCodeAt(from + 13) !== 58 || (sep !== 84 && sep !== 116 && sep !== 32)) return null;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour < 0 || hour > 23)
    return null;
  if (minute < 0 || minute > 59) return null;
  let i = from + 16;
  let second = 0;
  let hasSeconds = false;
  let fractionSeparator = '';
  let msDigits = 0;
  let fractionDigits = 0;
  let ms = 0;
  if (s.charCodeAt(i) === 58 && i < to) {
    second = digits(s, i + 1, 2);
    if (second < 0 || second > 59) return null;
    hasSeconds = true;
    i += 3;
    const f = s.charCodeAt(i);
    if ((f === 46 || f === 44) && i < to) {
      fractionSeparator = f === 46 ? '.' : ',';
      let k = i + 1;
      while (k < to && isDigit(s.charCodeAt(k))) k++;
      fractionDigits = k - i - 1;
      if (fractionDigits === 0 || fractionDigits > 9) return null;
      msDigits = Math.min(fractionDigits, 3);
      const first = digits(s, i + 1, msDigits);
      ms = msDigits === 1 ? first * 100 : msDigits === 2 ? first * 10 : first;
      i += 1 + msDigits;
      // Sub-millisecond digits stay as they were: they are part of the tail.
      i += fractionDigits - msDigits;
    }
  }
  const tailStart = i - (fractionDigits - msDigits);
  let offsetMs = 0;
  if (i < to) {
    const z = s.charCodeAt(i);
    if (z === 90 || z === 122) {
      if (i + 1 !== to) return null;
    } else if (z === 43 || z === 45) {
      const hh = digits(s, i + 1, 2);
      let mm = 0;
      if (to === i + 5) mm = digits(s, i + 3, 2);
      else if (to === i + 6 && s.charCodeAt(i + 3) === 58) mm = digits(s, i + 4, 2);
      else if (to !== i + 3) return null;
      if (hh < 0 || hh > 23 || mm < 0 || mm > 59) return null;
      offsetMs = (z === 45 ? -1 : 1) * (hh * 60 + mm) * 60_000;
    } else {
      return null;
    }
  }
  const localMs =
    daysFromCivil(year, month, day, scratch) * DAY_MS + ((hour * 60 + minute) * 60 + second) * 1000 + ms;
  const iso = scratch.iso;
  iso.utcMs = localMs - offsetMs;
  iso.offsetMs = offsetMs;
  iso.dateOnly = false;
  iso.separator = sep === 84 ? 'T' : sep === 116 ? 't' : ' ';
  iso.hasSeconds = hasSeconds;
  iso.fractionSeparator = fractionSeparator;
  iso.msDigits = msDigits;
  iso.tailStart = tailStart;
  iso.unitMs = msDigits === 3 ? 1 : msDigits === 2 ? 10 : msDigits === 1 ? 100 : hasSeconds ? 1000 : 60_000;
  return iso;
}

/**
 * A date without a time, `YYYY-MM-DD` in `s[from, to)` (Elasticsearch's `strict_date_optional_time`
 * reads it as midnight UTC): it moves by whole days and is written back as a date.
 */
function parseDate(s: string, from: number, to: number, scratch: EcsTimeScratch): IsoTime | null {
  const year = digits(s, from, 4);
  const month = digits(s, from + 5, 2);
  const day = digits(s, from + 8, 2);
  if (year < 1000 || s.charCodeAt(from + 4) !== 45 || s.charCodeAt(from + 7) !== 45) return null;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  const iso = scratch.iso;
  iso.utcMs = daysFromCivil(year, month, day, scratch) * DAY_MS;
  iso.offsetMs = 0;
  iso.dateOnly = true;
  iso.separator = '';
  iso.hasSeconds = false;
  iso.fractionSeparator = '';
  iso.msDigits = 0;
  iso.tailStart = to;
  iso.unitMs = DAY_MS;
  return iso;
}

/** Writes `utcMs` the way `iso` was written; the tail (sub-ms digits, zone) is copied from `s`. */
function formatIso(
  iso: IsoTime,
  utcMs: number,
  s: string,
  to: number,
  scratch: EcsTimeScratch,
): string | null {
  const local = utcMs + iso.offsetMs;
  const days = Math.floor(local / DAY_MS);
  let rest = local - days * DAY_MS;
  const date = dateOfDays(days, scratch);
  if (date === null) return null;
  if (iso.dateOnly) return date;
  const hour = Math.floor(rest / 3_600_000);
  rest -= hour * 3_600_000;
  const minute = Math.floor(rest / 60_000);
  rest -= minute * 60_000;
  let out = `${date}${iso.separator}${PAD2[hour]}:${PAD2[minute]}`;
  if (iso.hasSeconds) {
    const second = Math.floor(rest / 1000);
    out += `:${PAD2[second]}`;
    if (iso.msDigits > 0) {
      const ms = PAD3[rest - second * 1000]!;
      out += iso.fractionSeparator + (iso.msDigits === 3 ? ms : ms.slice(0, iso.msDigits));
    }
  }
  return iso.tailStart < to ? out + s.slice(iso.tailStart, to) : out;
}

/**
 * Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). Consecutive
 * events mostly fall on the same day: the last date read is remembered in `scratch`.
 */
function daysFromCivil(year: number, month: number, day: number, scratch: EcsTimeScratch): number {
  const key = (year * 16 + month) * 32 + day;
  if (key === scratch.civilKey) return scratch.civilDays;
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  const days = era * 146_097 + doe - 719_468;
  scratch.civilKey = key;
  scratch.civilDays = days;
  return days;
}

/**
 * `YYYY-MM-DD` of a day number, or null outside years 1000-9999 (civil_from_days). Consecutive
 * events mostly fall on the same day: the last date written is remembered in `scratch`.
 */
function dateOfDays(days: number, scratch: EcsTimeScratch): string | null {
  if (days === scratch.days) return scratch.date;
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const date = year < 1000 || year > 9999 ? null : `${year}-${PAD2[month]}-${PAD2[day]}`;
  scratch.days = days;
  scratch.date = date;
  return date;
}

/** Decimal value of `count` digits at `at`, or -1 if any is not a digit. */
function digits(s: string, at: number, count: number): number {
  let v = 0;
  for (let k = at; k < at + count; k++) {
    const c = s.charCodeAt(k) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
