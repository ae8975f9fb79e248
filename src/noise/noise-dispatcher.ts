import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import { loadDestination } from '../destinations/destination-service.ts';
import type { Destination } from '../destinations/destination-types.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { type ArchiveSettings, archiveLimitsOf } from '../pipeline/archive/archive-limits.ts';
import type { OutboundEvent } from '../pipeline/shipment/outbound-event.ts';
import { type PreparedShipment, prepareShipment } from '../pipeline/shipment/prepare-shipment.ts';
import { type ShipmentOutput, shipmentEvents } from '../pipeline/shipment/shipment-events.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import type { Driver, ShipCounters } from '../siems/siem-client.ts';
import type { ObjectStorage } from '../storage/object-storage.ts';
import type { DispatchOutcome, DispatchRequest, NoiseDispatcher } from './dispatch-types.ts';
import type { CreateDriver } from './ensure-job-indexes.ts';
import { findJob, type NoiseArchive } from './job-store.ts';
import { finalStatus } from './run-status.ts';
import { finishRun, recordRunProgress } from './run-store.ts';

/** What the dispatcher uses from the context. */
export interface NoiseDispatcherDeps {
  readonly db: Kysely<Database>;
  readonly clock: Clock;
  readonly log: Logger;
  readonly secretBox: SecretBox;
  readonly storage: ObjectStorage;
  readonly config: ArchiveSettings;
  /** The driver factory, read at every dispatch (the context's may be swapped). */
  createDriver(): CreateDriver | undefined;
}

/** Tuning; the defaults suit production. */
export interface NoiseDispatcherOptions {
  /** Least time between two progress writes of one run row (default 1 s). */
  progressIntervalMs?: number;
}

/** Distinct error messages kept on a run row; the rest are counted. */
export const MAX_ROW_ERRORS = 5;

/** How one archive's events reach one destination: the driver's index and the events' form. */
export interface ArchiveRouting {
  /** `ShipOptions.index`: null is the destination's default index. */
  index: string | null;
  output: ShipmentOutput;
}

/**
 * Per-archive index routing (spec 4.1, decisions.md §5). The archive's own index (`existing` or
 * `new`) goes to HEC and bulk as the target index; `default` leaves the destination's. syslog_tcp
 * lines and bulk documents carry the index as `labIndex` (bulk: `labels.labIndex`, LEEF converted
 * to ECS): the archive's index, else the destination's default index, else none at all.
 */
export function archiveRouting(destination: Destination, archive: NoiseArchive): ArchiveRouting {
  const own = archive.index_mode === 'default' ? null : archive.index;
  const labIndex = own ?? destination.index ?? null;
  switch (destination.driver) {
    case 'syslog_tcp':
      return { index: null, output: { kind: 'leef', labIndex } };
    case 'vendorB_bulk':
      return { index: own, output: { kind: 'ecs', labIndex } };
    case 'vendorA_hec':
      return { index: own, output: { kind: destination.payload_format } };
  }
}

/** A run prepared for shipping: its archives in position order and pass 1 of the rebase done. */
interface PreparedRun {
  archives: NoiseArchive[];
  shipment: PreparedShipment;
}

/** A target's final counts and error, as written to its run row. */
interface TargetEnd {
  shipped: number;
  failed: number;
  error: string | null;
}

/**
 * The real noise dispatcher (spec 4.1 steps 1–4): downloads every archive of the request in
 * parallel, rebases them with one shift for the whole run, then ships to every target at once —
 * archive after archive, each with its index routing — and writes each target's run row. One
 * target failing, or throwing, never stops another. Rows are finished here; next_run_at and the
 * lease are the runner's.
 */
