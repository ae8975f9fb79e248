import { Worker } from 'node:worker_threads';
import type { EcsLinesScan } from './scan-ecs-lines.ts';

/** A run of lines for the scan worker, rebased to the start of its own copy of their bytes. */
export interface EcsScanJob {
  readonly id: number;
  readonly bytes: Uint8Array;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
}

/** The scan worker's answer to one job. */
export type EcsScanAnswer = { id: number; scan: EcsLinesScan } | { id: number; error: string };

/**
 * A worker thread for pass 1 of ECS NDJSON entries: while the main thread scans the first half of
 * an inflated chunk's lines, the worker scans the second (scanEcsLines on both sides). Pass 1 is
 * nearly all main-thread work, before anything can be sent, while the second core idles. In a
 * running service (the worker started and compiled by an earlier ECS shipment) it cut a 300,000-
 * document bulk session start's wall time by about a fifth (docs/performance.md); a fresh
 * process's first ECS shipment gains little, as the worker starts during it. One per service
 * instance (createContext), shared by its shipments: jobs carry their own bytes and every answer is
 * matched by id, so nothing of a shipment stays here. It costs about 34 MiB of RSS once started
 * (half of it loading the TypeScript sources), so it starts with the first ECS shipment.
 *
 * Until it is online, and for good once it failed, `available()` says no and callers scan on their
 * own thread: the worker only ever makes pass 1 faster, never different.
 */
export class EcsScanPool {
  #worker: Worker | null = null;
  #online = false;
  #failed = false;
  #closed = false;
  #nextId = 1;
  #lines = 0;
  readonly #pending = new Map<number, { resolve(scan: EcsLinesScan): void; reject(err: Error): void }>();
  readonly #online$: Promise<boolean>;
  #settle: (online: boolean) => void = () => {};
  readonly #onFailure: (err: Error) => void;

  readonly #workerUrl: URL;

  /**
   * `onFailure`: told once when the worker fails (it is not restarted). `workerUrl`: another entry
   * for the worker (tests: one that fails).
   */
  constructor(options: { onFailure?: (err: Error) => void; workerUrl?: URL } = {}) {
    this.#onFailure = options.onFailure ?? (() => {});
    this.#workerUrl = options.workerUrl ?? new URL('./ecs-scan-worker.ts', import.meta.url);
    this.#online$ = new Promise((resolve) => {
      this.#settle = resolve;
    });
  }

  /** Lines the worker has scanned. */
  get linesScanned(): number {
    return this.#lines;
  }

  /** Starts the worker if need be; true once it is online, false if it failed or was closed first. */
  ready(): Promise<boolean> {
    this.available();
    return this.#closed || this.#failed ? Promise.resolve(false) : this.#online$;
  }

  /** Whether a job handed over now runs on the worker (starting it on the first call). */
  available(): boolean {
    if (this.#failed || this.#closed) return false;
    if (this.#worker === null) {
      try {
        this.#start();
      } catch (err) {
        this.#fail(err instanceof Error ? err : new Error(String(err)));
      }
    }
    return this.#online;
  }

  /**
   * Scans lines `[from, to)` of `buf` (ASCII, line k at `buf[starts[k], ends[k])`) on the worker.
   * The bytes are copied for it, so `buf` may be reused once this returns. Rejects when the worker
   * is not running or fails: the caller then scans the lines itself.
   */
  scan(
    buf: Uint8Array,
    starts: Int32Array,
    ends: Int32Array,
    from: number,
    to: number,
  ): Promise<EcsLinesScan> {
    const worker = this.#worker;
    if (worker === null || !this.#online || to <= from)
      return Promise.reject(new Error('the ECS scan worker is not running'));
    const base = starts[from]!;
    const bytes = new Uint8Array(ends[to - 1]! - base);
    bytes.set(buf.subarray(base, ends[to - 1]!));
    const lineStarts = new Int32Array(to - from);
    const lineEnds = new Int32Array(to - from);
    for (let k = from; k < to; k++) {
      lineStarts[k - from] = starts[k]! - base;
      lineEnds[k - from] = ends[k]! - base;
    }
    const id = this.#nextId++;
    const job: EcsScanJob = { id, bytes, starts: lineStarts, ends: lineEnds };
    try {
      worker.postMessage(job, [bytes.buffer, lineStarts.buffer, lineEnds.buffer]);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return new Promise<EcsLinesScan>((resolve, reject) => {
      // Held only while it has work: an idle worker never keeps the process alive.
      if (this.#pending.size === 0) worker.ref();
      this.#pending.set(id, { resolve, reject });
    });
  }

  /** Stops the worker; jobs still out are rejected (their callers scan on their own thread). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#online = false;
    this.#settle(false);
    const worker = this.#worker;
    this.#worker = null;
    this.#failAll(new Error('the ECS scan worker was closed'));
    if (worker !== null) await worker.terminate();
  }

  #start(): void {
    // The service's V8 flags are process-wide: a worker may not be given them again.
    const worker = new Worker(this.#workerUrl, { execArgv: [] });
    worker.unref();
    this.#worker = worker;
    worker.on('online', () => {
      if (this.#closed || this.#failed) return;
      this.#online = true;
      this.#settle(true);
    });
    worker.on('message', (answer: EcsScanAnswer) => {
      const waiting = this.#pending.get(answer.id);
      if (waiting === undefined) return;
      this.#settled(answer.id);
      if ('scan' in answer) {
        this.#lines += answer.scan.lines;
        waiting.resolve(answer.scan);
      } else waiting.reject(new Error(answer.error));
    });
    worker.on('error', (err) => this.#fail(err));
    // An answer that cannot be read would leave its job waiting: no answer is trusted after it.
    worker.on('messageerror', (err) => this.#fail(err));
    worker.on('exit', (code) => {
      if (!this.#closed) this.#fail(new Error(`the ECS scan worker exited with code ${code}`));
    });
  }

  #settled(id: number): void {
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#worker?.unref();
  }

  #fail(err: Error): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#online = false;
    this.#settle(false);
    this.#failAll(err);
    this.#onFailure(err);
  }

  #failAll(err: Error): void {
    const waiting = [...this.#pending.values()];
    this.#pending.clear();
    for (const job of waiting) job.reject(err);
  }
}
