/**
 * An archive in a file (a download too large to hold in memory, ARCHIVE_MEMORY_BYTES): read with
 * random access, never loaded whole. The file must not change while it is read; whoever made it
 * removes it once the shipment is over.
 */
export interface ArchiveFile {
  /** Absolute path. */
  readonly path: string;
  /** Size in bytes. */
  readonly size: number;
}

/** An archive held in memory or in a file (`.zip` only). */
export type ArchiveInput = Buffer | ArchiveFile;

/** Size in bytes of an archive in memory or in a file. */
export function archiveInputSize(input: ArchiveInput): number {
  return Buffer.isBuffer(input) ? input.length : input.size;
}
