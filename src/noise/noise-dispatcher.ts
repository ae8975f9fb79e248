import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { PreparedSources } from '../shipping/prepared-sources.ts';
import type { ShipOutcome } from '../shipping/ship.ts';
import type { Shipping } from '../shipping/shipping.ts';
import { secondsSince } from '../shipping/shipping-observer.ts';
import type { ObjectStorage } from '../storage/object-storage.ts';
import type { DispatchOutcome, DispatchRequest, NoiseDispatcher } from './dispatch-types.ts';
import { findJob, type NoiseArchive } from './job-store.ts';
import { finalStatus } from './run-status.ts';
import { finishRun, recordRunProgress, recordRunTotal } from './run-store.ts';

/** What the dispatcher uses from the context. */
export interface NoiseDispatcherDeps {
  readonly db: Kysely<Database>;
  readonly clock: Clock;
  readonly log: Logger;
  readonly storage: ObjectStorage;
  readonly shipping: Shipping;
}

/** Tuning; the defaults suit production. */
export interface NoiseDispatcherOptions {
  /** A run row's counters are written once this long passed since the last write (default 1 s)… */
  progressIntervalMs?: number;
  /**
   * … or once this many more events were counted (default PROGRESS_EVENTS), whichever comes first.
   * A row recovered after its instance died is at most about this far behind what the SIEM
   * acknowledged, whatever the throughput.
   */
  progressEvents?: number;
}

/**
 * One batch window of the HTTP clients (4 requests of 5,000 events in flight, HEC and bulk): a
 * fast run (about 235,000 events/s) writes its row about 12 times a second, not once per batch.
 */
export const PROGRESS_EVENTS = 20_000;

/** Distinct error messages kept on a run row; the rest are counted. */
export const MAX_ROW_ERRORS = 5;

/** A run prepared for shipping: its archives in position order and pass 1 of the rebase done. */
interface PreparedRun {
  archives: NoiseArchive[];
  sources: PreparedSources;
}

/** A target's final counts and error, as written to its run row. */
interface TargetEnd {
  shipped: number;
  failed: number;
  error: string | null;
}

/**
 * The noise dispatcher (spec 4.1 steps 1–4): downloads every archive of the request in parallel,
 * prepares them once with one shift for the whole run, then ships to every target at once through
 * the shipping path — archive after archive, each with its index routing — and writes each
 * target's run row. One target failing, or throwing, never stops another. Rows are finished here;
 * next_run_at and the lease are the runner's.
 */
export function createNoiseDispatcher(
  deps: NoiseDispatcherDeps,
  options: NoiseDispatcherOptions = {},
): NoiseDispatcher {
  const progress = {
    intervalMs: options.progressIntervalMs ?? 1000,
    events: options.progressEvents ?? PROGRESS_EVENTS,
  };

  return async (request, signal) => {
    const targets = request.targets.map((siem) => ({ siem, runId: request.run_ids[siem] as string }));
    let run: PreparedRun;
    try {
      run = await prepareRun(deps, request, signal);
    } catch (err) {
      const error = signal.aborted ? cancelled(signal) : preparationError(err, request);
      deps.log.warn({ job_id: request.job_id, error }, 'Noise dispatch could not prepare its archives.');
      await Promise.allSettled(targets.map((t) => finish(deps, t.runId, { shipped: 0, failed: 0, error })));
      return { ok: false, failed: [...request.targets] };
    }
    // Before anything is sent: a row whose dispatch dies from here on is recovered with its counts
    // adding up to this total (run-store failStaleRuns). A row without it keeps its counts then.
    await recordRunTotal(
      deps.db,
      targets.map((t) => t.runId),
      run.sources.shipment.events,
    ).catch((err: unknown) =>
      deps.log.warn({ err, job_id: request.job_id }, 'Run rows could not take their event total.'),
    );

    const settled = await Promise.allSettled(
      targets.map(async (t) => {
        const end = await shipTarget(deps, run, t, signal, progress);
        await finish(deps, t.runId, end);
        return finalStatus(end) === 'succeeded';
      }),
    );
    const failed: string[] = [];
    for (const [i, outcome] of settled.entries()) {
      if (outcome.status === 'fulfilled' && outcome.value) continue;
      const siem = request.targets[i] as string;
      failed.push(siem);
      if (outcome.status === 'rejected') {
        // The runner fails this row if it is still open.
        deps.log.error(
          { err: outcome.reason, job_id: request.job_id, siem },
          'Noise dispatch to a target failed.',
        );
      }
    }
    return { ok: failed.length === 0, failed } satisfies DispatchOutcome;
  };
}

