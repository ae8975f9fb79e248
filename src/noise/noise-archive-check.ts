import { AppError } from '../errors.ts';
import type { ArchiveLimits } from '../pipeline/archive/archive-limits.ts';
import { selectForFormat } from '../pipeline/archive/entry-path.ts';
import { type OpenedArchive, openArchive } from '../pipeline/archive/open-archive.ts';

/**
 * Opens an uploaded noise archive the way a noise run opens it (a `.zip`, its LEEF entries, the
 * configured caps): the central directory is read and every entry listed and checked (names,
 * encryption, links, duplicates, overlapping data, declared sizes and ratio against the caps);
 * nothing is inflated. What a run would refuse is refused here with the same reason: a cap is
 * `413 payload_too_large`; an archive that is not a readable zip or has no entry a run would read
 * is `400 archive_invalid`, the reason in the message and in `details.reason`.
 */
export async function checkNoiseArchive(
  data: Buffer,
  limits: Partial<ArchiveLimits>,
): Promise<OpenedArchive> {
  try {
    return await openArchive(data, { kind: 'zip', select: selectForFormat('leef'), limits });
  } catch (err) {
    if (err instanceof AppError && (err.code === 'archive_invalid' || err.code === 'no_events')) {
      throw new AppError('archive_invalid', `The upload is not a usable noise archive: ${err.message}`, {
        details: { ...err.details, reason: err.message },
        cause: err,
      });
    }
    throw err;
  }
}
