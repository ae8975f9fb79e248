import { randomBytes } from 'node:crypto';
import { type FileHandle, mkdir, open, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../errors.ts';

/** Where a download goes once it holds more than `memoryBytes`: a new file of its own. */
export interface SpillTarget {
  /** Bytes of one download held in memory (ARCHIVE_MEMORY_BYTES); beyond, it goes to a file. */
  readonly memoryBytes: number;
  /** A new empty file, mode 0600, open for writing; the target removes it, not the caller. */
  createFile(): Promise<{ readonly path: string; readonly handle: FileHandle }>;
}

/** One admitted session start: its spill files, all removed by release(). */
export interface DownloadSlot extends SpillTarget {
  /** Frees the slot and removes its files. Idempotent. */
  release(): Promise<void>;
}

/** How many starts at once, how much of each in memory, and where the rest goes. */
export interface DownloadGateOptions {
  /** Session starts holding a download at once (ARCHIVE_MAX_CONCURRENT). */
  readonly maxConcurrent: number;
  /** Bytes of one download held in memory (ARCHIVE_MEMORY_BYTES). */
  readonly memoryBytes: number;
  /** Folder of the spill files (DATA_DIR/tmp), made (0700) when first needed. */
  readonly tempDir: string;
  /** The Retry-After of a refusal (default RETRY_AFTER_SECONDS). */
  readonly retryAfterSeconds?: number;
}

/** Retry-After of a start refused because ARCHIVE_MAX_CONCURRENT starts are running. */
export const RETRY_AFTER_SECONDS = 10;

const PREFIX = 'archive-';
const SUFFIX = '.zip';

/**
 * Bounds what session starts' downloads hold at once (hardening issue, item 3): at most
 * `maxConcurrent` starts run (download, preparation and shipment: the archive is held until the
 * shipment ends), a further one is refused at once with 503 and Retry-After; each download keeps
 * up to `memoryBytes` in memory and writes the rest to a file under `tempDir`. So the archives in
 * memory never exceed maxConcurrent × memoryBytes, and the spill files maxConcurrent ×
 * ARCHIVE_MAX_BYTES on disk. Files are removed when their start ends and, for any left, at close.
 */
export class DownloadGate {
  readonly #options: DownloadGateOptions;
  readonly #files = new Set<string>();
  #active = 0;
  #closed = false;

  constructor(options: DownloadGateOptions) {
    this.#options = options;
  }

  /** Starts running now. */
  get active(): number {
    return this.#active;
  }

  /**
   * A slot for one start, or `503 unavailable` with `details.retry_after_seconds` when
   * `maxConcurrent` starts are running (or the service is closing).
   */
  enter(): DownloadSlot {
    const { maxConcurrent } = this.#options;
    const retryAfter = this.#options.retryAfterSeconds ?? RETRY_AFTER_SECONDS;
    if (this.#closed) {
      throw new AppError('unavailable', 'Socdrill is shutting down; retry after the restart', {
        details: { retry_after_seconds: retryAfter },
      });
    }
    if (this.#active >= maxConcurrent) {
      throw new AppError(
        'unavailable',
        `${maxConcurrent} session start${maxConcurrent === 1 ? ' is' : 's are'} already running (ARCHIVE_MAX_CONCURRENT); retry in ${retryAfter} s`,
        { details: { retry_after_seconds: retryAfter, max_concurrent: maxConcurrent } },
      );
    }
    this.#active++;
    const own = new Set<string>();
    let released = false;
    return {
      memoryBytes: this.#options.memoryBytes,
      createFile: async () => {
        if (released || this.#closed) throw new Error('the download slot was released');
        const file = await this.#createFile();
        own.add(file.path);
        return file;
      },
      release: async () => {
        if (released) return;
        released = true;
        this.#active--;
        await Promise.all([...own].map((f) => this.#remove(f)));
      },
    };
  }

  /** Removes every spill file still there and refuses new starts (shutdown). */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#files].map((f) => this.#remove(f)));
  }

  /**
   * Removes spill files older than `olderThanMs` that an earlier process left (killed before its
   * finally ran). Run once at start; a failure is only returned, for a warning.
   */
  async sweep(now: number, olderThanMs: number): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.#options.tempDir);
    } catch {
      return 0;
    }
    let removed = 0;
    for (const name of names) {
      if (!name.startsWith(PREFIX) || !name.endsWith(SUFFIX)) continue;
      const file = path.join(this.#options.tempDir, name);
      try {
        if (now - (await stat(file)).mtimeMs < olderThanMs) continue;
        await rm(file, { force: true });
        removed++;
      } catch {
        // gone meanwhile, or not ours to remove
      }
    }
    return removed;
  }

  async #createFile(): Promise<{ path: string; handle: FileHandle }> {
    await mkdir(this.#options.tempDir, { recursive: true, mode: 0o700 });
    const file = path.join(this.#options.tempDir, `${PREFIX}${randomBytes(12).toString('hex')}${SUFFIX}`);
    // wx: a new file, never one that exists (or a link planted there); 0600: this user only.
    const handle = await open(file, 'wx', 0o600);
    this.#files.add(file);
    return { path: file, handle };
  }

  async #remove(file: string): Promise<void> {
    this.#files.delete(file);
    await rm(file, { force: true }).catch(() => {});
  }
}
