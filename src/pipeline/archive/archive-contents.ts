import type { ArchiveEntry } from './archive-entry.ts';

/** An entry that is not read, with the reason (folder, dot-file, nested archive, not selected…). */
export interface SkippedEntry {
  readonly path: string;
  readonly reason: string;
}

/** What one archive reader found once its directory or headers passed every check. */
export interface ArchiveContents {
  /** Paths of the entries `entries()` yields, in path order. */
  readonly paths: readonly string[];
  readonly skipped: readonly SkippedEntry[];
  /**
   * Yields the selected entries in path order. Each call is a new pass over the archive (the
   * rebase reads everything twice). Read an entry before advancing to the next one.
   */
  entries(): AsyncIterable<ArchiveEntry>;
}

/** Orders paths by UTF-16 code units: deterministic and locale-free. */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
