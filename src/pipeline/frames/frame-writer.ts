// Syslog frames of one frame pass, gathered into chunks. Tuned: ASCII LEEF lines held as bytes are
// framed by LeefFrameWriter straight from the bytes (no string per event, measured in
// docs/performance-history.md); the other lines and plain events go through the string encoder
// (syslog-encode.ts). Both give the same frames (shipment-differential.test.ts).

import { FRAME_NO_HEADER, FRAME_SLOW, LeefFrameWriter } from '../leef/leef-frame-writer.ts';
import { type LeefLines, type RebasedLine, rebasedLine } from '../leef/leef-line-batch.ts';
import type { LeefLineReader, LineIndex } from '../leef/leef-line-reader.ts';
import type { OutboundEvent } from '../shipment/outbound-event.ts';
import { ChunkBuilder } from './chunk-builder.ts';
import type { FrameChunk, FrameFormat, FramePiece, FrameRefusal } from './frame-format.ts';
import { createSyslogEncoding, type EncodeRefusal, type SyslogEncoder } from './syslog-encode.ts';

/**
 * Writes the frames of batches (LEEF lines as bytes, or events) into chunks of about
 * FrameFormat.chunkBytes. fill() writes until a chunk is full or the batch is done; drain() hands
 * out the refusals and the chunk gathered so far. Each event ends in exactly one piece. One pass
 * at a time: it shares the reader (and its ShipmentScratch) of its pass.
 */
export class FrameWriter {
  readonly #reader: LeefLineReader;
  readonly #encode: SyslogEncoder;
  readonly #noHeader: EncodeRefusal;
  readonly #tooLong: EncodeRefusal;
  readonly #frames: LeefFrameWriter;
  readonly #builder: ChunkBuilder;
  readonly #longFrameBytes: number;
  readonly #rebased: RebasedLine = { line: '', time: null };
  readonly #refused = new Map<EncodeRefusal, number>();
  #longFrames = 0;

  // The batch being written and where its writing stands.
  #lines: LeefLines | null = null;
  #events: readonly OutboundEvent[] | null = null;
  #segment = 0;
  #line = 0;
  #index: LineIndex | null = null;
  /** A prepared frame that did not fit the chunk: written first on the next fill(). */
  #pendingBytes = -1;
  #pendingText: string | null = null;

  /** `now`: the shipping time, the header time of events without a readable time. */
  constructor(format: FrameFormat, reader: LeefLineReader, now: number) {
    this.#reader = reader;
    const settings = {
      header: format.header,
      framing: format.framing,
      maxMessageBytes: format.maxMessageBytes,
      now,
    };
    const { encode, noHeader, tooLong } = createSyslogEncoding(settings);
    this.#encode = encode;
    this.#noHeader = noHeader;
    this.#tooLong = tooLong;
    this.#frames = new LeefFrameWriter(reader, settings);
    this.#builder = new ChunkBuilder(format.chunkBytes);
    this.#longFrameBytes = format.longFrameBytes;
  }

  /** Starts a batch of LEEF lines held as bytes. */
  beginLines(lines: LeefLines): void {
    this.#lines = lines;
    this.#events = null;
    this.#segment = 0;
    this.#line = 0;
    this.#index = this.#indexOf(0);
  }

  /** Starts a batch of events. */
  beginEvents(events: readonly OutboundEvent[]): void {
    this.#events = events;
    this.#lines = null;
    this.#line = 0;
  }

  /** Writes frames of the batch; true when the chunk is full (drain, then fill again), false when the batch is done. */
  fill(): boolean {
    const builder = this.#builder;
    if (this.#pendingBytes >= 0 || this.#pendingText !== null) {
      // The chunk was taken: the frame that did not fit goes first (alone it always fits).
      this.#append(this.#pendingBytes, this.#pendingText);
      this.#pendingBytes = -1;
      this.#pendingText = null;
    }
    if (this.#events !== null) return this.#fillEvents(builder, this.#events);
    if (this.#lines !== null) return this.#fillLines(builder, this.#lines);
    return false;
  }

  /** The refusals and the chunk gathered so far (nothing when there is nothing). */
  drain(): FramePiece[] {
    const out: FramePiece[] = [];
    for (const [refusal, events] of this.#refused) {
      out.push({
        kind: 'refused',
        events,
        cause: refusal.cause,
        reason: refusal.error,
      } satisfies FrameRefusal);
    }
    this.#refused.clear();
    if (this.#builder.events > 0) {
      const { data, events } = this.#builder.take();
      out.push({ kind: 'frames', data, events, longFrames: this.#longFrames } satisfies FrameChunk);
      this.#longFrames = 0;
    }
    return out;
  }

  #fillEvents(builder: ChunkBuilder, events: readonly OutboundEvent[]): boolean {
    for (; this.#line < events.length; this.#line++) {
      const frame = this.#encode(events[this.#line] as OutboundEvent);
      if (typeof frame !== 'string') {
        this.#refuse(frame);
        continue;
      }
      if (builder.events > 0 && !builder.fits(frame)) {
        this.#pendingText = frame;
        this.#line++;
        return true;
      }
      this.#append(-1, frame);
    }
    this.#events = null;
    return false;
  }

  #fillLines(builder: ChunkBuilder, lines: LeefLines): boolean {
    const frames = this.#frames;
    const segments = lines.segments;
    for (
      ;
      this.#segment < segments.length;
      this.#segment++, this.#line = 0, this.#index = this.#indexOf(this.#segment)
    ) {
      const segment = segments[this.#segment]!;
      const { starts } = segment;
      const index = this.#index;
      for (let j = this.#line; j < starts.length; j++) {
        const n = frames.prepareLine(lines, segment, j, index);
        let frame: string | null = null;
        if (n === FRAME_SLOW) {
          const encoded = this.#encode(rebasedLine(lines, this.#reader, segment, j, this.#rebased, index));
          if (typeof encoded !== 'string') {
            this.#refuse(encoded);
            continue;
          }
          frame = encoded;
        } else if (n < 0) {
          this.#refuse(n === FRAME_NO_HEADER ? this.#noHeader : this.#tooLong);
          continue;
        }
        if (builder.events > 0 && !(frame === null ? builder.fitsBytes(n) : builder.fits(frame))) {
          // The prepared frame stays valid until the next prepare: nothing else uses this writer.
          this.#pendingBytes = frame === null ? n : -1;
          this.#pendingText = frame;
          this.#line = j + 1;
          return true;
        }
        this.#append(frame === null ? n : -1, frame);
      }
    }
    this.#lines = null;
    return false;
  }

  /** Adds a prepared frame of `bytes` bytes (when `text` is null) or the frame `text`. */
  #append(bytes: number, text: string | null): void {
    if (text === null) {
      if (bytes > this.#longFrameBytes) this.#longFrames++;
      this.#builder.appendBytes(bytes, this.#frames);
    } else {
      if (text.length > this.#longFrameBytes) this.#longFrames++;
      this.#builder.append(text);
    }
  }

  #refuse(refusal: EncodeRefusal): void {
    this.#refused.set(refusal, (this.#refused.get(refusal) ?? 0) + 1);
  }

  #indexOf(segment: number): LineIndex | null {
    const lines = this.#lines;
    const at = lines?.segments[segment];
    if (!lines || !at || lines.indexes === null) return null;
    return lines.indexes.find(at, lines.entry);
  }
}
