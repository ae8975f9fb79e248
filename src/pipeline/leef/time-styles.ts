// Pass 1 reads every devTime value; pass 2 needs the same readings to write the moved values. An
// epoch value is its instant alone, so LineIndexes keep it and pass 2 reads nothing again. Other
// values (devTimeFormat patterns, the suggested patterns, ISO 8601) are an instant plus a style:
// everything else in a ParsedTime, which the values of a shipment share a few of. Pass 1 keeps each
// line's instant and the number of its style here, and pass 2 rebuilds the reading from both
// instead of searching the line for devTimeFormat and reading the value again. On the peers
// benchmark's archive (one line in four formatted) pass 2 took 13-15 % less main-thread time and
// pass 1 10-20 ms more per million lines; on the all-formatted one lines/s rose 10-15 %
// (docs/performance.md, sixth sitting).

import type { ParsedTime } from '../time/parsed-time.ts';

/** Styles kept per shipment; later new ones are not kept (their lines are read again in pass 2). */
export const MAX_TIME_STYLES = 1024;

/** Styles compared field by field before a key is built (as many as LeefLineReader's patterns). */
const RECENT_STYLES = 8;

/** The longest text (and field-style list) a kept style may hold; longer ones are read again. */
const MAX_STYLE_TEXT = 64;

/**
 * The styles of a shipment's devTime readings (a ParsedTime without its instant), numbered in the
 * order pass 1 met them. Only readings that do not depend on the reference instant are kept:
 * year-less ones are read against another reference in pass 2 (see finishFirstPass). Nor are
 * styles with long texts (MAX_STYLE_TEXT): at most MAX_TIME_STYLES small ones live as long as
 * the shipment, whatever an archive holds.
 */
export class TimeStyles {
  readonly #styles: ParsedTime[] = [];
  readonly #ids = new Map<string, number>();
  readonly #writers = new Map<object, number>();
  readonly #max: number;
  // The styles met last, newest reading of each (see idOf), and their numbers: a shipment's
  // values mostly cycle through a few styles (one per device or pattern).
  readonly #recent: ParsedTime[] = [];
  readonly #recentIds: number[] = [];
  #recentNext = 0;

  constructor(max = MAX_TIME_STYLES) {
    this.#max = max;
  }

  /** How many styles are kept. */
  get size(): number {
    return this.#styles.length;
  }

  /** The number of the style of `parsed`, or -1 when it is not kept (year-less, or too many). */
  idOf(parsed: ParsedTime): number {
    // One of the styles met last: fields compared, no key built (the writer first, which tells
    // most styles apart at once). Small, so that it inlines into pass 1's loop.
    const recent = this.#recent;
    for (let i = 0; i < recent.length; i++) {
      if (sameStyle(parsed, recent[i] as ParsedTime)) {
        // The newest reading of the style: values read from the last one share its strings, so
        // the next comparison finds them identical at once.
        recent[i] = parsed;
        return this.#recentIds[i] as number;
      }
    }
    return this.#intern(parsed);
  }

  #intern(parsed: ParsedTime): number {
    if (parsed.yearless || parsed.writer === null || !isSmall(parsed)) return -1;
    const full = this.#styles.length >= this.#max;
    // A writer never seen has no kept style yet: when full, nothing to look up (and the map of
    // writers stays as small as the styles).
    if (full && !this.#writers.has(parsed.writer)) return -1;
    const key = this.#keyOf(parsed);
    let id = this.#ids.get(key);
    if (id === undefined) {
      if (full) return -1;
      id = this.#styles.length;
      this.#styles.push(parsed);
      this.#ids.set(key, id);
    }
    const at = this.#recent.length < RECENT_STYLES ? this.#recent.length : this.#recentNext;
    this.#recentNext = (at + 1) % RECENT_STYLES;
    this.#recent[at] = parsed;
    this.#recentIds[at] = id;
    return id;
  }

  /** The reading of instant `ms` in style `id` (idOf): equal, field for field, to pass 1's. */
  at(id: number, ms: number): ParsedTime {
    const s = this.#styles[id] as ParsedTime;
    return {
      ms,
      offsetMs: s.offsetMs,
      zoneText: s.zoneText,
      precisionMs: s.precisionMs,
      style: s.style,
      subMs: s.subMs,
      trailing: s.trailing,
      fieldStyles: s.fieldStyles,
      carryMs: s.carryMs,
      yearless: s.yearless,
      writer: s.writer,
    };
  }

  // Every field but `ms`, unambiguously (JSON), the writer by its number.
  #keyOf(p: ParsedTime): string {
    const writer = p.writer as object;
    let w = this.#writers.get(writer);
    if (w === undefined) {
      w = this.#writers.size;
      this.#writers.set(writer, w);
    }
    return JSON.stringify([
      p.offsetMs,
      p.zoneText,
      p.precisionMs,
      p.style,
      p.subMs,
      p.trailing,
      p.fieldStyles,
      p.carryMs,
      p.yearless,
      w,
    ]);
  }
}

/**
 * Whether the style's texts are short enough to keep: `trailing` is whatever follows the pattern
 * in the value (up to a whole line), and a kept style lives as long as the shipment.
 */
function isSmall(p: ParsedTime): boolean {
  return (
    p.trailing.length <= MAX_STYLE_TEXT &&
    p.zoneText.length <= MAX_STYLE_TEXT &&
    p.subMs.length <= MAX_STYLE_TEXT &&
    (p.fieldStyles === null || p.fieldStyles.length <= MAX_STYLE_TEXT)
  );
}

/** Whether `a` and `b` differ in their instant at most. */
function sameStyle(a: ParsedTime, b: ParsedTime): boolean {
  return (
    a.writer === b.writer &&
    a.offsetMs === b.offsetMs &&
    a.precisionMs === b.precisionMs &&
    a.style === b.style &&
    a.carryMs === b.carryMs &&
    a.yearless === b.yearless &&
    sameNumbers(a.fieldStyles, b.fieldStyles) &&
    a.zoneText === b.zoneText &&
    a.subMs === b.subMs &&
    a.trailing === b.trailing
  );
}

function sameNumbers(a: number[] | null, b: number[] | null): boolean {
  if (a === b) return true;
  if (a === null || b === null || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
