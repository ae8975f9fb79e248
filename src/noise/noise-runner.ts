import type { Kysely } from 'kysely';
import type { AuditEntry } from '../audit/audit-log.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import { AppError, invalidInput } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { RunEngine, RunLease } from '../runs/run-engine.ts';
import type { DispatchOutcome, DispatchRequest, DispatchTrigger, NoiseDispatcher } from './dispatch-types.ts';
import { type Claim, extendLease, type RequestedSchedule, releaseLease, takeLease } from './job-lease.ts';
import { findJob, isLeaseHeld, type NoiseJob } from './job-store.ts';
import type { RandomSource } from './next-run-at.ts';
import { ignoreNoise, type NoiseObserver } from './noise-observer.ts';
import {
  createRunRows,
  failOpenRuns,
  getRuns,
  markRunsRunning,
  type RunView,
  skipRuns,
  startRuns,
} from './run-store.ts';

/** Error of rows created while a run of the same job was in progress. */
export const JOB_RUNNING_REASON = 'skipped: a run of this job was already in progress';
/** Error of rows a dispatcher returned from without giving a final status. */
export const NO_FINAL_STATUS_ERROR = 'the dispatch ended without writing a final status for this target';

/** Who asked for a dispatch, for the audit log (`'system'` for the scheduler). */
export interface DispatchBy {
  actor: AuditEntry['actor'];
  ip?: string | null;
}

/** How a dispatch ended: the dispatcher's outcome reconciled with the final run rows. */
export interface DispatchResult extends DispatchOutcome {
  runs: RunView[];
}

/** A dispatch in progress; `done` never rejects. */
export interface DispatchHandle {
  job_id: string;
  run_ids: Record<string, string>;
  done: Promise<DispatchResult>;
}

/** Parts the runner uses. */
export interface NoiseRunnerDeps {
  db: Kysely<Database>;
  clock: Clock;
  log: Logger;
  audit(entry: AuditEntry): Promise<void>;
  /** Ships a dispatch and finishes its run rows (noise-dispatcher.ts). */
  dispatcher: NoiseDispatcher;
  /** Runs the dispatches: leases kept alive, aborted on a lost lease or at close (src/runs). */
  engine: RunEngine;
  /** Told of every run row's end (the service's metrics); none when absent. */
  observer?: NoiseObserver;
}

/** Choices of the runner; defaults suit production. */
export interface NoiseRunnerOptions {
  random?: RandomSource;
}

/**
 * Runs noise dispatches in this process: takes the job's lease, marks the run rows running, calls
 * the dispatcher, heartbeats the lease meanwhile, then fails rows left open, writes next_run_at
 * and frees the lease. Every path into a dispatch goes through here — the scheduler, manual runs
 * (POST /api/noise/jobs/:id/runs), the wipe re-fire and the dispatch route — so "never twice at
 * once" and the bookkeeping hold for all of them.
 */
export class NoiseRunner {
  readonly #deps: NoiseRunnerDeps;
  readonly #random: RandomSource;
  readonly #observer: NoiseObserver;
  #running = 0;

  constructor(deps: NoiseRunnerDeps, options: NoiseRunnerOptions = {}) {
    this.#deps = deps;
    this.#random = options.random ?? Math.random;
    this.#observer = deps.observer ?? ignoreNoise;
  }

  /** How long a job's lease lasts without a heartbeat (the engine's). */
  get leaseMs(): number {
    return this.#deps.engine.leaseMs;
  }

  /** Noise dispatches running in this process. */
  get inFlight(): number {
    return this.#running;
  }

  /** A new, unique lease owner for one dispatch of this instance. */
  newOwner(): string {
    return this.#deps.engine.newOwner();
  }

  /**
   * Creates one `pending` run row per target (all of the job's targets, or the given subset)
   * without dispatching them: for a caller that dispatches later through dispatch().
   */
  async createRuns(
    jobId: string,
    opts: { trigger: DispatchTrigger; targets?: readonly string[] },
  ): Promise<Record<string, string>> {
    const { db, clock } = this.#deps;
    const now = clock.now();
    return db.transaction().execute(async (tx) => {
      const job = await findJob(tx, jobId);
      return createRunRows(tx, {
        jobId,
        targets: pickTargets(job, opts.targets),
        trigger: opts.trigger,
        now,
      });
    });
  }

