import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { crc32, createInflateRaw } from 'node:zlib';
import yauzl from 'yauzl';
import { isAppError } from '../../errors.ts';
import type { ArchiveContents, SkippedEntry } from './archive-contents.ts';
import { comparePaths } from './archive-contents.ts';
import { StreamedEntry } from './archive-entry.ts';
import { invalidArchive, invalidEntry, messageOf, overLimit } from './archive-errors.ts';
import { type ArchiveInput, archiveInputSize } from './archive-input.ts';
import type { ArchiveLimits } from './archive-limits.ts';
import { checkEntryName, type EntrySelect, structuralSkipReason } from './entry-path.ts';
import { createRetainBudget, type RetainBudget } from './retain-budget.ts';

/**
 * Size of the chunks a zip entry is inflated in (stored entries are cut alike). 512 KiB rather
 * than 256: half the stream callbacks, 1-6 % less CPU for a million LEEF lines in two sittings,
 * for 3-18 MiB more peak RSS.
 */
export const INFLATE_CHUNK_BYTES = 512 * 1024;

/**
 * Reads a `.zip` held in memory, or in a file, with yauzl (central directory first, one entry at a
 * time). A file is read with random access: its central directory and local headers, then each
 * entry's data as it is inflated; it is never loaded whole (ArchiveFile).
 * Every check that can be made before inflating is made before the first entry is yielded: entry
 * count, names, links, encryption, duplicates, overlapping entries and the declared sizes against
 * the caps. Inflated bytes are then counted as they come out and checked again; an entry that
 * inflates to other than its declared size is refused (as yauzl's `validateEntrySizes` would), and
 * CRC-32 is checked at the end of each entry (yauzl does not check it).
 *
 * The first pass that reads an entry to the end keeps the tail of its inflated bytes, as far as
 * `retain` allows (ArchiveLimits.retainBytes by default); later passes inflate only what comes
 * before the kept tail and replay the rest from memory.
 */
export async function readZipContents(
  input: ArchiveInput,
  select: EntrySelect,
  limits: ArchiveLimits,
  retain: RetainBudget = createRetainBudget(limits.retainBytes),
): Promise<ArchiveContents> {
  const size = archiveInputSize(input);
  const zip = await openZip(input);
  let raw: yauzl.Entry[];
  let centralDirectoryOffset: number;
  try {
    if (zip.entryCount > limits.maxEntries)
      throw overLimit(`${limits.maxEntries} entries`, limits.maxEntries);
    // yauzl starts its directory cursor at the central directory offset; entry data must end before it.
    const cursor: unknown = (zip as unknown as { readEntryCursor: unknown }).readEntryCursor;
    centralDirectoryOffset = typeof cursor === 'number' ? cursor : size;
    raw = await readCentralDirectory(zip);
  } finally {
    // Entry data is inflated from the located offsets below; yauzl's part is done.
    zip.close();
  }
  const heads = await localHeaders(input, raw);

  const seen = new Map<string, string>();
  const spans: DataSpan[] = [];
  const skipped: SkippedEntry[] = [];
  const selected: SelectedZipEntry[] = [];
  let declaredTotal = 0;
  for (const [i, entry] of raw.entries()) {
    const nameBytes = entry.fileNameRaw as Buffer;
    const name = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, nameBytes, entry.extraFields, true);
    const { path, folder } = checkEntryName(name);
    if ((entry.generalPurposeBitFlag & 1) !== 0) throw invalidEntry(path, 'is encrypted');
    // The upper half of the external attributes is a Unix mode for archives made on Unix or macOS;
    // a symlink type is refused whatever the host says (ASVS 5.2.5).
    const fileType = (entry.externalFileAttributes >>> 16) & 0o170000;
    if (fileType === 0o120000) throw invalidEntry(path, 'is a symbolic link');
    const unixHost = entry.versionMadeBy >>> 8 === 3 || entry.versionMadeBy >>> 8 === 19;
    if (unixHost && fileType !== 0 && fileType !== 0o100000 && fileType !== 0o040000) {
      throw invalidEntry(path, 'is a special file (device, FIFO or socket)');
    }
    const key = path.toLowerCase();
    const twin = seen.get(key);
    if (twin !== undefined) throw invalidEntry(path, `duplicates entry ${JSON.stringify(twin)}`);
    seen.set(key, path);
    const span = localDataSpan(heads[i] as Buffer, size, entry, path, nameBytes);
    spans.push(span);

    const reason = structuralSkipReason({ path, folder }) ?? (select(path) ? undefined : 'not selected');
    if (reason !== undefined) {
      skipped.push({ path, reason });
      continue;
    }
    if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
      throw invalidEntry(path, `uses unsupported compression method ${entry.compressionMethod}`);
    }
    checkDeclaredSizes(entry, path, limits);
    declaredTotal += entry.uncompressedSize;
    if (declaredTotal > limits.maxTotalBytes) {
      throw overLimit(`${limits.maxTotalBytes} uncompressed bytes`, limits.maxTotalBytes);
    }
    selected.push({ path, entry, dataStart: span.dataStart, kept: null, collecting: false });
  }
  checkOverlaps(spans, centralDirectoryOffset);
  selected.sort((a, b) => comparePaths(a.path, b.path));

  // Entries read to the end with a good CRC; a later pass over the same buffer need not check again.
  const verified = new Set<SelectedZipEntry>();
  return {
    paths: selected.map((s) => s.path),
    skipped,
    async *entries() {
      const pass = { inflated: 0 };
      for (const file of selected) {
        yield new StreamedEntry(
          file.path,
          file.entry.uncompressedSize,
          () => inflateEntry(input, file, limits, pass, verified, retain),
          limits.maxLineLength,
        );
      }
    },
  };
}

