import { AppError } from '../../errors.ts';

/** Longest entry path accepted, in UTF-8 bytes. */
export const MAX_ENTRY_PATH_BYTES = 1024;
/** Longest single path segment accepted, in UTF-8 bytes (the usual file-system name limit). */
export const MAX_ENTRY_SEGMENT_BYTES = 255;

/** An archive member name after validation. */
export interface EntryName {
  /** Normalized: `/`-separated, without `.` or empty segments and without a trailing `/`. */
  readonly path: string;
  readonly folder: boolean;
}

/**
 * Validates a member name from an archive and normalizes it. Names are attacker-controlled and end
 * up in events, labels and logs, so anything that could mean "elsewhere" is refused rather than
 * repaired (reliability-notes §3.1, ASVS 5.3.3): absolute paths, drive letters, `..`, backslashes,
 * control characters including NUL, and over-long names. Throws `archive_invalid` naming the entry.
 */
export function checkEntryName(name: string): EntryName {
  const bad = (why: string): AppError =>
    new AppError('archive_invalid', `archive entry ${quoteName(name)} ${why}`, {
      details: { entry: shortName(name) },
    });
  if (name.length === 0) throw bad('has an empty name');
  if (Buffer.byteLength(name) > MAX_ENTRY_PATH_BYTES) {
    throw bad(`has a name longer than ${MAX_ENTRY_PATH_BYTES} bytes`);
  }
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) throw bad('has a control character in its name');
    if (c === 0x5c) throw bad('has a backslash in its name');
  }
  if (name.startsWith('/')) throw bad('has an absolute path');
  if (/^[A-Za-z]:/.test(name)) throw bad('has a drive letter');
  const segments: string[] = [];
  for (const segment of name.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') throw bad('points outside the archive (..)');
    if (Buffer.byteLength(segment) > MAX_ENTRY_SEGMENT_BYTES) {
      throw bad(`has a path segment longer than ${MAX_ENTRY_SEGMENT_BYTES} bytes`);
    }
    segments.push(segment);
  }
  return { path: segments.join('/'), folder: name.endsWith('/') || segments.length === 0 };
}

/** Why an entry is never read whatever the destination format, or undefined when it may be. */
export function structuralSkipReason(entry: EntryName): string | undefined {
  if (entry.folder) return 'folder';
  const segments = entry.path.split('/');
  if (segments.includes('__MACOSX')) return '__MACOSX metadata';
  if (segments.some((s) => s.startsWith('.'))) return 'dot-file';
  if (NESTED_ARCHIVE.test(entry.path)) return 'nested archive (not expanded)';
  return undefined;
}

/** Which content a destination reads; `any` is for authoring uploads whose format is detected. */
export type EntryFormat = 'leef' | 'ecs' | 'any';

/** Predicate choosing the entries to read, given a normalized path. */
export type EntrySelect = (path: string) => boolean;

/**
 * The extension rule of decisions.md §5: LEEF reads `.log` and `.txt`, ECS reads `.ndjson` and
 * `.json` (case-insensitive), never folders, `__MACOSX/`, dot-files or nested archives.
 */
export function selectForFormat(format: EntryFormat): EntrySelect {
  const pattern = EXTENSIONS[format];
  return (path) => pattern.test(path) && structuralSkipReason({ path, folder: path === '' }) === undefined;
}

/** JSON-quoted, shortened name for messages (names may be long or hold odd characters). */
export function quoteName(name: string): string {
  return JSON.stringify(shortName(name));
}

function shortName(name: string): string {
  return name.length > 200 ? `${name.slice(0, 200)}…` : name;
}

const EXTENSIONS: Record<EntryFormat, RegExp> = {
  leef: /\.(?:log|txt)$/i,
  ecs: /\.(?:ndjson|json)$/i,
  any: /\.(?:log|txt|ndjson|json)$/i,
};

// Archives inside archives are data we never expand (reliability-notes §3.1, nested bombs).
const NESTED_ARCHIVE = /\.(?:zip|gz|tgz|tar|bz2|tbz2?|xz|txz|zst|7z|rar|jar)$/i;
