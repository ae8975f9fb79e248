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
 * What the worker sends once its modules are loaded, before any answer: `online` comes as soon as
 * it runs, about a tenth of a second before it can scan (a fresh process, most of it loading the
 * TypeScript sources), and a job handed over in between would keep pass 1 waiting.
 */
export const SCAN_WORKER_READY = { ready: true } as const;

/**
 * How long a job may go unanswered before the worker is taken for hung: a chunk's half takes tens
 * of milliseconds, and pass 1 waits for its answer with no other deadline.
 */
export const DEFAULT_ANSWER_TIMEOUT_MS = 30_000;

/**
 * A worker thread for pass 1 of ECS NDJSON entries: while the main thread scans the first half of
 * an inflated chunk's lines, the worker scans the second (scanEcsLines on both sides). Pass 1 is
 * nearly all main-thread work, before anything can be sent, while the second core idles. In a
 * running service (the worker started and compiled by an earlier ECS shipment) it cut a 300,000-
 * document bulk session start's wall time by about a fifth (docs/performance.md); a fresh
 * process's first ECS shipment gains little, as the worker starts during it. One per service
 * instance (createContext), shared by its shipments: jobs carry their own bytes and every answer is
 * matched by id, so nothing of a shipment stays here. It costs about 34 MiB of RSS once started
 * (half of it loading the TypeScript sources), so it starts with the first ECS shipment: as soon
 * as one is known to come (Shipping.warmFor), so that it loads while the archive downloads.
 *
 * Until it has loaded, and for good once it failed (crashed, sent what cannot be read, or left a
 * job unanswered past the timeout: it is then stopped), `available()` says no and callers scan on
 * their own thread: the worker only ever makes pass 1 faster, never different.
 */
export class EcsScanPool {
  #worker: Worker | null = null;
  #online = false;
  #failed = false;
  #closed = false;
  #nextId = 1;
  #lines = 0;
  readonly #pending = new Map<
    number,
    { resolve(scan: EcsLinesScan): void; reject(err: Error): void; timer: NodeJS.Timeout }
  >();
  readonly #online$: Promise<boolean>;
  #settle: (online: boolean) => void = () => {};
  readonly #onFailure: (err: Error) => void;

  readonly #workerUrl: URL;
  readonly #answerTimeoutMs: number;

  /**
   * `onFailure`: told once when the worker fails (it is not restarted). `workerUrl`: another entry
   * for the worker (tests: one that fails). `answerTimeoutMs`: how long a job may go unanswered
   * before the worker counts as hung (DEFAULT_ANSWER_TIMEOUT_MS).
   */
  constructor(options: { onFailure?: (err: Error) => void; workerUrl?: URL; answerTimeoutMs?: number } = {}) {
    this.#onFailure = options.onFailure ?? (() => {});
    this.#workerUrl = options.workerUrl ?? new URL('./ecs-scan-worker.ts', import.meta.url);
    this.#answerTimeoutMs = options.answerTimeoutMs ?? DEFAULT_ANSWER_TIMEOUT_MS;
    this.#online$ = new Promise((resolve) => {
      this.#settle = resolve;
    });
  }

  /** Whether its worker was started and the pool not closed since (a failed worker counts: it is not started again). */
  get started(): boolean {
    return this.#worker !== null || this.#failed;
  }

  /** Lines the worker has scanned. */
  get linesScanned(): number {
    return this.#lines;
  }

  /**
   * Starts the worker if it is not running yet, without waiting for it: called as soon as a
   * shipment of ECS is known to come, so that the worker loads while the archive downloads.
   */
  start(): void {
    this.available();
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
      // A hung worker would hold pass 1 for good: past the timeout it is stopped, and every job
      // still out goes back to its caller's thread.
      const timer = setTimeout(() => {
        this.#fail(new Error(`the ECS scan worker did not answer within ${this.#answerTimeoutMs / 1000} s`));
      }, this.#answerTimeoutMs);
      timer.unref();
      this.#pending.set(id, { resolve, reject, timer });
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
    worker.on('message', (answer: EcsScanAnswer | typeof SCAN_WORKER_READY) => {
      if ('ready' in answer) {
        if (this.#closed || this.#failed) return;
        this.#online = true;
        this.#settle(true);
        return;
      }
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
    const job = this.#pending.get(id);
    if (job !== undefined) clearTimeout(job.timer);
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#worker?.unref();
  }

  #fail(err: Error): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#online = false;
    this.#settle(false);
    this.#failAll(err);
    // A worker that answered what cannot be read, or none at all, may still be running.
    const worker = this.#worker;
    this.#worker = null;
    if (worker !== null) void worker.terminate();
    this.#onFailure(err);
  }

  #failAll(err: Error): void {
    const waiting = [...this.#pending.values()];
    this.#pending.clear();
    for (const job of waiting) {
      clearTimeout(job.timer);
      job.reject(err);
    }
  }
}
