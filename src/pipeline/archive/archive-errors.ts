import { AppError } from '../../errors.ts';
import { quoteName } from './entry-path.ts';

/** `archive_invalid` naming the entry (corrupt, unsafe or unreadable member). */
export function invalidEntry(path: string, why: string, cause?: unknown): AppError {
  return new AppError('archive_invalid', `archive entry ${quoteName(path)} ${why}`, {
    details: { entry: path },
    cause,
  });
}

/** `archive_invalid` about the archive as a whole. */
export function invalidArchive(why: string, cause?: unknown): AppError {
  return new AppError('archive_invalid', `the archive ${why}`, { cause });
}

/** `payload_too_large` for a cap, naming what went over it (HTTP 413). */
export function overLimit(what: string, limit: number, entry?: string): AppError {
  const subject = entry === undefined ? 'the archive' : `archive entry ${quoteName(entry)}`;
  return new AppError('payload_too_large', `${subject} exceeds the limit of ${what} (${limit})`, {
    details: entry === undefined ? { limit } : { entry, limit },
  });
}

/** Message of an unknown thrown value, for wrapping library errors. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