  /**
   * Creates one run row per target (all of the job's targets, or the given subset) and starts the
   * dispatch in the background; `done` resolves when it ended. A job already running gets its new
   * rows `skipped` and a `409 job_running` naming them. Used by manual runs and the wipe re-fire.
   */
  runJob(
    jobId: string,
    opts: { trigger: DispatchTrigger; targets?: readonly string[]; by: DispatchBy },
  ): Promise<DispatchHandle> {
    return this.#deps.engine.starting(() => this.#runJob(jobId, opts), 'noise dispatch');
  }

  async #runJob(
    jobId: string,
    opts: { trigger: DispatchTrigger; targets?: readonly string[]; by: DispatchBy },
  ): Promise<DispatchHandle> {
    const { db, clock } = this.#deps;
    const now = clock.now();
    const owner = this.newOwner();
    const started = await db.transaction().execute(async (tx) => {
      const job = await findJob(tx, jobId, true);
      const targets = pickTargets(job, opts.targets);
      const base = { jobId, targets, trigger: opts.trigger, now };
      if (isLeaseHeld(job, now)) {
        const run_ids = await createRunRows(tx, { ...base, status: 'skipped', error: JOB_RUNNING_REASON });
        return { kind: 'running' as const, job, run_ids };
      }
      await takeLease(tx, job, owner, now, this.leaseMs);
      return { kind: 'leased' as const, job, run_ids: await createRunRows(tx, { ...base, owner }) };
    });
    if (started.kind === 'running')
      throw await this.#jobRunning(started.job, started.run_ids, opts.trigger, opts.by);
    const request = requestFor(started.job, opts.trigger, started.run_ids);
    return {
      job_id: jobId,
      run_ids: started.run_ids,
      done: this.#execute(started.job, request, owner, opts.by),
    };
  }

  /**
   * Dispatches run rows created beforehand (the body of POST /api/noise/run). Checks that every
   * target has a pending row of this job; a job already running gets `409 job_running`, and the
   * rows of this request become `skipped` — except rows the running dispatch owns (the same body
   * sent twice), which are left to it. Resolves once the dispatch has started; await `done` for
   * its end. The rows take the request's `trigger`: they record the dispatch that ran them.
   */
  dispatch(request: DispatchRequest, by: DispatchBy): Promise<DispatchHandle> {
    return this.#deps.engine.starting(() => this.#dispatch(request, by), 'noise dispatch');
  }

  async #dispatch(request: DispatchRequest, by: DispatchBy): Promise<DispatchHandle> {
    const { db, clock } = this.#deps;
    const bad: Record<string, string> = {};
    if (request.targets.length === 0) bad.targets = 'must name at least one SIEM';
    for (const [i, t] of request.targets.entries()) {
      if (request.run_ids[t] === undefined) bad[`targets.${i}`] = `"${t}" has no entry in run_ids`;
    }
    for (const siem of Object.keys(request.run_ids)) {
      if (!request.targets.includes(siem)) bad[`run_ids.${siem}`] = 'is not one of targets';
    }
    if (Object.keys(bad).length > 0) throw invalidInput('Invalid dispatch', bad);
    const now = clock.now();
    const owner = this.newOwner();
    const runIds = Object.values(request.run_ids);
    const started = await db.transaction().execute(async (tx) => {
      // Every path into a dispatch of the job takes this row lock before it sets a run row's owner,
      // so the owners read below stay true until this transaction ends.
      const job = await findJob(tx, request.job_id, true);
      for (const [i, t] of request.targets.entries()) {
        if (!job.targets.includes(t)) bad[`targets.${i}`] = `"${t}" is not a target of job "${job.name}"`;
      }
      for (const [i, a] of request.archives.entries()) {
        if (!job.archives.some((own) => own.position === a.position && own.storage_path === a.storage_path)) {
          bad[`archives.${i}`] =
            `${JSON.stringify(a.storage_path)} at position ${a.position} is not an archive of job "${job.name}"`;
        }
      }
      const held = isLeaseHeld(job, now);
      const rows = await tx.selectFrom('noise_runs').selectAll().where('id', 'in', runIds).execute();
      const taken: string[] = [];
      const inProgress: string[] = [];
      for (const [siem, id] of Object.entries(request.run_ids)) {
        const row = rows.find((r) => r.id === id);
        if (!row || row.job_id !== job.id || row.siem !== siem) {
          bad[`run_ids.${siem}`] = `is not a run row of this job for "${siem}"`;
        } else if (held && row.owner !== null && row.owner === job.lease_owner) {
          // The dispatch in progress runs this row (a retried or doubled request): it is not a
          // new run of the job, so it is neither refused as finished nor skipped under it.
          inProgress.push(siem);
        } else if (row.status !== 'pending' || row.owner !== null) {
          taken.push(`${siem} (${row.status})`);
        }
      }
      if (Object.keys(bad).length > 0) throw invalidInput('Invalid dispatch', bad);
      if (taken.length > 0) {
        throw new AppError('conflict', `Run rows already dispatched: ${taken.join(', ')}`, {
          details: { run_ids: request.run_ids },
        });
      }
      if (held) {
        const fresh = Object.entries(request.run_ids).filter(([siem]) => !inProgress.includes(siem));
        await skipRuns(
          tx,
          fresh.map(([, id]) => id),
          JOB_RUNNING_REASON,
          now,
          request.trigger,
        );
        return { kind: 'running' as const, job, skipped: Object.fromEntries(fresh), inProgress };
      }
      await takeLease(tx, job, owner, now, this.leaseMs);
      // Running (and owned) in the same transaction as the lease: a concurrent request for the same
      // rows then sees them as this dispatch's, never as pending rows it could skip.
      await startRuns(tx, runIds, { owner, trigger: request.trigger, now });
      return { kind: 'leased' as const, job };
    });
    if (started.kind === 'running') {
      throw await this.#jobRunning(started.job, started.skipped, request.trigger, by, started.inProgress);
    }
    return {
      job_id: started.job.id,
      run_ids: request.run_ids,
      done: this.#execute(started.job, request, owner, by, {
        schedule: request.schedule,
        storedAtStart: started.job.schedule,
      }),
    };
  }

  /** Starts the dispatch of a job the scheduler claimed (lease held, rows pending). */
  runClaimed(claim: Claim): DispatchHandle {
    const request = requestFor(claim.job, 'schedule', claim.run_ids);
    return {
      job_id: claim.job.id,
      run_ids: claim.run_ids,
      done: this.#execute(claim.job, request, claim.owner, { actor: 'system' }),
    };
  }

  /** Extends the leases of the dispatches running here (the engine's heartbeat); tests call it. */
  heartbeat(): Promise<void> {
    return this.#deps.engine.heartbeat();
  }

  /** Resolves once every dispatch running here now has ended (tests, and callers that must wait). */
  settle(): Promise<void> {
    return this.#deps.engine.settle();
  }

  /** `requested`: only for POST /api/noise/run, whose body names the schedule (spec 4.1 step 5). */
  #execute(
    job: NoiseJob,
    request: DispatchRequest,
    owner: string,
    by: DispatchBy,
    requested?: RequestedSchedule,
  ): Promise<DispatchResult> {
    const { db } = this.#deps;
    const lease: RunLease = {
      key: job.id,
      owner,
      extend: (now, leaseMs) => extendLease(db, job.id, owner, now, leaseMs),
    };
    this.#running++;
    return this.#deps.engine
      .run(lease, (signal) => this.#run(job, request, owner, signal, by, requested), {
        stopped: 'the service stopped during the dispatch',
        leaseLost: 'the dispatch lost its lease (it expired and the job was taken over)',
      })
      .finally(() => {
        this.#running--;
      });
  }

  async #run(
    job: NoiseJob,
    request: DispatchRequest,
    owner: string,
    signal: AbortSignal,
    by: DispatchBy,
    requested: RequestedSchedule | undefined,
  ): Promise<DispatchResult> {
    const { db, clock, log } = this.#deps;
    const runIds = Object.values(request.run_ids);
    let error: string | undefined;
    let reported: DispatchOutcome | undefined;
    try {
      // Rows of runJob and of scheduler claims; dispatch() has already started its own.
      await markRunsRunning(db, runIds, owner, clock.now());
      reported = await this.#deps.dispatcher(request, signal);
    } catch (err) {
      error = signal.aborted ? reasonOf(signal) : `the dispatch failed: ${messageOf(err)}`;
      log.error({ err, job_id: job.id }, 'Noise dispatch failed.');
    }
    const finishedAt = clock.now();
    let next: number | null = null;
    try {
      const left = await failOpenRuns(
        db,
        runIds,
        error ?? (signal.aborted ? reasonOf(signal) : NO_FINAL_STATUS_ERROR),
        finishedAt,
      );
      if (left > 0 && error === undefined) {
        log.warn({ job_id: job.id, rows: left }, 'Noise dispatch left run rows open; marked failed.');
      }
      // next_run_at from the job's schedule as stored at the end, not the one this run started
      // with, so a PATCH during the run applies from the next run; only POST /api/noise/run
      // passes its body's schedule (spec 4.1 step 5). See releaseLease.
      const release = await releaseLease(db, job.id, owner, finishedAt, this.#random, requested);
      next = release.next_run_at;
      if (!release.released) {
        log.warn({ job_id: job.id, owner }, 'Noise dispatch ended after losing its lease.');
      }
    } catch (err) {
      log.error({ err, job_id: job.id }, 'Noise dispatch bookkeeping failed; the lease will expire.');
    }
    const runs = await getRuns(db, runIds).catch(() => [] as RunView[]);
    for (const run of runs) this.#observer.runEnded(run.status, request.trigger);
    const failed = request.targets.filter(
      (siem) => runs.find((r) => r.id === request.run_ids[siem])?.status !== 'succeeded',
    );
    const result: DispatchResult = { ok: failed.length === 0, failed, runs };
    if (reported && reported.ok !== result.ok) {
      log.warn({ job_id: job.id, reported, failed }, 'Noise dispatcher outcome disagrees with its run rows.');
    }
    await this.#deps.audit({
      actor: by.actor,
      ip: by.ip ?? null,
      action: 'noise.dispatch',
      target: job.name,
      outcome: result.ok ? 'success' : 'failure',
      details: {
        job_id: job.id,
        trigger: request.trigger,
        targets: request.targets,
        run_ids: request.run_ids,
        failed,
        next_run_at: next === null ? null : new Date(next).toISOString(),
      },
    });
    return result;
  }

  /**
   * The audit record and error of a refused dispatch. `skipped`: the rows it marked skipped;
   * `inProgress`: targets whose named row belongs to the dispatch running (left untouched).
   */
  async #jobRunning(
    job: NoiseJob,
    skipped: Record<string, string>,
    trigger: DispatchTrigger,
    by: DispatchBy,
    inProgress: string[] = [],
  ): Promise<AppError> {
    for (const _ of Object.keys(skipped)) this.#observer.runEnded('skipped', trigger);
    const also = inProgress.length > 0 ? { in_progress: inProgress } : {};
    await this.#deps.audit({
      actor: by.actor,
      ip: by.ip ?? null,
      action: 'noise.dispatch',
      target: job.name,
      outcome: 'failure',
      details: {
        job_id: job.id,
        trigger,
        targets: [...Object.keys(skipped), ...inProgress],
        run_ids: skipped,
        ...also,
        reason: 'job_running',
      },
    });
    const message =
      Object.keys(skipped).length > 0
        ? `Noise job "${job.name}" is already running; the new runs were skipped`
        : `Noise job "${job.name}" is already running these run rows; they were left to the dispatch in progress`;
    return new AppError('job_running', message, { details: { job_id: job.id, run_ids: skipped, ...also } });
  }
}

/** The dispatch body for a job's run rows (spec 4.1). */
export function requestFor(
  job: NoiseJob,
  trigger: DispatchTrigger,
  runIds: Record<string, string>,
): DispatchRequest {
  return {
    job_id: job.id,
    trigger,
    run_ids: runIds,
    archives: job.archives.map((a) => ({ position: a.position, storage_path: a.storage_path })),
    targets: Object.keys(runIds),
    schedule: job.schedule,
  };
}

function pickTargets(job: NoiseJob, wanted: readonly string[] | undefined): string[] {
  if (wanted === undefined) return [...job.targets];
  const unknown = wanted.filter((t) => !job.targets.includes(t));
  if (unknown.length > 0) {
    throw invalidInput('Invalid targets', {
      targets: `${unknown.map((t) => `"${t}"`).join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not targets of job "${job.name}"`,
    });
  }
  if (wanted.length === 0) throw invalidInput('Invalid targets', { targets: 'must name at least one SIEM' });
  return [...new Set(wanted)];
}

function reasonOf(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : 'the dispatch was cancelled';
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
