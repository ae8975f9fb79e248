import { type Kysely, sql } from 'kysely';
import type { Database, NoiseJobRow } from '../db/schema.ts';
import { isUuid, notFound } from '../errors.ts';
import type { NoiseSchedule } from './schedule.ts';

/** How an archive's events choose their index (decisions.md §4). */
export const INDEX_MODES = ['default', 'existing', 'new'] as const;
export type IndexMode = (typeof INDEX_MODES)[number];

/** One archive of a job. `index` is null exactly when `index_mode` is `default`. */
export interface NoiseArchive {
  position: number;
  storage_path: string;
  index_mode: IndexMode;
  index: string | null;
}

/** A noise job as stored; times in epoch ms. */
export interface NoiseJob {
  id: string;
  name: string;
  enabled: boolean;
  targets: string[];
  schedule: NoiseSchedule;
  propagate_on_wipe: boolean;
  archives: NoiseArchive[];
  next_run_at: number | null;
  last_run_at: number | null;
  lease_owner: string | null;
  lease_until: number | null;
  created_at: number;
  updated_at: number;
}

/** A job's row converted to the domain shape. */
export function toJob(row: NoiseJobRow): NoiseJob {
  return {
    id: row.id,
    name: row.name,
    enabled: row.enabled,
    targets: row.targets,
    schedule: row.schedule as unknown as NoiseSchedule,
    propagate_on_wipe: row.propagate_on_wipe,
    archives: row.archives as unknown as NoiseArchive[],
    next_run_at: row.next_run_at?.getTime() ?? null,
    last_run_at: row.last_run_at?.getTime() ?? null,
    lease_owner: row.lease_owner,
    lease_until: row.lease_until?.getTime() ?? null,
    created_at: row.created_at.getTime(),
    updated_at: row.updated_at.getTime(),
  };
}

/** A job by id; 404 when there is none. With `lock`, the row stays locked until the transaction ends. */
export async function findJob(db: Kysely<Database>, id: string, lock = false): Promise<NoiseJob> {
  // Any other text names no job (decisions.md §3: 404), and PostgreSQL would refuse it as a uuid.
  if (!isUuid(id)) throw notFound('noise_job', id);
  let query = db.selectFrom('noise_jobs').selectAll().where('id', '=', id);
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw notFound('noise_job', id);
  return toJob(row);
}

/** Every job, by name. */
export async function listJobRows(db: Kysely<Database>): Promise<NoiseJob[]> {
  const rows = await db.selectFrom('noise_jobs').selectAll().orderBy('name').execute();
  return rows.map(toJob);
}

/** Jobs that ship to `siem` (a destination that must not be deleted while they exist). */
export async function jobsTargeting(
  db: Kysely<Database>,
  siem: string,
): Promise<Array<{ id: string; name: string }>> {
  return db
    .selectFrom('noise_jobs')
    .select(['id', 'name'])
    .where(sql<boolean>`targets @> ${JSON.stringify([siem])}::jsonb`)
    .orderBy('name')
    .execute();
}

/** Jobs that use the archive at `storagePath` in the noise-archives bucket. */
export async function jobsUsingArchive(
  db: Kysely<Database>,
  storagePath: string,
): Promise<Array<{ id: string; name: string }>> {
  return db
    .selectFrom('noise_jobs')
    .select(['id', 'name'])
    .where(sql<boolean>`archives @> ${JSON.stringify([{ storage_path: storagePath }])}::jsonb`)
    .orderBy('name')
    .execute();
}

/** True while a dispatch holds the job's lease. */
export function isLeaseHeld(job: Pick<NoiseJob, 'lease_until'>, now: number): boolean {
  return job.lease_until !== null && job.lease_until > now;
}
