/** The minute isoUtc last wrote, kept per shipment pass (events come in order, minutes repeat). */
export class IsoUtcMemo {
  /** Minutes since the epoch of the last text written, NaN before the first. */
  minute = Number.NaN;
  /** `YYYY-MM-DDTHH:MM:` of that minute. */
  prefix = '';
}

/**
 * `new Date(ms).toISOString()` for a time value Date accepts (|ms| <= 8.64e15), faster for times
 * that come in order: each LEEF event converted to ECS gets an `@timestamp`, and toISOString cost
 * ≈ 0.7 µs per call, a tenth of the conversion. The text of a minute comes from toISOString once
 * and is kept in `memo`; seconds and milliseconds within it are appended from tables. Without a
 * memo (tests, single values) every call writes its minute afresh.
 */
export function isoUtc(ms: number, memo: IsoUtcMemo = new IsoUtcMemo()): string {
  // Date's TimeClip: the value truncated toward zero (-0 is +0).
  const t = Math.trunc(ms) + 0;
  const minute = Math.floor(t / 60_000);
  if (minute !== memo.minute) {
    const full = new Date(t).toISOString();
    // Years 0-9999 only: extended years (`+010000-…`) are written whole every time.
    if (full.length !== 24) return full;
    memo.minute = minute;
    memo.prefix = full.slice(0, 17);
  }
  const within = t - minute * 60_000;
  const second = Math.floor(within / 1000);
  return memo.prefix + (SECONDS[second] as string) + (MILLIS[within - second * 1000] as string);
}

const SECONDS = Array.from({ length: 60 }, (_, s) => `${String(s).padStart(2, '0')}.`);
const MILLIS = Array.from({ length: 1000 }, (_, m) => `${String(m).padStart(3, '0')}Z`);
