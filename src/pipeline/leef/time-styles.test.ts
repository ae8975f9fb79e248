import { describe, expect, it } from 'vitest';
import { compileDateFormat, DateFormatCache } from '../time/date-format.ts';
import { readDevTime } from '../time/devtime.ts';
import type { ParsedTime } from '../time/parsed-time.ts';
import { TimeStyles } from './time-styles.ts';

const REF = Date.UTC(2026, 10, 28, 12);

// One compiled pattern per pattern, as a shipment has: its writer is part of the style.
const formats = new DateFormatCache();

function read(value: string, pattern: string): ParsedTime {
  const parsed = formats.get(pattern).read(value, REF);
  if (parsed === null) throw new Error(`${value} does not read as ${pattern}`);
  return parsed;
}

/** A value unlike `v` of the same type (what a field of another style would hold). */
function other(v: unknown): unknown {
  if (typeof v === 'number') return v + 7;
  if (typeof v === 'string') return `${v}x`;
  if (typeof v === 'boolean') return !v;
  if (Array.isArray(v)) return [...v, 1];
  if (v === null) return [1];
  return { write: () => '' };
}

describe('TimeStyles', () => {
  it('numbers readings of one style alike, whatever their instant, and rebuilds them field for field', () => {
    const styles = new TimeStyles();
    const a = read('Jun 01 2024 10:00:00.000 PST', 'MMM dd yyyy HH:mm:ss.SSS z');
    const b = read('Jul 09 2025 23:59:59.999 PST', 'MMM dd yyyy HH:mm:ss.SSS z');
    const c = read('Jun 01 2024 10:00:00.000 GMT', 'MMM dd yyyy HH:mm:ss.SSS z');
    const id = styles.idOf(a);
    expect(id).toBe(0);
    expect(styles.idOf(b)).toBe(id);
    expect(styles.idOf(c)).toBe(1);
    expect(styles.idOf(a)).toBe(id);
    expect(styles.at(id, b.ms)).toEqual(b);
    expect(styles.at(1, c.ms)).toEqual(c);
    expect(styles.size).toBe(2);
  });

  it('tells apart readings that differ in any field but the instant, including fields added later', () => {
    const base = read('JUN 01 2024 10:00:00.000 +0200', 'MMM dd yyyy HH:mm:ss.SSS Z');
    // Every field of a real reading, so a field ParsedTime gains later is checked as well.
    for (const key of Object.keys(base) as (keyof ParsedTime)[]) {
      if (key === 'ms') continue;
      const styles = new TimeStyles();
      const changed = { ...base, [key]: other(base[key]) } as ParsedTime;
      // The other reading's style, kept right after the first one's, and then met again.
      expect(styles.idOf(base), key).toBe(0);
      if (key === 'yearless' || key === 'writer') continue;
      expect(styles.idOf(changed), key).toBe(1);
      expect(styles.idOf(base), key).toBe(0);
      expect(styles.idOf(changed), key).toBe(1);
    }
  });

  it('keeps no year-less reading (pass 2 reads those against another reference)', () => {
    const styles = new TimeStyles();
    const yearless = read('Jun 01 10:00:00', 'MMM dd HH:mm:ss');
    expect(yearless.yearless).toBe(true);
    expect(styles.idOf(yearless)).toBe(-1);
    const dated = read('Jun 01 2024 10:00:00', 'MMM dd yyyy HH:mm:ss');
    expect(styles.idOf(dated)).toBe(0);
    // Right after a kept style, a year-less reading of the same writer is still not kept.
    expect(styles.idOf({ ...dated, yearless: true })).toBe(-1);
  });

  it('keeps readings of every reader: ISO 8601 with digits below the millisecond, suggested patterns, epoch', () => {
    const styles = new TimeStyles();
    for (const value of ['2024-06-01T10:00:00.123456+02:00', 'Jun 01 2024 10:00:00', '1717236000']) {
      const parsed = readDevTime(value, null, REF);
      expect(parsed, value).not.toBeNull();
      const id = styles.idOf(parsed as ParsedTime);
      expect(id, value).toBeGreaterThanOrEqual(0);
      expect(styles.at(id, (parsed as ParsedTime).ms), value).toEqual(parsed);
    }
  });

  it('keeps no more styles than its limit; later new ones are not kept', () => {
    const styles = new TimeStyles(2);
    const pattern = 'yyyy-MM-dd HH:mm:ss Z';
    expect(styles.idOf(read('2024-06-01 10:00:00 +0100', pattern))).toBe(0);
    expect(styles.idOf(read('2024-06-01 10:00:00 +0200', pattern))).toBe(1);
    expect(styles.idOf(read('2024-06-01 10:00:00 +0300', pattern))).toBe(-1);
    expect(styles.idOf(read('2024-06-02 11:00:00 +0100', pattern))).toBe(0);
  });

  it('tells apart readings written by different compiled patterns, even of the same text', () => {
    const styles = new TimeStyles();
    const pattern = 'yyyy-MM-dd HH:mm:ss';
    const a = compileDateFormat(pattern).read('2024-06-01 10:00:00', REF) as ParsedTime;
    const b = compileDateFormat(pattern).read('2024-06-01 10:00:00', REF) as ParsedTime;
    expect(styles.idOf(a)).toBe(0);
    expect(styles.idOf(b)).toBe(1);
    expect(styles.at(1, b.ms).writer).toBe(b.writer);
  });

  it('finds a style again by its key once eight others were met after it', () => {
    const styles = new TimeStyles();
    const pattern = 'yyyy-MM-dd HH:mm:ss Z';
    for (let h = 0; h < 10; h++) {
      expect(styles.idOf(read(`2024-06-01 10:00:00 +0${h}00`, pattern))).toBe(h);
    }
    expect(styles.idOf(read('2024-07-01 11:00:00 +0000', pattern))).toBe(0);
    expect(styles.idOf(read('2024-07-01 11:00:00 +0900', pattern))).toBe(9);
  });

  it('keeps no style with a long text: what follows the pattern in the value may be a whole line', () => {
    const styles = new TimeStyles();
    const long = read(`2024-06-01 10:00:00 ${'x'.repeat(65)}`, 'yyyy-MM-dd HH:mm:ss');
    expect(long.trailing.length).toBe(66);
    expect(styles.idOf(long)).toBe(-1);
    expect(styles.idOf(read(`2024-06-01 10:00:00 ${'x'.repeat(63)}`, 'yyyy-MM-dd HH:mm:ss'))).toBe(0);
    expect(styles.size).toBe(1);
  });
});
