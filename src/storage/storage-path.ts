import { invalidInput } from '../errors.ts';

/** Longest storage path, in UTF-8 bytes (the S3 key limit). */
export const MAX_STORAGE_PATH_BYTES = 1024;
/** Longest path segment, in UTF-8 bytes (the usual file-system name limit). */
export const MAX_STORAGE_SEGMENT_BYTES = 255;

/**
 * Why `path` is not a usable storage path, or undefined when it is. Paths come from users and
 * become file names on the local backend, so anything that could point elsewhere is refused rather
 * than repaired: absolute paths, `.` and `..` segments, empty segments (`a//b`, a trailing `/`),
 * backslashes, NUL and other control characters, and over-long names.
 */
export function storagePathProblem(path: string): string | undefined {
  if (path.length === 0) return 'must not be empty';
  if (Buffer.byteLength(path) > MAX_STORAGE_PATH_BYTES) {
    return `must be at most ${MAX_STORAGE_PATH_BYTES} bytes`;
  }
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return 'must not contain control characters (NUL, newline, …)';
    if (c === 0x5c) return 'must not contain a backslash';
  }
  if (path.startsWith('/')) return 'must be relative (no leading /)';
  for (const segment of path.split('/')) {
    if (segment === '..') return 'must not contain a .. segment';
    if (segment === '.') return 'must not contain a . segment';
    if (segment === '') return 'must not contain empty segments (// or a trailing /)';
    if (Buffer.byteLength(segment) > MAX_STORAGE_SEGMENT_BYTES) {
      return `must not have a segment longer than ${MAX_STORAGE_SEGMENT_BYTES} bytes`;
    }
  }
  return undefined;
}

/** Returns `path` when valid; otherwise throws a 400 that names the path and the reason. */
export function checkStoragePath(path: string, field = 'storage_path'): string {
  const problem = storagePathProblem(path);
  if (problem === undefined) return path;
  throw invalidInput(`Invalid storage path ${quotePath(path)}`, { [field]: problem });
}

/** A path quoted for a message: control characters escaped, long names shortened. */
export function quotePath(path: string): string {
  const shown = path.length > 200 ? `${path.slice(0, 200)}…` : path;
  return JSON.stringify(shown);
}