interface SelectedZipEntry {
  readonly path: string;
  readonly entry: yauzl.Entry;
  readonly dataStart: number;
  /** The inflated tail a complete first pass kept, or null. */
  kept: KeptTail | null;
  /** A pass is collecting the tail right now (concurrent passes do not collect twice). */
  collecting: boolean;
}

/** Inflated bytes from offset `from` to the end of an entry, in the chunks they came in. */
interface KeptTail {
  readonly from: number;
  readonly chunks: readonly Buffer[];
}

interface DataSpan {
  readonly path: string;
  readonly header: number;
  readonly dataStart: number;
  readonly dataEnd: number;
}

function openZip(input: ArchiveInput): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    const options: yauzl.Options = {
      lazyEntries: true,
      autoClose: false,
      decodeStrings: false,
      validateEntrySizes: true,
      strictFileNames: true,
    };
    const done = (err: Error | null, zip: yauzl.ZipFile) => {
      if (err) reject(invalidArchive(`is not a readable zip file: ${messageOf(err)}`, err));
      else resolve(zip);
    };
    if (Buffer.isBuffer(input)) yauzl.fromBuffer(input, options, done);
    else yauzl.open(input.path, options, done);
  });
}

/**
 * The bytes from each entry's local header on: the archive itself from there when in memory; from
 * a file, the fixed part and as long a name as the central directory gives (a longer local name
 * differs anyway).
 */
async function localHeaders(input: ArchiveInput, entries: readonly yauzl.Entry[]): Promise<Buffer[]> {
  if (Buffer.isBuffer(input)) return entries.map((e) => input.subarray(e.relativeOffsetOfLocalHeader));
  const handle = await open(input.path, 'r');
  try {
    const heads: Buffer[] = [];
    for (const entry of entries) {
      const at = entry.relativeOffsetOfLocalHeader;
      const length = Math.max(0, Math.min(30 + (entry.fileNameRaw as Buffer).length, input.size - at));
      const head = Buffer.alloc(length);
      const { bytesRead } = length > 0 ? await handle.read(head, 0, length, at) : { bytesRead: 0 };
      heads.push(head.subarray(0, bytesRead));
    }
    return heads;
  } catch (err) {
    throw invalidArchive(`could not be read: ${messageOf(err)}`, err);
  } finally {
    await handle.close();
  }
}

