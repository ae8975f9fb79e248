// The lines of one chunk in pass 2 of a LEEF shipment, as bytes, with what pass 2 needs (the
// shift, pass 1's context, the labIndex). Pass 2 turns them into events held as bytes
// (leef-byte-events.ts) for clients that take events, or straight into syslog frames
// (frames/frame-writer.ts) for clients that take frames: no string is built for a line written as
// bytes; rebasedLine is the string path both fall back to.

import type { ByteLines } from '../archive/byte-lines.ts';
import { isAsciiLine, type LeefLineReader, type LineIndex, type LineIndexes } from './leef-line-reader.ts';
import { type RebaseContext, shiftLine } from './leef-rebase.ts';
import { setAttribute } from './set-attribute.ts';

/** The lines of one batch as bytes, and how pass 2 turns them into events. */
export interface LeefLines {
  readonly segments: readonly ByteLines[];
  /** Lines over all segments; equals the batch's length. */
  readonly count: number;
  /** The shipment's shift. */
  readonly shiftMs: number;
  /** Pass 1's context (its referenceMs places year-less times); lastEventMs is scratch. */
  readonly ctx: RebaseContext;
  /** `labIndex=` value set on every line, or null. */
  readonly labIndex: string | null;
  /** What pass 1 found about these lines, when it kept it (see LineIndexes). */
  readonly indexes: LineIndexes | null;
  /** The entry's name to `indexes`. */
  readonly entry: string;
}

/** A rebased line and its event time (see rebasedLine). */
export interface RebasedLine {
  line: string;
  time: number | null;
}

/**
 * Line `j` of `segment` rebased (shiftLine) and labelled (setAttribute) and its event time, into
 * `out`: from the bytes with `reader` for an ASCII line (with `index`, pass 1's findings for the
 * segment, when there are), else decoded and through shiftLine with the reader's scratch.
 */
export function rebasedLine(
  lines: LeefLines,
  reader: LeefLineReader,
  segment: ByteLines,
  j: number,
  out: RebasedLine,
  index: LineIndex | null = null,
): RebasedLine {
  const s = segment.starts[j] as number;
  const e = segment.ends[j] as number;
  let line: string;
  let time: number | null;
  if (isAsciiLine(segment, j)) {
    reader.shift(segment.buf, s, e, lines.shiftMs, lines.ctx, index, j);
    line = reader.shiftedText(segment.buf, s, e);
    time = reader.eventMs;
  } else {
    line = shiftLine(segment.buf.toString('utf8', s, e), lines.shiftMs, lines.ctx, reader.scratch);
    time = lines.ctx.lastEventMs;
  }
  if (lines.labIndex !== null) line = setAttribute(line, 'labIndex', lines.labIndex);
  out.line = line;
  out.time = time;
  return out;
}
