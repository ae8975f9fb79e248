/** English month names, January first (what Java's default locale and syslog use). */
export const MONTHS_LONG = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;

/** Three-letter English month abbreviations, Jan first. */
export const MONTHS_SHORT = [
  'Jan',
  'Feb',
  'Mar',
  'Apr',
  'May',
  'Jun',
  'Jul',
  'Aug',
  'Sep',
  'Oct',
  'Nov',
  'Dec',
] as const;

/** English day names, Sunday first (index = weekday). */
export const DAYS_LONG = [
  'Sunday',
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
] as const;

/** Three-letter English day abbreviations, Sun first. */
export const DAYS_SHORT = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;

/** Letter case of a written name: Title (default), UPPER or lower. */
export const CASE_TITLE = 0;
export const CASE_UPPER = 1;
export const CASE_LOWER = 2;

/** Whether `name` (ASCII letters) is written at `pos` of `text`, ignoring case. */
export function matchesIgnoreCase(text: string, pos: number, name: string): boolean {
  if (pos + name.length > text.length) return false;
  for (let i = 0; i < name.length; i++) {
    // name holds only ASCII letters, so OR-ing 0x20 folds case without false matches.
    if ((text.charCodeAt(pos + i) | 32) !== (name.charCodeAt(i) | 32)) return false;
  }
  return true;
}

/**
 * Index of the first of `names` written at `pos` (case-insensitive), or -1. Java tries long
 * names before short ones, so callers pass the long list first.
 */
export function matchName(text: string, pos: number, names: readonly string[]): number {
  for (let i = 0; i < names.length; i++) {
    if (matchesIgnoreCase(text, pos, names[i] as string)) return i;
  }
  return -1;
}

/** Case style of `text.slice(start, end)`: UPPER (no lower-case letter), lower (no capital), else Title. */
export function caseOf(text: string, start: number, end: number): number {
  let upper = false;
  let lower = false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 65 && c <= 90) upper = true;
    else if (c >= 97 && c <= 122) lower = true;
  }
  if (upper && !lower && end - start > 1) return CASE_UPPER;
  if (lower && !upper) return CASE_LOWER;
  return CASE_TITLE;
}

/** `name` (Title case) in case style `style`. */
export function inCase(name: string, style: number): string {
  if (style === CASE_UPPER) return name.toUpperCase();
  if (style === CASE_LOWER) return name.toLowerCase();
  return name;
}