function readCentralDirectory(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: yauzl.Entry[] = [];
    zip.on('entry', (entry: yauzl.Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.once('end', () => resolve(entries));
    zip.once('error', (err: unknown) =>
      reject(invalidArchive(`has an unreadable central directory: ${messageOf(err)}`, err)),
    );
    zip.readEntry();
  });
}

// Declared sizes are only trusted because validateEntrySizes makes any other inflated size an error.
function checkDeclaredSizes(entry: yauzl.Entry, path: string, limits: ArchiveLimits): void {
  if (entry.uncompressedSize > limits.maxEntryBytes) {
    throw overLimit(`${limits.maxEntryBytes} uncompressed bytes per entry`, limits.maxEntryBytes, path);
  }
  if (entry.uncompressedSize > limits.maxRatio * Math.max(entry.compressedSize, 1)) {
    throw overLimit(`a ${limits.maxRatio}:1 compression ratio`, limits.maxRatio, path);
  }
}

// Reads the local header (`head`: the archive's bytes from it on, see localHeaders): where the data
// really starts, and that the local name is the central one (a mismatch is a known spoofing route,
// reliability-notes §3.1). `size`: the archive's.
function localDataSpan(
  head: Buffer,
  size: number,
  entry: yauzl.Entry,
  path: string,
  nameBytes: Buffer,
): DataSpan {
  const header = entry.relativeOffsetOfLocalHeader;
  if (header + 30 > size || head.length < 30 || head.readUInt32LE(0) !== 0x04034b50) {
    throw invalidEntry(path, 'has no valid local header');
  }
  const nameLength = head.readUInt16LE(26);
  const extraLength = head.readUInt16LE(28);
  const dataStart = header + 30 + nameLength + extraLength;
  const dataEnd = dataStart + entry.compressedSize;
  if (dataEnd > size) throw invalidEntry(path, 'runs past the end of the archive (truncated?)');
  if (nameLength !== nameBytes.length || !head.subarray(30, 30 + nameLength).equals(nameBytes)) {
    throw invalidEntry(path, 'has a local header name that differs from the central directory');
  }
  return { path, header, dataStart, dataEnd };
}

// Overlapping entries make a small archive inflate many times over (non-recursive zip bombs):
// every entry's data must end before the next local header and before the central directory.
function checkOverlaps(spans: DataSpan[], centralDirectoryOffset: number): void {
  const ordered = [...spans].sort((a, b) => a.header - b.header);
  for (let i = 0; i < ordered.length; i++) {
    const span = ordered[i]!;
    const next = ordered[i + 1];
    if (next !== undefined && span.dataEnd > next.header) {
      throw invalidEntry(span.path, `overlaps entry ${JSON.stringify(next.path)}`);
    }
    if (span.dataEnd > centralDirectoryOffset)
      throw invalidEntry(span.path, 'overlaps the central directory');
  }
}

// yauzl's own read stream inflates in 16 KiB chunks through three stream stages; inflating the
// already located data ourselves in INFLATE_CHUNK_BYTES chunks is several times faster. It
// enforces what validateEntrySizes would: exactly the declared size, which the caps were checked
// against.
const CHUNK = INFLATE_CHUNK_BYTES;

