import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { findJob, type NoiseJob, toJob } from './job-store.ts';
import { computeNextRunAt, type RandomSource } from './next-run-at.ts';
import { createRunRows, failStaleRuns } from './run-store.ts';
import { type NoiseSchedule, sameSchedule } from './schedule.ts';

/**
 * The lease is what makes "a job never runs twice at once" hold across instances: a dispatch may
 * only start after it set `lease_owner`/`lease_until` on the job row, under that row's lock. A
 * running dispatch extends the lease (heartbeat); one whose instance died stops extending it, and
 * once it expired the next claimer fails the dead dispatch's open rows and takes over.
 */

/** Error written on the open rows of a dispatch whose lease expired. */
export const LEASE_EXPIRED_ERROR =
  'the dispatch stopped without finishing: its service instance stopped or lost the database (lease expired)';

/** A due job claimed by a scheduler: lease held by `owner`, run rows created `pending`. */
export interface Claim {
  job: NoiseJob;
  owner: string;
  run_ids: Record<string, string>;
}

/**
 * Claims up to `limit` due jobs in one short transaction: enabled, next_run_at reached, lease free
 * or expired. `FOR UPDATE SKIP LOCKED` lets concurrent claimers pass over rows another instance is
 * claiming, so each due job is claimed by exactly one of them.
 */
export async function claimDueJobs(
  db: Kysely<Database>,
  opts: { now: number; leaseMs: number; limit: number; newOwner: () => string },
): Promise<Claim[]> {
  if (opts.limit <= 0) return [];
  const now = new Date(opts.now);
  return db.transaction().execute(async (tx) => {
    const rows = await tx
      .selectFrom('noise_jobs')
      .selectAll()
      .where('enabled', '=', true)
      .where('next_run_at', '<=', now)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
      .orderBy('next_run_at')
      .limit(opts.limit)
      .forUpdate()
      .skipLocked()
      .execute();
    const claims: Claim[] = [];
    for (const row of rows) {
      const job = toJob(row);
      const owner = opts.newOwner();
      await takeLease(tx, job, owner, opts.now, opts.leaseMs);
      const run_ids = await createRunRows(tx, {
        jobId: job.id,
        targets: job.targets,
        trigger: 'schedule',
        now: opts.now,
        owner,
      });
      claims.push({
        job: { ...job, lease_owner: owner, lease_until: opts.now + opts.leaseMs },
        owner,
        run_ids,
      });
    }
    return claims;
  });
}

/**
 * Sets the lease on a job locked by the caller's transaction. A previous owner whose lease expired
 * crashed or lost the database: its open run rows are failed first.
 */
export async function takeLease(
  tx: Kysely<Database>,
  job: NoiseJob,
  owner: string,
  now: number,
  leaseMs: number,
): Promise<{ staleRowsFailed: number }> {
  let staleRowsFailed = 0;
  if (job.lease_owner !== null) {
    staleRowsFailed = await failStaleRuns(tx, job.id, job.lease_owner, LEASE_EXPIRED_ERROR, now);
  }
  await tx
    .updateTable('noise_jobs')
    .set({ lease_owner: owner, lease_until: new Date(now + leaseMs) })
    .where('id', '=', job.id)
    .execute();
  return { staleRowsFailed };
}

/**
 * Frees every expired lease (jobs whose dispatch died, whether or not they are due) and fails the
 * dead dispatches' open rows. Returns what was recovered, for the log.
 */
export async function recoverExpiredLeases(
  db: Kysely<Database>,
  now: number,
): Promise<Array<{ job_id: string; owner: string; failed_runs: number }>> {
  const at = new Date(now);
  return db.transaction().execute(async (tx) => {
    const rows = await tx
      .selectFrom('noise_jobs')
      .select(['id', 'lease_owner'])
      .where('lease_owner', 'is not', null)
      .where('lease_until', '<=', at)
      .forUpdate()
      .skipLocked()
      .execute();
    const out: Array<{ job_id: string; owner: string; failed_runs: number }> = [];
    for (const row of rows) {
      const owner = row.lease_owner as string;
      const failed = await failStaleRuns(tx, row.id, owner, LEASE_EXPIRED_ERROR, now);
      await tx
        .updateTable('noise_jobs')
        .set({ lease_owner: null, lease_until: null })
        .where('id', '=', row.id)
        .where('lease_owner', '=', owner)
        .execute();
      out.push({ job_id: row.id, owner, failed_runs: failed });
    }
    return out;
  });
}

/** Extends a lease still held by `owner`; false when it was lost (expired and taken over, or job deleted). */
export async function extendLease(
  db: Kysely<Database>,
  jobId: string,
  owner: string,
  now: number,
  leaseMs: number,
): Promise<boolean> {
  const res = await db
    .updateTable('noise_jobs')
    .set({ lease_until: new Date(now + leaseMs) })
    .where('id', '=', jobId)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/**
 * What a dispatch asked next_run_at to be computed from (POST /api/noise/run, spec 4.1 step 5):
 * its body's schedule, and the job's stored schedule when the dispatch took the lease.
 */
export interface RequestedSchedule {
  schedule: NoiseSchedule;
  storedAtStart: NoiseSchedule;
}

/**
 * Ends a dispatch: writes next_run_at (null while the job is disabled) and the finish time, stamps
 * last_run_at and frees the lease — only when `owner` still holds it, so a dispatch that lost its
 * lease cannot overwrite its successor's state.
 *
 * next_run_at comes from the job's schedule read here, under the row lock that frees the lease, so
 * a PATCH made while the job ran applies from its next run (docs/noise.md) instead of being
 * overwritten by the schedule the run started with. Only a POST /api/noise/run passes `requested`:
 * its body's schedule is used (spec 4.1 step 5) unless the stored schedule changed during the run,
 * in which case that change wins for the same reason.
 */
export async function releaseLease(
  db: Kysely<Database>,
  jobId: string,
  owner: string,
  finishedAt: number,
  random: RandomSource,
  requested?: RequestedSchedule,
): Promise<{ released: boolean; next_run_at: number | null }> {
  return db.transaction().execute(async (tx) => {
    let job: NoiseJob;
    try {
      job = await findJob(tx, jobId, true);
    } catch {
      return { released: false, next_run_at: null };
    }
    if (job.lease_owner !== owner) return { released: false, next_run_at: job.next_run_at };
    const schedule =
      requested && sameSchedule(job.schedule, requested.storedAtStart) ? requested.schedule : job.schedule;
    const next = job.enabled ? computeNextRunAt(schedule, finishedAt, random) : null;
    await tx
      .updateTable('noise_jobs')
      .set({
        lease_owner: null,
        lease_until: null,
        next_run_at: next === null ? null : new Date(next),
        last_run_at: new Date(finishedAt),
      })
      .where('id', '=', jobId)
      .execute();
    return { released: true, next_run_at: next };
  });
}
