import { createGunzip } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';
import { isAppError } from '../../errors.ts';
import type { ArchiveContents, SkippedEntry } from './archive-contents.ts';
import { comparePaths } from './archive-contents.ts';
import { type ArchiveEntry, StreamedEntry } from './archive-entry.ts';
import { invalidArchive, invalidEntry, messageOf, overLimit } from './archive-errors.ts';
import type { ArchiveLimits } from './archive-limits.ts';
import { checkEntryName, type EntrySelect, structuralSkipReason } from './entry-path.ts';

/**
 * Reads a `.tar.gz` / `.tgz` held in memory. A first pass inflates the whole stream once to check
 * every header (count, names, links, devices, duplicates, sizes) before anything is yielded. The
 * data passes then yield the selected entries in path order: an entry met before its turn is held in
 * memory while it fits `maxReorderBytes`, otherwise it is taken from a further pass over the stream.
 * Inflated bytes of the whole stream count against the total and ratio caps on every pass.
 */
export async function readTarGzContents(
  input: Buffer,
  select: EntrySelect,
  limits: ArchiveLimits,
): Promise<ArchiveContents> {
  if (input.length < 2 || input[0] !== 0x1f || input[1] !== 0x8b)
    throw invalidArchive('is not gzip-compressed');
  const seen = new Map<string, string>();
  const skipped: SkippedEntry[] = [];
  const selected: TarFile[] = [];
  let ordinal = -1;
  let declaredTotal = 0;
  for await (const event of readTarEvents(input, limits)) {
    if (event.kind === 'ignored') {
      throw invalidEntry(String(event.entry.path), `has an unsupported tar entry type (${event.entry.type})`);
    }
    if (event.kind !== 'entry') continue;
    ordinal++;
    if (ordinal >= limits.maxEntries) throw overLimit(`${limits.maxEntries} entries`, limits.maxEntries);
    const entry = event.entry;
    const name = checkEntryName(String(entry.path));
    const folder = name.folder || entry.type === 'Directory' || entry.type === 'GNUDumpDir';
    const path = name.path;
    if (!FILE_TYPES.has(entry.type) && !folder) {
      throw invalidEntry(
        path,
        LINK_TYPES.has(entry.type) ? 'is a link' : `is a special file (${entry.type})`,
      );
    }
    const key = path.toLowerCase();
    const twin = seen.get(key);
    if (twin !== undefined) throw invalidEntry(path, `duplicates entry ${JSON.stringify(twin)}`);
    seen.set(key, path);
    const reason = structuralSkipReason({ path, folder }) ?? (select(path) ? undefined : 'not selected');
    if (reason !== undefined) {
      skipped.push({ path, reason });
      continue;
    }
    if (entry.size > limits.maxEntryBytes) {
      throw overLimit(`${limits.maxEntryBytes} uncompressed bytes per entry`, limits.maxEntryBytes, path);
    }
    declaredTotal += entry.size;
    if (declaredTotal > limits.maxTotalBytes) {
      throw overLimit(`${limits.maxTotalBytes} uncompressed bytes`, limits.maxTotalBytes);
    }
    selected.push({ ordinal, path, size: entry.size });
  }
  selected.sort((a, b) => comparePaths(a.path, b.path));
  return {
    paths: selected.map((f) => f.path),
    skipped,
    entries: () => readInPathOrder(input, selected, limits),
  };
}

interface TarFile {
  /** Position among the entries of the stream, the same on every pass. */
  readonly ordinal: number;
  readonly path: string;
  readonly size: number;
}

type TarEvent =
  | { readonly kind: 'entry'; readonly entry: ReadEntry }
  | { readonly kind: 'ignored'; readonly entry: ReadEntry }
  | { readonly kind: 'data'; readonly chunk: Buffer }
  | { readonly kind: 'end' };

const FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);
const LINK_TYPES = new Set(['SymbolicLink', 'Link']);

async function* readInPathOrder(
  input: Buffer,
  sorted: readonly TarFile[],
  limits: ArchiveLimits,
): AsyncGenerator<ArchiveEntry> {
  const rankOf = new Map(sorted.map((file, rank) => [file.ordinal, rank]));
  const held = new Map<number, Buffer[]>();
  let heldBytes = 0;
  let next = 0;
  const fromMemory = (rank: number, chunks: Buffer[]): ArchiveEntry => {
    const file = sorted[rank]!;
    return new StreamedEntry(file.path, file.size, () => replay(chunks), limits.maxLineLength);
  };
  while (next < sorted.length) {
    const passStart = next;
    const events = readTarEvents(input, limits);
    let ordinal = -1;
    try {
      for (;;) {
        const step = await events.next();
        if (step.done) break;
        if (step.value.kind !== 'entry') continue;
        ordinal++;
        const rank = rankOf.get(ordinal);
        if (rank === undefined || rank < next || held.has(rank)) continue;
        const file = sorted[rank]!;
        if (rank === next) {
          const cursor = new EntryCursor(events);
          yield new StreamedEntry(file.path, file.size, () => cursor.open(), limits.maxLineLength);
          await cursor.close();
          next++;
          for (let chunks = held.get(next); chunks !== undefined; chunks = held.get(next)) {
            held.delete(next);
            heldBytes -= sorted[next]!.size;
            yield fromMemory(next, chunks);
            next++;
          }
        } else if (file.size <= limits.maxReorderBytes - heldBytes) {
          held.set(rank, await collect(events));
          heldBytes += file.size;
        }
      }
    } finally {
      await events.return(undefined);
    }
    // Each pass meets the entry whose turn it is; anything else means the stream is not what we listed.
    if (next === passStart) throw invalidArchive('changed between two reads');
  }
}

