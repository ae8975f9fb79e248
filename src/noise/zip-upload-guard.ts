import { Transform, type TransformCallback } from 'node:stream';
import { AppError } from '../errors.ts';

/** Local file header signature every zip archive with entries starts with. */
export const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/**
 * A pass-through for an uploaded archive: fails with `archive_invalid` unless the body starts with
 * the zip signature `PK\x03\x04`, and with `payload_too_large` once more than `maxBytes` passed.
 * Nothing is passed on before the signature was checked, so a refused upload stores nothing.
 */
export function createZipUploadGuard(maxBytes: number): Transform {
  let seen = 0;
  let head: Buffer | undefined = Buffer.alloc(0);
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      seen += chunk.length;
      if (seen > maxBytes) {
        callback(tooLarge(maxBytes));
        return;
      }
      if (head === undefined) {
        callback(null, chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      if (head.length < ZIP_MAGIC.length) {
        callback();
        return;
      }
      if (!head.subarray(0, ZIP_MAGIC.length).equals(ZIP_MAGIC)) {
        callback(notZip());
        return;
      }
      const all = head;
      head = undefined;
      callback(null, all);
    },
    flush(callback: TransformCallback) {
      callback(head === undefined ? null : notZip());
    },
  });
}

function notZip(): AppError {
  return new AppError(
    'archive_invalid',
    'The upload is not a zip archive (it does not start with PK\\x03\\x04)',
  );
}

function tooLarge(maxBytes: number): AppError {
  return new AppError(
    'payload_too_large',
    `The archive is larger than ${maxBytes} bytes (ARCHIVE_MAX_BYTES)`,
    {
      details: { max_bytes: maxBytes },
    },
  );
}

/** The 413 for a declared Content-Length above the limit, before anything is read. */
export function declaredTooLarge(maxBytes: number): AppError {
  return tooLarge(maxBytes);
}
