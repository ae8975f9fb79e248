import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import { AppError, invalidInput } from '../errors.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import type { SiemRegistry } from '../siems/registry.ts';
import type { ObjectStorage } from '../storage/object-storage.ts';
import { ensureJobIndexes } from './ensure-job-indexes.ts';
import {
  checkJobFields,
  checkJobReferences,
  type JobFields,
  type JobInput,
  type JobTarget,
} from './job-input.ts';
import { findJob, isLeaseHeld, listJobRows, type NoiseArchive, type NoiseJob } from './job-store.ts';
import { computeNextRunAt, type RandomSource } from './next-run-at.ts';
import { type NoiseSchedule, sameSchedule } from './schedule.ts';

/** A job as the API shows it. */
export interface JobView {
  id: string;
  name: string;
  enabled: boolean;
  targets: string[];
  schedule: NoiseSchedule;
  propagate_on_wipe: boolean;
  archives: NoiseArchive[];
  /** Null while disabled. */
  next_run_at: string | null;
  last_run_at: string | null;
  /** True while a dispatch holds the job's lease. */
  running: boolean;
  created_at: string;
  updated_at: string;
}

/** A saved job plus what the author must know (indexes not created, see ensureJobIndexes). */
export interface SavedJob extends JobView {
  warnings: string[];
}

/** What saving a job needs. */
export interface JobServiceDeps {
  db: Kysely<Database>;
  clock: Clock;
  storage: ObjectStorage;
  secretBox: SecretBox;
  siems: SiemRegistry;
  random?: RandomSource;
}

/** Every job, by name. */
export async function listJobs(db: Kysely<Database>, now: number): Promise<JobView[]> {
  return (await listJobRows(db)).map((j) => toJobView(j, now));
}

/** One job; 404 when unknown. */
export async function getJob(db: Kysely<Database>, id: string, now: number): Promise<JobView> {
  return toJobView(await findJob(db, id), now);
}