export function createNoiseDispatcher(
  deps: NoiseDispatcherDeps,
  options: NoiseDispatcherOptions = {},
): NoiseDispatcher {
  const progressMs = options.progressIntervalMs ?? 1000;

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

    const settled = await Promise.allSettled(
      targets.map(async (t) => {
        const end = await shipTarget(deps, run, t, signal, progressMs);
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
  const data = await Promise.all(archives.map((a) => download(deps.storage, a.storage_path, signal)));
  signal.throwIfAborted();
  const shipment = await prepareShipment(
    archives.map((a, i) => ({ data: data[i] as Buffer, kind: 'zip' as const, label: a.storage_path })),
    {
      format: 'leef',
      now: deps.clock.now(),
      limits: archiveLimitsOf(deps.config),
    },
  );
  // Pass 2 of a LEEF shipment may run for several targets at once (shiftLine is synchronous per
  // line); the ECS reader keeps per-pass state, so a noise run must never be ECS.
  if (shipment.format !== 'leef') throw new Error('noise archives are LEEF only');
  signal.throwIfAborted();
  return { archives, shipment };
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

/** Step 3 for one target: every archive in position order through one driver. Never throws for delivery. */
async function shipTarget(
  deps: NoiseDispatcherDeps,
  run: PreparedRun,
  target: { siem: string; runId: string },
  signal: AbortSignal,
  progressMs: number,
): Promise<TargetEnd> {
  const total = run.shipment.events;
  const opened = await openDriver(deps, target.siem);
  if (typeof opened === 'string') return { shipped: 0, failed: total, error: opened };

  const driver = opened;
  const errors = new ErrorList();
  const progress = new ProgressWriter(deps, target.runId, progressMs);
  let shipped = 0;
  let failed = 0;
  // Indexes this SIEM refused in this run: later archives routed to them are not sent (their
  // events count as failed; the refusal is on the row already).
  const refused = new Set<string>();
  try {
    for (const [i, archive] of run.archives.entries()) {
      if (signal.aborted) break;
      if (run.shipment.eventsPerSource[i] === 0) continue;
      const { index, output } = archiveRouting(driver.destination, archive);
      const sentTo = shippedTo(driver.destination, index);
      if (sentTo !== null && refused.has(sentTo)) continue;
      const before = { shipped, failed };
      try {
        const result = await driver.ship(untilAborted(shipmentEvents(run.shipment, i, output), signal), {
          index,
          now: run.shipment.now,
          signal,
          onProgress: (c: Readonly<ShipCounters>) =>
            progress.maybe({ shipped: before.shipped + c.shipped, failed: before.failed + c.failed }),
        });
        shipped += result.shipped;
        failed += result.failed;
        for (const e of result.errors) errors.add(e);
        if (result.shipped === 0 && result.failed > 0) {
          // Nothing of a whole archive got through. Unless the SIEM refused just this archive's
          // index (missing, not allowed: only the archives routed there fail, docs/noise.md), the
          // target is unusable — down (the driver already spent its retries), credentials refused,
          // a configuration error — and trying it archive after archive would multiply the wait.
          if (sentTo === null || !refusesIndex(result.errors, sentTo, driver.destination.name)) break;
          refused.add(sentTo);
        }
      } catch (err) {
        if (signal.aborted) break;
        // Drivers throw only for programming errors: this target stops, the others go on.
        errors.add(`${archive.storage_path}: the shipment failed: ${messageOf(err)}`);
        break;
      }
      progress.maybe({ shipped, failed });
    }
  } finally {
    await progress.settle();
    await driver.close().catch((err: unknown) => {
      deps.log.warn({ err, siem: target.siem }, 'SIEM driver did not close cleanly.');
    });
  }
  // Events never handed to the driver (cancelled, or a target that stopped) failed too.
  const notShipped = Math.max(0, total - shipped);
  if (notShipped === 0) return { shipped, failed: 0, error: null };
  const reasons = errors.text();
  const error = signal.aborted
    ? [cancelled(signal), reasons].filter((s) => s !== '').join('; ')
    : reasons === ''
      ? `${notShipped} of ${total} events were not delivered`
      : reasons;
  return { shipped, failed: notShipped, error };
}

/**
 * The index a shipment goes to on an index-aware SIEM (HEC, bulk): the archive's own, else the
 * destination's default; null when none, and always for syslog_tcp (its index is only a label in
 * the line, which no syslog receiver refuses).
 */
function shippedTo(destination: Destination, index: string | null): string | null {
  if (destination.driver === 'syslog_tcp') return null;
  return index ?? destination.index;
}

/**
 * True when every error of a shipment that delivered nothing names `index` the way drivers quote a
 * refused index (HEC code 7: `index "dns-noise"`; bulk: `no such index [dns-noise]`). Drivers report
 * no structured cause, and a refusal that does not name the index (credentials, SIEM down) concerns
 * the whole target. The messages' `SIEM "<siem>" ` prefix is left out (a SIEM may share the
 * index's name); the endpoint URL after it never holds these quoted forms.
 */
function refusesIndex(errors: readonly string[], index: string, siem: string): boolean {
  const prefix = `SIEM "${siem}" `;
  return (
    errors.length > 0 &&
    errors.every((e) => {
      const cause = e.startsWith(prefix) ? e.slice(prefix.length) : e;
      return cause.includes(`"${index}"`) || cause.includes(`[${index}]`);
    })
  );
}

/** The destination's driver, or the reason why this target gets none. */
async function openDriver(deps: NoiseDispatcherDeps, siem: string): Promise<Driver | string> {
  let destination: Destination;
  try {
    destination = await loadDestination(deps.db, deps.secretBox, siem);
  } catch (err) {
    if (err instanceof AppError && err.code === 'not_found') {
      return `SIEM destination "${siem}" does not exist`;
    }
    return `SIEM destination "${siem}" could not be loaded: ${messageOf(err)}`;
  }
  if (!destination.enabled) return `SIEM destination "${siem}" is disabled; nothing was sent`;
  const factory = deps.createDriver();
  if (!factory) return `no SIEM driver for ${destination.driver} is available; nothing was sent to "${siem}"`;
  try {
    return factory(destination);
  } catch (err) {
    return `SIEM "${siem}": the driver could not be built: ${messageOf(err)}`;
  }
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

/** Stops pulling events once the dispatch is cancelled; the driver then ends with what it has. */
async function* untilAborted(
  source: AsyncGenerator<OutboundEvent[]>,
  signal: AbortSignal,
): AsyncGenerator<OutboundEvent[]> {
  // Leaving the loop early closes the source (for await calls its return()).
  for await (const batch of source) {
    if (signal.aborted) return;
    yield batch;
  }
}

/** Distinct messages in arrival order, at most MAX_ROW_ERRORS shown. */
class ErrorList {
  readonly #seen = new Set<string>();
  add(message: string): void {
    this.#seen.add(message);
  }
  text(): string {
    const all = [...this.#seen];
    const shown = all.slice(0, MAX_ROW_ERRORS).join('; ');
    return all.length > MAX_ROW_ERRORS ? `${shown}; and ${all.length - MAX_ROW_ERRORS} more` : shown;
  }
}

/** Writes a running row's counters at most once per interval, one write at a time. */
class ProgressWriter {
  readonly #deps: NoiseDispatcherDeps;
  readonly #runId: string;
  readonly #intervalMs: number;
  #last = Number.NEGATIVE_INFINITY;
  #writing: Promise<unknown> = Promise.resolve();
  #busy = false;

  constructor(deps: NoiseDispatcherDeps, runId: string, intervalMs: number) {
    this.#deps = deps;
    this.#runId = runId;
    this.#intervalMs = intervalMs;
  }

  maybe(counts: { shipped: number; failed: number }): void {
    const now = this.#deps.clock.now();
    if (this.#busy || now - this.#last < this.#intervalMs) return;
    this.#last = now;
    this.#busy = true;
    this.#writing = recordRunProgress(this.#deps.db, this.#runId, {
      events_shipped: counts.shipped,
      events_failed: counts.failed,
    })
      .catch((err: unknown) => this.#deps.log.warn({ err, run_id: this.#runId }, 'Run progress not written.'))
      .finally(() => {
        this.#busy = false;
      });
  }

  settle(): Promise<unknown> {
    return this.#writing;
  }
}

/** The row error of a run whose archives could not be prepared (every target fails with it). */
function preparationError(err: unknown, request: DispatchRequest): string {
  const message = messageOf(err);
  // With one archive, prepareShipment's messages do not name it; with several they do.
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
