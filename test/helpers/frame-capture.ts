import type { FrameFormat, FramePiece } from '../../src/pipeline/frames/frame-format.ts';
import { FrameWriter } from '../../src/pipeline/frames/frame-writer.ts';
import type { LeefLines } from '../../src/pipeline/leef/leef-line-batch.ts';
import { LeefLineReader } from '../../src/pipeline/leef/leef-line-reader.ts';

/** What a frame pass produced: its bytes as one buffer, and one refusal reason per refused event. */
export interface CapturedFrames {
  bytes: Buffer;
  refusals: string[];
}

/** Collects the pieces of a frame pass (shipmentFrames, eventFrames) as a client would receive them. */
export async function capturePieces(pieces: AsyncIterable<FramePiece>): Promise<CapturedFrames> {
  const chunks: Buffer[] = [];
  const refusals: string[] = [];
  for await (const piece of pieces) keep(piece, chunks, refusals);
  return { bytes: Buffer.concat(chunks), refusals };
}

/** The frames a FrameWriter writes for batches of LEEF lines held as bytes, without a socket. */
export function captureLines(
  format: FrameFormat,
  now: number,
  batches: readonly LeefLines[],
): CapturedFrames {
  const writer = new FrameWriter(format, new LeefLineReader(), now);
  const chunks: Buffer[] = [];
  const refusals: string[] = [];
  for (const lines of batches) {
    writer.beginLines(lines);
    while (writer.fill()) for (const piece of writer.drain()) keep(piece, chunks, refusals);
    for (const piece of writer.drain()) keep(piece, chunks, refusals);
  }
  return { bytes: Buffer.concat(chunks), refusals };
}

function keep(piece: FramePiece, chunks: Buffer[], refusals: string[]): void {
  if (piece.kind === 'frames') chunks.push(piece.data);
  else for (let i = 0; i < piece.events; i++) refusals.push(piece.reason);
}
