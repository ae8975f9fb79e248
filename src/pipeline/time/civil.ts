// Proleptic Gregorian calendar arithmetic on plain numbers. Date objects are avoided on the hot
// path: one timestamp per event is read and written twice per shipment, and allocating a Date plus
// eight getter calls costs more than the arithmetic below (H. Hinnant, "chrono-compatible
// low-level date algorithms").

/** Milliseconds in one day. */
export const DAY_MS = 86_400_000;

/** Broken-down UTC wall-clock fields of an instant. */
export interface CivilFields {
  year: number;
  /** 1-12 */
  month: number;
  /** 1-31 */
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
  /** 0 = Sunday … 6 = Saturday */
  weekday: number;
}

/** A fresh, zeroed fields record (callers reuse one to avoid per-line allocation). */
export function newCivilFields(): CivilFields {
  return { year: 1970, month: 1, day: 1, hour: 0, minute: 0, second: 0, millisecond: 0, weekday: 4 };
}

/** Days since 1970-01-01 of a calendar date (month 1-12; no range checks). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = month > 2 ? month - 3 : month + 9;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** Whether `year` has a 29 February. */
export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Number of days in `month` (1-12) of `year`. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return MONTH_DAYS[month - 1] ?? 0;
}

/** Epoch ms of UTC wall-clock fields (no range checks; callers validate first). */
export function civilToMs(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  millisecond: number,
): number {
  return (
    daysFromCivil(year, month, day) * DAY_MS +
    hour * 3_600_000 +
    minute * 60_000 +
    second * 1000 +
    millisecond
  );
}

/** Fills `out` with the UTC wall-clock fields of `ms` and returns it. */
export function msToCivil(ms: number, out: CivilFields): CivilFields {
  const days = Math.floor(ms / DAY_MS);
  let rest = ms - days * DAY_MS;
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const month = mp < 10 ? mp + 3 : mp - 9;
  out.year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  out.month = month;
  out.day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  out.hour = Math.floor(rest / 3_600_000);
  rest -= out.hour * 3_600_000;
  out.minute = Math.floor(rest / 60_000);
  rest -= out.minute * 60_000;
  out.second = Math.floor(rest / 1000);
  out.millisecond = rest - out.second * 1000;
  // 1970-01-01 was a Thursday.
  out.weekday = (((days + 4) % 7) + 7) % 7;
  return out;
}

/** Earliest instant the writers accept: 0001-01-01T00:00:00Z. */
export const MIN_WRITABLE_MS = -62_135_596_800_000;
/** Latest instant the writers accept: 9999-12-31T23:59:59.999Z. */
export const MAX_WRITABLE_MS = 253_402_300_799_999;

const TWO = Array.from({ length: 100 }, (_, i) => (i < 10 ? `0${i}` : String(i)));

/** `n` (0-99) as two digits. */
export function pad2(n: number): string {
  return TWO[n] ?? String(n);
}

/** `n` (non-negative integer) zero-padded to at least `width` digits. */
export function padZero(n: number, width: number): string {
  if (width === 2 && n < 100) return TWO[n] ?? String(n);
  const s = String(n);
  return s.length >= width ? s : '0'.repeat(width - s.length) + s;
}

/**
 * Year for a date written without one (RFC 3164 headers, year-less devTimeFormats). By default
 * the latest year in which the time is not after `referenceMs` plus one day: the day of slack
 * absorbs device clocks in zones up to UTC+14 that are read as UTC. With `nearest`, the year that
 * puts the time closest to the reference (for a header placed next to its own devTime, which may
 * be a little before or after it). A 29 February looks up to eight years around for a leap year.
 * -1 when no year fits.
 */
export function inferYear(
  month: number,
  day: number,
  timeOfDayMs: number,
  offsetMs: number,
  referenceMs: number,
  nearest = false,
): number {
  if (!Number.isFinite(referenceMs)) return -1;
  const refYear = civilYear(referenceMs);
  let best = -1;
  let bestDistance = Number.POSITIVE_INFINITY;
  // The nearest year is one of three around the reference unless the date is 29 February.
  const span = nearest && !(month === 2 && day === 29) ? 1 : 8;
  for (let y = refYear + (nearest ? span : 1); y >= refYear - span; y--) {
    if (day > daysInMonth(y, month)) continue;
    const t = daysFromCivil(y, month, day) * DAY_MS + timeOfDayMs - offsetMs;
    if (!nearest) {
      if (t <= referenceMs + DAY_MS) return y;
      continue;
    }
    const distance = Math.abs(t - referenceMs);
    if (distance < bestDistance) {
      best = y;
      bestDistance = distance;
    }
  }
  return best;
}

/** The UTC year of `ms` (msToCivil's year, without a fields record to fill). */
export function civilYear(ms: number): number {
  const z = Math.floor(ms / DAY_MS) + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  // March-based months: January and February (mp 10 and 11) belong to the next year.
  const mp = Math.floor((5 * doy + 2) / 153);
  return yoe + era * 400 + (mp >= 10 ? 1 : 0);
}
