const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** Caps applied while reading an archive (decisions.md §5, reliability-notes §3). */
export interface ArchiveLimits {
  /** Size of the archive as received (the download cap, `ARCHIVE_MAX_BYTES`). */
  readonly maxBytes: number;
  /** Inflated bytes over all read entries (`ARCHIVE_MAX_UNCOMPRESSED_BYTES`). */
  readonly maxTotalBytes: number;
  /** Inflated bytes of one entry. */
  readonly maxEntryBytes: number;
  /** Entries in the archive, folders and skipped entries included. */
  readonly maxEntries: number;
  /** Inflated to compressed bytes of one entry (of the whole stream for `.tar.gz`). */
  readonly maxRatio: number;
  /** Bytes of one line or one JSON document; bounds memory per event. */
  readonly maxLineLength: number;
  /** Bytes of out-of-order `.tar.gz` entries held in memory to keep path order in one pass. */
  readonly maxReorderBytes: number;
  /**
   * Inflated bytes of `.zip` entries a shipment keeps in memory between its two passes (the rebase
   * reads everything twice). The first pass keeps the last `retainBytes` of what it inflates; the
   * second pass inflates only what lies before them again. 0 inflates everything twice.
   */
  readonly retainBytes: number;
}

/** The decided defaults: 512 MiB download, 4 GiB total, 1 GiB per entry, 10,000 entries, 1000:1. */
export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = Object.freeze({
  maxBytes: 512 * MiB,
  maxTotalBytes: 4 * GiB,
  maxEntryBytes: 1 * GiB,
  maxEntries: 10_000,
  maxRatio: 1000,
  // Far above any real log line or ECS document, far below V8's ~512 Mi character string limit.
  maxLineLength: 16 * MiB,
  maxReorderBytes: 64 * MiB,
  // None: inflating again costs about 1.5-2 ms of CPU per MiB, and keeping a MiB costs a MiB. With
  // pass 1's line positions kept instead (LineIndexes), keeping 96 MiB saved 0-5 % of a million
  // epoch lines' CPU for 90 MiB more peak RSS under the service's V8 flags; without
  // --external-memory-accounted-in-global-limit, every kept MiB counted towards the old
  // generation's limit and the mark-compacts it caused cost as much as the inflating it saved
  // (docs/performance-history.md).
  retainBytes: 0,
});

/** Fills the caps the caller left out with the defaults. */
export function resolveArchiveLimits(limits: Partial<ArchiveLimits> | undefined): ArchiveLimits {
  return { ...DEFAULT_ARCHIVE_LIMITS, ...limits };
}

/** The archive settings of the service's configuration (config.ts), by their names there. */
export interface ArchiveSettings {
  readonly archiveMaxBytes: number;
  readonly archiveMaxUncompressedBytes: number;
  readonly archiveMaxEntryBytes: number;
  readonly archiveMaxEntries: number;
  readonly archiveMaxRatio: number;
}

/** The caps the configuration sets (`ARCHIVE_MAX_*`); the rest keep their defaults. */
export function archiveLimitsOf(settings: ArchiveSettings): Partial<ArchiveLimits> {
  return {
    maxBytes: settings.archiveMaxBytes,
    maxTotalBytes: settings.archiveMaxUncompressedBytes,
    maxEntryBytes: settings.archiveMaxEntryBytes,
    maxEntries: settings.archiveMaxEntries,
    maxRatio: settings.archiveMaxRatio,
  };
}