/**
 * Step 1 and 2: the job's routing for each requested archive, every archive downloaded at once,
 * then rebase pass 1 over all of them (one shift for the run). Throws with a message for the rows.
 */
async function prepareRun(
  deps: NoiseDispatcherDeps,
  request: DispatchRequest,
  signal: AbortSignal,
): Promise<PreparedRun> {
  const job = await findJob(deps.db, request.job_id);
  const archives: NoiseArchive[] = [];
  const strangers: string[] = [];
  for (const wanted of request.archives) {
    const own = job.archives.find(
      (a) => a.position === wanted.position && a.storage_path === wanted.storage_path,
    );
    if (own) archives.push(own);
    else strangers.push(`${JSON.stringify(wanted.storage_path)} at position ${wanted.position}`);
  }
  if (strangers.length > 0) {
    throw new Error(`not an archive of job "${job.name}": ${strangers.join(', ')}`);
  }
  archives.sort((a, b) => a.position - b.position);
  // The signal ends a download that hangs (shutdown, lost lease); the storage's own time limits
  // end it otherwise.
  const downloadStartedAt = performance.now();
  const data = await Promise.all(archives.map((a) => download(deps.storage, a.storage_path, signal)));
  deps.shipping.observer.archivesDownloaded('noise', secondsSince(downloadStartedAt));
  signal.throwIfAborted();
  const prepareStartedAt = performance.now();
  const sources = await deps.shipping.prepare(
    archives.map((a, i) => ({ data: data[i] as Buffer, kind: 'zip' as const, label: a.storage_path })),
    // Pass 1 of ten large archives takes a while: a shutdown or a lost lease stops it too.
    { format: 'leef', signal },
  );
  deps.shipping.observer.archivesInflated('noise', secondsSince(prepareStartedAt));
  signal.throwIfAborted();
  return { archives, sources };
}

async function download(storage: ObjectStorage, path: string, signal: AbortSignal): Promise<Buffer> {
  try {
    return await storage.get('noise-archives', path, signal);
  } catch (err) {
    if (err instanceof AppError && err.code === 'not_found') {
      throw new Error(`archive ${JSON.stringify(path)} is not in the noise-archives bucket`);
    }
    throw new Error(`archive ${JSON.stringify(path)} could not be read from storage: ${messageOf(err)}`);
  }
}

/** Step 3 for one target: every archive in position order through the shipping path. */
async function shipTarget(
  deps: NoiseDispatcherDeps,
  run: PreparedRun,
  target: { siem: string; runId: string },
  signal: AbortSignal,
  every: ProgressEvery,
): Promise<TargetEnd> {
  const total = run.sources.shipment.events;
  let shipTo: Awaited<ReturnType<Shipping['target']>>;
  try {
    shipTo = await deps.shipping.target(target.siem);
  } catch (err) {
    return { shipped: 0, failed: total, error: targetError(target.siem, err) };
  }
  const progress = new ProgressWriter(deps, target.runId, every);
  let outcome: ShipOutcome;
  try {
    outcome = await deps.shipping.ship({
      target: shipTo,
      sources: run.sources,
      routing: run.archives,
      signal,
      onProgress: (counts) => progress.maybe(counts),
    });
  } finally {
    await progress.settle();
  }
  return { shipped: outcome.shipped, failed: outcome.failed, error: rowError(outcome, signal) };
}

/** Why a target got nothing: unknown, disabled, or unreadable. */
function targetError(siem: string, err: unknown): string {
  if (err instanceof AppError && err.code === 'not_found') return `SIEM destination "${siem}" does not exist`;
  if (err instanceof AppError && err.code === 'destination_disabled')
    return `SIEM destination "${siem}" is disabled; nothing was sent`;
  return `SIEM destination "${siem}" could not be loaded: ${messageOf(err)}`;
}