/** Creates a job; its first run is one schedule step from now. */
export async function createJob(deps: JobServiceDeps, input: JobInput): Promise<SavedJob> {
  const now = deps.clock.now();
  const fields = await validate(deps, input, now);
  const id = randomUUID();
  const next = fields.enabled ? computeNextRunAt(fields.schedule, now, deps.random) : null;
  const job = await saving(fields.name, () =>
    deps.db.transaction().execute(async (tx) => {
      await checkTargets(deps, tx, fields);
      await refuseTakenName(tx, fields.name, id);
      const row = await tx
        .insertInto('noise_jobs')
        .values({
          id,
          ...serialize(fields),
          next_run_at: next === null ? null : new Date(next),
          created_at: new Date(now),
          updated_at: new Date(now),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return row;
    }),
  );
  const warnings = await ensureJobIndexes(deps, fields);
  return { ...toJobView(await findJob(deps.db, job.id), now), warnings };
}

/**
 * Applies a partial update: absent fields keep their value. A new schedule, or enabling the job,
 * schedules its next run one step from now; disabling clears next_run_at. Indexes are ensured again
 * when archives or targets change.
 */
export async function updateJob(deps: JobServiceDeps, id: string, patch: JobInput): Promise<SavedJob> {
  const now = deps.clock.now();
  const current = await findJob(deps.db, id);
  const merged: JobInput = {
    name: patch.name ?? current.name,
    enabled: patch.enabled ?? current.enabled,
    targets: patch.targets ?? current.targets,
    schedule: patch.schedule ?? (current.schedule as unknown as Record<string, unknown>),
    propagate_on_wipe: patch.propagate_on_wipe ?? current.propagate_on_wipe,
    archives: patch.archives ?? current.archives,
  };
  const fields = await validate(deps, merged, now);
  await saving(fields.name, () =>
    deps.db.transaction().execute(async (tx) => {
      const locked = await findJob(tx, id, true);
      await checkTargets(deps, tx, fields);
      if (fields.name !== locked.name) await refuseTakenName(tx, fields.name, id);
      const scheduleChanged = !sameSchedule(fields.schedule, locked.schedule);
      let next = locked.next_run_at;
      if (!fields.enabled) next = null;
      else if (scheduleChanged || !locked.enabled || next === null) {
        next = computeNextRunAt(fields.schedule, now, deps.random);
      }
      await tx
        .updateTable('noise_jobs')
        .set({
          ...serialize(fields),
          next_run_at: next === null ? null : new Date(next),
          updated_at: new Date(now),
        })
        .where('id', '=', id)
        .execute();
    }),
  );
  const warnings =
    patch.archives !== undefined || patch.targets !== undefined ? await ensureJobIndexes(deps, fields) : [];
  return { ...toJobView(await findJob(deps.db, id), now), warnings };
}

/** Deletes a job and its run rows; refused with 409 job_running while a dispatch holds its lease. */
export async function deleteJob(db: Kysely<Database>, id: string, now: number): Promise<JobView> {
  return db.transaction().execute(async (tx) => {
    const job = await findJob(tx, id, true);
    if (isLeaseHeld(job, now)) {
      throw new AppError('job_running', `Noise job "${job.name}" is running; delete it once the run ended`, {
        details: { job_id: id },
      });
    }
    await tx.deleteFrom('noise_jobs').where('id', '=', id).execute();
    return toJobView(job, now);
  });
}

/** A job as the API shows it. */
export function toJobView(job: NoiseJob, now: number): JobView {
  return {
    id: job.id,
    name: job.name,
    enabled: job.enabled,
    targets: job.targets,
    schedule: job.schedule,
    propagate_on_wipe: job.propagate_on_wipe,
    archives: job.archives,
    next_run_at: iso(job.next_run_at),
    last_run_at: iso(job.last_run_at),
    running: isLeaseHeld(job, now),
    created_at: new Date(job.created_at).toISOString(),
    updated_at: new Date(job.updated_at).toISOString(),
  };
}

/** Field checks, then the archives' presence in storage (outside any transaction: it is I/O). */
async function validate(deps: JobServiceDeps, input: JobInput, now: number): Promise<JobFields> {
  const checked = checkJobFields(input, now);
  if (checked.problems) throw invalidInput('Invalid noise job', checked.problems);
  const fields = checked.fields;
  const paths = [...new Set(fields.archives.map((a) => a.storage_path))];
  const found = await Promise.all(paths.map((p) => deps.storage.stat('noise-archives', p)));
  const missing = new Set(paths.filter((_, i) => found[i] === undefined));
  const targets = await jobTargets(deps, deps.db, fields.targets, false);
  const problems = checkJobReferences(fields, targets, missing);
  if (Object.keys(problems).length > 0) throw invalidInput('Invalid noise job', problems);
  return { ...fields, archives: [...fields.archives].sort((a, b) => a.position - b.position) };
}

/**
 * Re-checks the targets inside the saving transaction with FOR SHARE: a destination deleted
 * concurrently either makes this save fail, or waits for it and then sees the job (409).
 */
async function checkTargets(deps: JobServiceDeps, tx: Kysely<Database>, fields: JobFields): Promise<void> {
  const targets = await jobTargets(deps, tx, fields.targets, true);
  const problems = checkJobReferences(fields, targets, new Set());
  if (Object.keys(problems).length > 0) throw invalidInput('Invalid noise job', problems);
}

/** The targets' kinds and default indexes; a target of a kind this version does not know is left out. */
async function jobTargets(
  deps: Pick<JobServiceDeps, 'siems'>,
  db: Kysely<Database>,
  names: readonly string[],
  lock: boolean,
): Promise<Map<string, JobTarget>> {
  if (names.length === 0) return new Map();
  let query = db
    .selectFrom('destinations')
    .select(['name', 'driver', 'index_name'])
    .where('name', 'in', names);
  if (lock) query = query.forShare();
  const rows = await query.execute();
  const out = new Map<string, JobTarget>();
  for (const r of rows) {
    const kind = deps.siems.find(r.driver);
    if (kind) out.set(r.name, { kind, index: r.index_name });
  }
  return out;
}

async function refuseTakenName(tx: Kysely<Database>, name: string, id: string): Promise<void> {
  const taken = await tx
    .selectFrom('noise_jobs')
    .select('id')
    .where('name', '=', name)
    .where('id', '!=', id)
    .executeTakeFirst();
  if (taken) {
    throw new AppError('conflict', `A noise job named "${name}" already exists`, { details: { name } });
  }
}

/** Runs a save; two saves racing for one name end in a 409, not a unique-violation 500. */
async function saving<T>(name: string, save: () => Promise<T>): Promise<T> {
  try {
    return await save();
  } catch (err) {
    if ((err as { code?: unknown }).code === '23505') {
      throw new AppError('conflict', `A noise job named "${name}" already exists`, { details: { name } });
    }
    throw err;
  }
}

function serialize(fields: JobFields) {
  return {
    name: fields.name,
    enabled: fields.enabled,
    targets: JSON.stringify(fields.targets),
    schedule: JSON.stringify(fields.schedule),
    propagate_on_wipe: fields.propagate_on_wipe,
    archives: JSON.stringify(fields.archives),
  };
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