async function* inflateEntry(
  input: ArchiveInput,
  file: SelectedZipEntry,
  limits: ArchiveLimits,
  pass: { inflated: number },
  verified: Set<SelectedZipEntry>,
  budget: RetainBudget,
): AsyncGenerator<Uint8Array> {
  const { entry, path } = file;
  const checkCrc = !verified.has(file);
  const dataEnd = file.dataStart + entry.compressedSize;
  const declared = entry.uncompressedSize;
  const ratioCap = limits.maxRatio * Math.max(entry.compressedSize, 1);
  let inflated = 0;
  let crc = 0;
  const take = (chunk: Buffer): Buffer => {
    inflated += chunk.length;
    pass.inflated += chunk.length;
    if (inflated > declared) throw invalidEntry(path, `inflates to more than its declared ${declared} bytes`);
    if (inflated > limits.maxEntryBytes) {
      throw overLimit(`${limits.maxEntryBytes} uncompressed bytes per entry`, limits.maxEntryBytes, path);
    }
    if (inflated > ratioCap)
      throw overLimit(`a ${limits.maxRatio}:1 compression ratio`, limits.maxRatio, path);
    if (pass.inflated > limits.maxTotalBytes) {
      throw overLimit(`${limits.maxTotalBytes} uncompressed bytes`, limits.maxTotalBytes);
    }
    if (checkCrc) crc = crc32(chunk, crc);
    return chunk;
  };
  // Stored entries are read from the archive buffer itself: nothing to keep. A deflated entry
  // read for the first time reserves its share of the budget up front; what it does not keep
  // (an error, an abandoned pass) goes back.
  const kept = file.kept;
  let keep: { from: number; chunks: Buffer[]; reserved: number } | null = null;
  if (kept === null && !file.collecting && entry.compressionMethod === 8 && budget.left > 0 && declared > 0) {
    const reserved = Math.min(declared, budget.left);
    budget.left -= reserved;
    file.collecting = true;
    keep = { from: declared - reserved, chunks: [], reserved };
  }
  const inflateUpTo = kept === null ? Number.POSITIVE_INFINITY : kept.from;
  let complete = false;
  try {
    if (entry.compressionMethod === 0) {
      if (Buffer.isBuffer(input)) {
        for (let offset = file.dataStart; offset < dataEnd; offset += CHUNK)
          yield take(input.subarray(offset, Math.min(offset + CHUNK, dataEnd)));
      } else {
        for await (const chunk of fileRange(input.path, file.dataStart, dataEnd)) yield take(chunk as Buffer);
      }
    } else if (inflateUpTo > 0) {
      const inflater = createInflateRaw({ chunkSize: CHUNK });
      // From a file, the compressed bytes are read as the inflater takes them (back-pressure).
      const source = Buffer.isBuffer(input) ? null : fileRange(input.path, file.dataStart, dataEnd);
      if (source === null) inflater.end((input as Buffer).subarray(file.dataStart, dataEnd));
      else {
        source.once('error', (err) => inflater.destroy(err));
        source.pipe(inflater);
      }
      try {
        for await (const out of inflater as AsyncIterable<Buffer>) {
          const before = inflated;
          if (before + out.length >= inflateUpTo) {
            // The rest is in memory: stop inflating here.
            if (inflateUpTo > before) yield take(out.subarray(0, inflateUpTo - before));
            break;
          }
          const chunk = take(out);
          if (keep !== null && inflated > keep.from) {
            keep.chunks.push(before >= keep.from ? chunk : chunk.subarray(keep.from - before));
          }
          yield chunk;
        }
      } catch (err) {
        if (isAppError(err)) throw err;
        throw invalidEntry(path, `is corrupt: ${messageOf(err)}`, err);
      } finally {
        source?.destroy();
        inflater.destroy();
      }
    }
    if (kept !== null) for (const chunk of kept.chunks) yield take(chunk);
    if (inflated !== declared)
      throw invalidEntry(path, `inflates to ${inflated} bytes, not its declared ${declared}`);
    if (checkCrc && crc !== entry.crc32) throw invalidEntry(path, 'fails its CRC-32 check');
    verified.add(file);
    if (keep !== null) file.kept = { from: keep.from, chunks: keep.chunks };
    complete = true;
  } finally {
    if (keep !== null) {
      file.collecting = false;
      if (!complete) budget.left += keep.reserved;
    }
  }
}

/** Bytes [start, end) of a file as a stream of at most INFLATE_CHUNK_BYTES chunks. */
function fileRange(path: string, start: number, end: number): Readable {
  // createReadStream's `end` is inclusive, and an empty range needs start > end, which it refuses.
  if (end <= start) return Readable.from([]);
  return createReadStream(path, { start, end: end - 1, highWaterMark: CHUNK });
}
