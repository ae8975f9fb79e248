import { Readable, Transform, type TransformCallback } from 'node:stream';
import { AppError } from '../errors.ts';

/**
 * Reads a raw upload body whole, refusing it with 413 once more than `maxBytes` arrived (nothing
 * stored: the caller only stores what this returns) and with 415 when there is no raw body.
 */
export async function readUpload(body: unknown, maxBytes: number, declaredLength?: number): Promise<Buffer> {
  if (declaredLength !== undefined && Number.isFinite(declaredLength) && declaredLength > maxBytes) {
    throw tooLarge(maxBytes);
  }
  if (!(body instanceof Readable)) {
    throw new AppError('unsupported_media_type', 'Send the archive as the raw request body');
  }
  const chunks: Buffer[] = [];
  let seen = 0;
  // Counted in a pass-through, not by iterating the request itself: leaving the loop early then
  // destroys the counter only, and the request stays whole for the 413 to be answered on it.
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      seen += chunk.length;
      callback(seen > maxBytes ? tooLarge(maxBytes) : null, seen > maxBytes ? undefined : chunk);
    },
  });
  body.once('error', (err) => counter.destroy(err));
  for await (const chunk of body.pipe(counter)) chunks.push(chunk as Buffer);
  if (seen === 0) throw new AppError('invalid_input', 'The upload is empty');
  return Buffer.concat(chunks, seen);
}

function tooLarge(maxBytes: number): AppError {
  return new AppError(
    'payload_too_large',
    `The upload is larger than ${maxBytes} bytes (ARCHIVE_MAX_BYTES)`,
    {
      details: { max_bytes: maxBytes },
    },
  );
}