/** Hands the data events of the current entry to its reader, then skips whatever it left. */
class EntryCursor {
  readonly #events: AsyncGenerator<TarEvent>;
  #opened = false;
  #closed = false;
  #ended = false;

  constructor(events: AsyncGenerator<TarEvent>) {
    this.#events = events;
  }

  open(): AsyncIterator<Uint8Array> {
    if (this.#opened || this.#closed)
      throw new Error('a .tar.gz entry can be read once, before the next entry');
    this.#opened = true;
    return {
      next: async () => {
        const chunk = this.#closed ? undefined : await this.#pull();
        return chunk === undefined ? { done: true, value: undefined } : { done: false, value: chunk };
      },
      return: async () => ({ done: true, value: undefined }),
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    while ((await this.#pull()) !== undefined) {}
  }

  async #pull(): Promise<Buffer | undefined> {
    if (this.#ended) return undefined;
    const step = await this.#events.next();
    if (step.done || step.value.kind === 'end') {
      this.#ended = true;
      return undefined;
    }
    return step.value.kind === 'data' ? step.value.chunk : this.#pull();
  }
}

function replay(chunks: readonly Buffer[]): AsyncIterator<Uint8Array> {
  let i = 0;
  return {
    next: async () =>
      i < chunks.length ? { done: false, value: chunks[i++]! } : { done: true, value: undefined },
  };
}

async function collect(events: AsyncGenerator<TarEvent>): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for (;;) {
    const step = await events.next();
    if (step.done || step.value.kind === 'end') return chunks;
    if (step.value.kind === 'data') chunks.push(step.value.chunk);
  }
}

/**
 * The tar stream as pull-based events. tar's Parser emits entries and their data synchronously
 * while a chunk is written, so each inflated chunk becomes a short queue that is handed out before
 * the next chunk is inflated: memory stays at one chunk whatever the archive holds.
 */
async function* readTarEvents(input: Buffer, limits: ArchiveLimits): AsyncGenerator<TarEvent> {
  const gunzip = createGunzip({ chunkSize: 64 * 1024 });
  // strict turns tar's warnings (bad checksum, truncation, unknown format) into errors.
  const parser = new Parser({ strict: true, brotli: false, zstd: false });
  let queue: TarEvent[] = [];
  let failure: unknown;
  parser.on('entry', (entry: ReadEntry) => {
    sawEntry = true;
    queue.push({ kind: 'entry', entry });
    entry.on('data', (chunk: Buffer) => queue.push({ kind: 'data', chunk }));
    entry.on('end', () => queue.push({ kind: 'end' }));
  });
  parser.on('ignoredEntry', (entry: ReadEntry) => {
    sawEntry = true;
    queue.push({ kind: 'ignored', entry });
  });
  // tar calls a stream of nothing but end-of-archive blocks unrecognized; for us it is just empty.
  let sawEntry = false;
  let sawEnd = false;
  parser.on('eof', () => {
    sawEnd = true;
  });
  parser.on('error', (err: unknown) => {
    if (!sawEntry && sawEnd && /Unrecognized archive format/.test(messageOf(err))) return;
    failure ??= err;
  });
  const ratioCap = limits.maxRatio * input.length;
  let inflated = 0;
  const take = (): TarEvent[] => {
    if (failure !== undefined)
      throw invalidArchive(`is not a readable tar archive: ${messageOf(failure)}`, failure);
    const events = queue;
    queue = [];
    return events;
  };
  gunzip.end(input);
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      inflated += chunk.length;
      if (inflated > limits.maxTotalBytes) {
        throw overLimit(`${limits.maxTotalBytes} uncompressed bytes`, limits.maxTotalBytes);
      }
      if (inflated > ratioCap) throw overLimit(`a ${limits.maxRatio}:1 compression ratio`, limits.maxRatio);
      parser.write(chunk);
      yield* take();
    }
    parser.end();
    yield* take();
  } catch (err) {
    if (isAppError(err)) throw err;
    throw invalidArchive(`is not a readable gzip stream: ${messageOf(err)}`, err);
  } finally {
    gunzip.destroy();
  }
}