/**
 * A run row's error: the shipment's distinct messages, at most MAX_ROW_ERRORS of them; first why
 * the dispatch was cancelled (shutdown, a lost lease) when it was, whatever the client said.
 */
function rowError(outcome: ShipOutcome, signal: AbortSignal): string | null {
  if (outcome.failed === 0) return null;
  const why = signal.aborted ? cancelled(signal) : null;
  const all = why === null ? outcome.errors : [why, ...outcome.errors.filter((e) => e !== why)];
  if (all.length === 0) return `${outcome.failed} of ${outcome.events} events were not delivered`;
  const shown = all.slice(0, MAX_ROW_ERRORS).join('; ');
  return all.length > MAX_ROW_ERRORS ? `${shown}; and ${all.length - MAX_ROW_ERRORS} more` : shown;
}

/** Step 4 for one target: its run row's final status, counts and error. */
async function finish(deps: NoiseDispatcherDeps, runId: string, end: TargetEnd): Promise<void> {
  await finishRun(
    deps.db,
    runId,
    { status: finalStatus(end), events_shipped: end.shipped, events_failed: end.failed, error: end.error },
    deps.clock.now(),
  );
}

/** When a running row's counters are written: whichever of the two comes first. */
interface ProgressEvery {
  readonly intervalMs: number;
  readonly events: number;
}

/**
 * Writes a running row's counters as acknowledged batches come in: once `every.events` more events
 * were counted or `every.intervalMs` passed since the last write, whichever comes first, one write
 * at a time. Counts that arrive while a write is out are written when it returns if they reached
 * either mark by then, so a fast shipment never runs more than about one progress window ahead
 * of its row, and a database write never happens per batch.
 */
class ProgressWriter {
  readonly #deps: NoiseDispatcherDeps;
  readonly #runId: string;
  readonly #every: ProgressEvery;
  #lastAt = Number.NEGATIVE_INFINITY;
  /** Shipped + failed of the last write. */
  #written = 0;
  #latest: { shipped: number; failed: number } | undefined;
  #writing: Promise<unknown> = Promise.resolve();
  #busy = false;

  constructor(deps: NoiseDispatcherDeps, runId: string, every: ProgressEvery) {
    this.#deps = deps;
    this.#runId = runId;
    this.#every = every;
  }

  maybe(counts: { shipped: number; failed: number }): void {
    this.#latest = counts;
    if (this.#busy) return;
    const counted = counts.shipped + counts.failed;
    if (counted <= this.#written) return;
    const now = this.#deps.clock.now();
    if (counted - this.#written < this.#every.events && now - this.#lastAt < this.#every.intervalMs) return;
    this.#lastAt = now;
    this.#written = counted;
    this.#busy = true;
    this.#writing = recordRunProgress(this.#deps.db, this.#runId, {
      events_shipped: counts.shipped,
      events_failed: counts.failed,
    })
      .catch((err: unknown) => this.#deps.log.warn({ err, run_id: this.#runId }, 'Run progress not written.'))
      .finally(() => {
        this.#busy = false;
        if (this.#latest !== undefined) this.maybe(this.#latest);
      });
  }

  /** Resolves once no progress write is out (the row's final write comes after). */
  async settle(): Promise<void> {
    while (this.#busy) await this.#writing;
  }
}

/** The row error of a run whose archives could not be prepared (every target fails with it). */
function preparationError(err: unknown, request: DispatchRequest): string {
  const message = messageOf(err);
  // With one archive, the preparation's messages do not name it; with several they do.
  const only = request.archives.length === 1 ? request.archives[0] : undefined;
  const named = only ? `${only.storage_path}: ${message}` : message;
  if (err instanceof AppError) {
    if (err.code === 'no_events') return `no events to ship: ${named}`;
    if (err.code === 'archive_invalid') return `invalid archive: ${named}`;
    if (err.code === 'payload_too_large') return `archive too large: ${named}`;
  }
  return `the dispatch failed: ${message}`;
}

function cancelled(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return `cancelled: ${reason instanceof Error ? reason.message : 'the dispatch was cancelled'}`;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
