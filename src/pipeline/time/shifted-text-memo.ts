import { MAX_WRITABLE_MS, MIN_WRITABLE_MS } from './civil.ts';
import { type ParsedTime, sameWrittenStep, type TimeWriter, writeShiftedOrNull } from './parsed-time.ts';

const MINUTE_MS = 60_000;

/**
 * writeShiftedOrNull for timestamps that come one after another (syslog header timestamps of a
 * shipment): the same ParsedTime and shift give the last text again, and a timestamp in the style
 * of the last one written whose moved instant falls into the same wall-clock minute gets that
 * text's part before the seconds plus its own seconds (TimeWriter.minuteTail) instead of a full
 * write: consecutive events are mostly seconds apart, and the full write computes the calendar
 * date each time. The same text as writeShiftedOrNull, always; a property test holds it to that.
 */
export class ShiftedTextMemo {
  // The last call.
  #for: ParsedTime | null = null;
  #shift = Number.NaN;
  #text: string | null = null;
  // The last full write: its style and writer, its wall-clock minute and its text before the seconds.
  #style: ParsedTime | null = null;
  #writer: Required<TimeWriter> | null = null;
  #minute = Number.NaN;
  #prefix = '';

  /** writeShiftedOrNull(parsed, shiftMs). */
  write(parsed: ParsedTime, shiftMs: number): string | null {
    if (parsed !== this.#for || shiftMs !== this.#shift) {
      this.#for = parsed;
      this.#shift = shiftMs;
      this.#text = this.#write(parsed, shiftMs);
    }
    return this.#text;
  }

  #write(p: ParsedTime, shift: number): string | null {
    const writer = p.writer;
    const style = this.#style;
    const known = this.#writer;
    if (
      style !== null &&
      known !== null &&
      writer === known &&
      p.style === style.style &&
      p.offsetMs === style.offsetMs &&
      p.zoneText === style.zoneText &&
      p.subMs === style.subMs &&
      p.precisionMs === style.precisionMs
    ) {
      const ms = p.ms + shift;
      const local = ms + p.offsetMs;
      const minute = Math.floor(local / MINUTE_MS);
      if (minute === this.#minute && ms >= MIN_WRITABLE_MS && ms <= MAX_WRITABLE_MS) {
        if (sameWrittenStep(p, ms)) return null;
        const rest = local - minute * MINUTE_MS;
        const second = Math.floor(rest / 1000);
        return this.#prefix + known.minuteTail(second, rest - second * 1000, p);
      }
    }
    const text = writeShiftedOrNull(p, shift);
    if (text !== null && writer !== null && writer.minuteTail !== undefined && p.precisionMs < MINUTE_MS) {
      const local = p.ms + shift + p.offsetMs;
      const minute = Math.floor(local / MINUTE_MS);
      const rest = local - minute * MINUTE_MS;
      const second = Math.floor(rest / 1000);
      const tail = writer.minuteTail(second, rest - second * 1000, p);
      // A writer's tail is the end of its text by contract; checked, as a wrong prefix would be
      // written into every later timestamp of the minute.
      if (text.endsWith(tail)) {
        this.#style = p;
        this.#writer = writer as Required<TimeWriter>;
        this.#minute = minute;
        this.#prefix = text.slice(0, text.length - tail.length);
        return text;
      }
    }
    this.#style = null;
    return text;
  }
}
