import { FRAME_NO_HEADER, FRAME_SLOW, LeefFrameWriter } from '../../pipeline/leef/leef-frame-writer.ts';
import { type RebasedLine, rebasedLine } from '../../pipeline/leef/leef-line-batch.ts';
import { isAsciiLine, LeefLineReader } from '../../pipeline/leef/leef-line-reader.ts';
import type { OutboundBatch } from '../../pipeline/shipment/outbound-event.ts';
import type { ChunkBuilder } from './chunk-builder.ts';
import {
  createSyslogEncoding,
  type EncodeRefusal,
  type SyslogEncoder,
  type SyslogEncoderSettings,
} from './syslog-encode.ts';

/** Where a BatchEncoder sends what it produced. */
export interface BatchSink {
  /** Counts `events` failed with the refusal's reason. */
  refuse(refusal: EncodeRefusal, events: number): void;
  /**
   * Hands the full chunk on (the builder is empty afterwards); answers a reason when the shipment
   * has to stop, else undefined.
   */
  flush(): Promise<string | undefined>;
  /** Counts `events` (the rest of the batch) failed because the shipment stopped. */
  stop(events: number, reason: string): void;
}

/**
 * Turns batches of one shipment into frames in a ChunkBuilder. Events go through the encoder
 * (header mode, framing, length check); a LEEF batch that carries its lines as bytes is claimed
 * and written by LeefFrameWriter (the same frames, no string per event), lines it does not cover
 * through the encoder. Each event ends up in the builder or refused, exactly once.
 */
export class BatchEncoder {
  /** Frames longer than `longFrameBytes` so far (bytes; characters for frames built as strings). */
  longFrames = 0;
  readonly #longFrameBytes: number;
  readonly #encode: SyslogEncoder;
  readonly #noHeader: EncodeRefusal;
  readonly #tooLong: EncodeRefusal;
  readonly #reader = new LeefLineReader();
  readonly #frames: LeefFrameWriter;
  readonly #rebased: RebasedLine = { line: '', time: null };

  /** `longFrameBytes`: frames above it are counted in longFrames (default: never). */
  constructor(settings: SyslogEncoderSettings, longFrameBytes = Number.POSITIVE_INFINITY) {
    this.#longFrameBytes = longFrameBytes;
    const { encode, noHeader, tooLong } = createSyslogEncoding(settings);
    this.#encode = encode;
    this.#noHeader = noHeader;
    this.#tooLong = tooLong;
    this.#frames = new LeefFrameWriter(this.#reader, settings);
  }

  /** Adds the frames of `batch` to `builder`, flushing through `sink` whenever a frame does not fit. */
  async encode(batch: OutboundBatch, builder: ChunkBuilder, sink: BatchSink): Promise<void> {
    const lines = batch.leefLines;
    if (lines === undefined) {
      for (let i = 0; i < batch.length; i++) {
        const frame = this.#encode(batch[i] as (typeof batch)[number]);
        if (typeof frame !== 'string') {
          sink.refuse(frame, 1);
          continue;
        }
        if (builder.events > 0 && !builder.fits(frame)) {
          const reason = await sink.flush();
          if (reason !== undefined) {
            sink.stop(batch.length - i, reason);
            return;
          }
        }
        if (frame.length > this.#longFrameBytes) this.longFrames++;
        builder.append(frame);
      }
      return;
    }
    lines.claim();
    const frames = this.#frames;
    let i = 0;
    for (const segment of lines.segments) {
      const { buf, starts, ends } = segment;
      const index = lines.indexes === null ? null : lines.indexes.find(segment, lines.entry);
      for (let j = 0; j < starts.length; j++, i++) {
        const n = isAsciiLine(segment, j)
          ? frames.prepare(
              buf,
              starts[j] as number,
              ends[j] as number,
              lines.shiftMs,
              lines.ctx,
              lines.labIndex,
              index,
              j,
            )
          : FRAME_SLOW;
        let frame: string | EncodeRefusal | null = null;
        if (n === FRAME_SLOW) {
          frame = this.#encode(rebasedLine(lines, this.#reader, segment, j, this.#rebased, index));
          if (typeof frame !== 'string') {
            sink.refuse(frame, 1);
            continue;
          }
        } else if (n < 0) {
          sink.refuse(n === FRAME_NO_HEADER ? this.#noHeader : this.#tooLong, 1);
          continue;
        }
        if (builder.events > 0 && !(frame === null ? builder.fitsBytes(n) : builder.fits(frame))) {
          // The prepared frame stays valid across the wait: nothing else uses this encoder.
          const reason = await sink.flush();
          if (reason !== undefined) {
            sink.stop(batch.length - i, reason);
            return;
          }
        }
        if ((frame === null ? n : frame.length) > this.#longFrameBytes) this.longFrames++;
        if (frame === null) builder.appendBytes(n, frames);
        else builder.append(frame);
      }
    }
  }
}
