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
   * Bytes a shipment keeps in memory between its two passes (the rebase reads everything twice).
   * A sixth goes to what pass 1 found about LEEF lines (16 bytes per line, so pass 2 need not look
   * for devTime again: prepareShipment); the rest keeps the last inflated bytes of `.zip` entries,
   * and the second pass inflates only what lies before them again. 0 inflates everything twice
   * and reads every line afresh. This, not the archive's size, bounds a shipment's memory (plus
   * about one chunk per pass and the archive itself).
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
  // Inflating costs about 1.5-2 ms per MiB; keeping a MiB costs a MiB. 96 MiB keeps a 1M-line
  // shipment's peak RSS well under 300 MiB above its archive (128 MiB reached 302, 192 MiB ~330)
  // at a throughput the benchmark cannot tell apart; its sixth for line positions covers a
  // million lines. See docs/performance.md.
  retainBytes: 96 * MiB,
});

/** Fills the caps the caller left out with the defaults. */
export function resolveArchiveLimits(limits: Partial<ArchiveLimits> | undefined): ArchiveLimits {
  return { ...DEFAULT_ARCHIVE_LIMITS, ...limits };
}
