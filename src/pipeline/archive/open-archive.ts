import { AppError } from '../../errors.ts';
import type { ArchiveContents } from './archive-contents.ts';
import { type ArchiveEntry, StreamedEntry, sliceChunks } from './archive-entry.ts';
import { overLimit } from './archive-errors.ts';
import { type ArchiveInput, archiveInputSize } from './archive-input.ts';
import { type ArchiveLimits, resolveArchiveLimits } from './archive-limits.ts';
import type { EntrySelect } from './entry-path.ts';
import type { RetainBudget } from './retain-budget.ts';
import { readTarGzContents } from './tar-archive.ts';
import { readZipContents } from './zip-archive.ts';

/** Container formats accepted: `.zip` (session start, noise, authoring), `.tar.gz`/`.tgz` and plain text (authoring). */
export type ArchiveKind = 'zip' | 'tar.gz' | 'text';

/** How to open an archive. */
export interface OpenArchiveOptions {
  readonly kind: ArchiveKind;
  /** File name of the upload; names the single entry of a plain-text upload. */
  readonly name?: string;
  /** Caps; omitted ones take DEFAULT_ARCHIVE_LIMITS. */
  readonly limits?: Partial<ArchiveLimits>;
  /** Which entries to read, usually `selectForFormat(...)`. Not applied to plain text. */
  readonly select: EntrySelect;
  /**
   * Inflated bytes the passes over this archive may keep in memory, shared with the other archives
   * of one shipment; omitted, the archive gets `limits.retainBytes` of its own.
   */
  readonly retain?: RetainBudget;
}

/** An archive whose structure passed every check; its entries can be read any number of times. */
export interface OpenedArchive extends ArchiveContents {
  readonly kind: ArchiveKind;
  /** Entries that will be processed (decisions.md §5 `files`). */
  readonly files: number;
}

/**
 * Checks an archive held in memory (or a `.zip` in a file, ArchiveFile) and lists the entries to
 * read. Throws `payload_too_large` for a cap, `archive_invalid` for a corrupt or unsafe archive
 * (naming the entry), and `no_events` when no entry is usable — never an empty success
 * (decisions.md §5).
 */
export async function openArchive(input: ArchiveInput, options: OpenArchiveOptions): Promise<OpenedArchive> {
  const limits = resolveArchiveLimits(options.limits);
  const size = archiveInputSize(input);
  if (size > limits.maxBytes) throw overLimit(`${limits.maxBytes} bytes`, limits.maxBytes);
  let contents: ArchiveContents;
  if (options.kind === 'zip') contents = await readZipContents(input, options.select, limits, options.retain);
  else if (!Buffer.isBuffer(input)) {
    // Only session start spills a download to a file, and it takes `.zip` only.
    throw new Error(`a ${options.kind} archive is read from memory only, not from a file`);
  } else if (options.kind === 'tar.gz') contents = await readTarGzContents(input, options.select, limits);
  else contents = textContents(input, options.name, limits);
  if (contents.paths.length === 0) {
    const listed = contents.skipped.slice(0, 10).map((s) => `${JSON.stringify(s.path)} (${s.reason})`);
    const more =
      contents.skipped.length > listed.length ? `, and ${contents.skipped.length - listed.length} more` : '';
    throw new AppError(
      'no_events',
      contents.skipped.length === 0
        ? 'the archive is empty'
        : `the archive has no usable entry; skipped: ${listed.join(', ')}${more}`,
      { details: { skipped: contents.skipped.slice(0, 100) } },
    );
  }
  return { kind: options.kind, files: contents.paths.length, ...contents };
}

/** The selected entries of an archive in path order (one pass; see openArchive for errors). */
export async function* readArchiveEntries(
  input: ArchiveInput,
  options: OpenArchiveOptions,
): AsyncGenerator<ArchiveEntry> {
  const archive = await openArchive(input, options);
  yield* archive.entries();
}

/** Container kind from an upload's file name: `.zip`, `.tar.gz`/`.tgz`, anything else is plain text. */
export function archiveKindForName(name: string): ArchiveKind {
  const lower = name.toLowerCase();
  if (lower.endsWith('.zip')) return 'zip';
  if (lower.endsWith('.tar.gz') || lower.endsWith('.tgz')) return 'tar.gz';
  return 'text';
}

function textContents(input: Buffer, name: string | undefined, limits: ArchiveLimits): ArchiveContents {
  const path = textEntryName(name);
  if (input.length > limits.maxEntryBytes) {
    throw overLimit(`${limits.maxEntryBytes} uncompressed bytes per entry`, limits.maxEntryBytes, path);
  }
  const empty = input.length === 0;
  return {
    paths: empty ? [] : [path],
    skipped: empty ? [{ path, reason: 'empty' }] : [],
    async *entries() {
      if (!empty) yield new StreamedEntry(path, input.length, sliceChunks(input), limits.maxLineLength);
    },
  };
}

// The upload name is only a label: keep its last segment, printable characters only.
function textEntryName(name: string | undefined): string {
  const base = (name ?? '').split(/[/\\]/).pop() ?? '';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 255);
  return clean === '' || clean === '.' || clean === '..' ? 'upload.txt' : clean;
}
