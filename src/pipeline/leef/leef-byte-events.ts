// Pass 2 of a LEEF shipment as events held as bytes, for drivers that wrap each line in their own
// envelope (HEC). Tuned: each ASCII line is written rebased and labelled by LeefFrameWriter
// (framing `none`) into one buffer per batch, and its event points at those bytes, so no string is
// built per line and the batch keeps few small objects alive while it waits to be sent (strings
// held that long were most of a HEC shipment's garbage collection, docs/performance.md). Lines the
// writer does not cover take the string path (rebasedLine); both give the same `line`
// (shipment-differential.test.ts reads every event's `line`).

import type { OutboundEvent } from '../shipment/outbound-event.ts';
import { LeefFrameWriter } from './leef-frame-writer.ts';
import { type LeefLines, type RebasedLine, rebasedLine } from './leef-line-batch.ts';
import type { LeefLineReader } from './leef-line-reader.ts';

/** Bytes a batch buffer is given beyond the input's, per line (a longer devTime, a label). */
const SLACK_PER_LINE = 24;

/** A LEEF event whose rebased line is `lineBuf[lineStart, lineEnd)` (UTF-8); `line` decodes it when read. */
export class LeefByteEvent implements OutboundEvent {
  readonly lineBuf: Buffer;
  readonly lineStart: number;
  readonly lineEnd: number;
  readonly time: number | null;

  constructor(lineBuf: Buffer, lineStart: number, lineEnd: number, time: number | null) {
    this.lineBuf = lineBuf;
    this.lineStart = lineStart;
    this.lineEnd = lineEnd;
    this.time = time;
  }

  get line(): string {
    return this.lineBuf.toString('utf8', this.lineStart, this.lineEnd);
  }
}

/** Writes one pass's lines as LeefByteEvents: one per pass, sharing the pass's reader. */
export class LeefByteEventWriter {
  readonly #reader: LeefLineReader;
  readonly #lines: LeefFrameWriter;
  readonly #rebased: RebasedLine = { line: '', time: null };
  readonly #slack: number;

  /** `slackPerLine`: room per line beyond the input's and its label (tests give less to force new buffers). */
  constructor(reader: LeefLineReader, slackPerLine = SLACK_PER_LINE) {
    this.#reader = reader;
    this.#slack = slackPerLine;
    this.#lines = new LeefFrameWriter(reader, {
      header: { mode: 'preserve_raw', format: 'rfc3164', sourceIdentity: null },
      framing: 'none',
      maxMessageBytes: Number.POSITIVE_INFINITY,
      now: 0,
    });
  }

  /**
   * The events of `lines`, rebased and labelled: ASCII lines the writer covers as LeefByteEvents
   * in a buffer of the batch's own (kept alive by its events, never reused), the rest with `line`.
   */
  batch(lines: LeefLines): OutboundEvent[] {
    const events = new Array<OutboundEvent>(lines.count);
    const labBytes = lines.labIndex === null ? 0 : Buffer.byteLength(lines.labIndex) + 10;
    let room = 0;
    for (const segment of lines.segments) {
      const n = segment.starts.length;
      if (n > 0) room += (segment.ends[n - 1] as number) - (segment.starts[0] as number);
    }
    room += lines.count * (this.#slack + labBytes);
    let out = Buffer.allocUnsafeSlow(Math.max(0, room));
    let pos = 0;
    let k = 0;
    const writer = this.#lines;
    for (const segment of lines.segments) {
      const index = lines.indexes === null ? null : lines.indexes.find(segment, lines.entry);
      for (let j = 0; j < segment.starts.length; j++) {
        const n = writer.prepareLine(lines, segment, j, index);
        if (n < 0) {
          // FRAME_SLOW: no other answer comes without a header mode or a length limit.
          const { line, time } = rebasedLine(lines, this.#reader, segment, j, this.#rebased, index);
          events[k++] = { line, time };
          continue;
        }
        if (pos + n > out.length) {
          // Longer than the slack allowed for: a new buffer for this line and the rest.
          out = Buffer.allocUnsafeSlow(Math.max(n, out.length >>> 1));
          pos = 0;
        }
        const end = writer.write(out, pos);
        events[k++] = new LeefByteEvent(out, pos, end, writer.eventMs);
        pos = end;
      }
    }
    return events;
  }
}
