import { randomUUID } from 'node:crypto';
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** A section's log source on one destination, as stored (decisions.md §7 rows). */
export interface LogSourceRow {
  readonly exerciseId: string;
  /** The section's id; null for a sectionless exercise's one log source. */
  readonly sectionId: string | null;
  readonly siem: string;
  readonly identifier: string;
  readonly name: string;
  readonly status: 'provisioned' | 'missing' | 'failed';
  readonly logSourceId: number | null;
  readonly requiresDeploy: boolean;
  readonly error: string | null;
  readonly checkedAt: Date;
}

/** What a provisioning or a live check learnt of one log source. */
export type LogSourceUpdate = Omit<LogSourceRow, 'checkedAt'>;

/** The section key of a row: the section id, or 'legacy'. */
export const LEGACY_KEY = 'legacy';

/** The log-source rows of an exercise (on one destination when `siem` is given), sections in key order. */
export async function exerciseLogSources(db: Db, exerciseId: string, siem?: string): Promise<LogSourceRow[]> {
  let query = db.selectFrom('exercise_log_sources').selectAll().where('exercise_id', '=', exerciseId);
  if (siem !== undefined) query = query.where('siem', '=', siem);
  const rows = await query.orderBy('siem').orderBy('section_key').execute();
  return rows.map(toRow);
}

/** Every provisioned log source on one destination, all exercises (a session wipe's offenses). */
export async function siemLogSources(db: Db, siem: string): Promise<LogSourceRow[]> {
  const rows = await db
    .selectFrom('exercise_log_sources')
    .selectAll()
    .where('siem', '=', siem)
    .where('log_source_id', 'is not', null)
    .execute();
  return rows.map(toRow);
}

/**
 * A row of another exercise, or of another destination, that has this identifier (identifiers are
 * never shared: destination names differing only in case or beyond 63 characters would collide).
 */
export async function identifierOwner(
  db: Db,
  identifier: string,
  exerciseId: string,
  siem: string,
): Promise<{ exerciseId: string; siem: string } | null> {
  const row = await db
    .selectFrom('exercise_log_sources')
    .select(['exercise_id', 'siem'])
    .where('identifier', '=', identifier)
    .where((eb) => eb.or([eb('exercise_id', '!=', exerciseId), eb('siem', '!=', siem)]))
    .executeTakeFirst();
  return row ? { exerciseId: row.exercise_id, siem: row.siem } : null;
}

/** Ids of the exercises whose destinations name `siem`. */
export async function exercisesNaming(db: Db, siem: string): Promise<string[]> {
  const rows = await db
    .selectFrom('exercises')
    .select('id')
    .where(sql<boolean>`destinations @> ${JSON.stringify([siem])}::jsonb`)
    .execute();
  return rows.map((r) => r.id);
}

/** Inserts or replaces the row of (exercise, section, siem). */
export async function saveLogSource(db: Db, update: LogSourceUpdate, now: Date): Promise<void> {
  const values = {
    identifier: update.identifier,
    name: update.name,
    status: update.status,
    log_source_id: update.logSourceId,
    requires_deploy: update.requiresDeploy,
    error: update.error,
    checked_at: now,
  };
  await db
    .insertInto('exercise_log_sources')
    .values({
      id: randomUUID(),
      exercise_id: update.exerciseId,
      section_id: update.sectionId,
      section_key: update.sectionId ?? LEGACY_KEY,
      siem: update.siem,
      ...values,
    })
    .onConflict((oc) => oc.columns(['exercise_id', 'section_key', 'siem']).doUpdateSet(values))
    .execute();
}

function toRow(r: {
  exercise_id: string;
  section_id: string | null;
  siem: string;
  identifier: string;
  name: string;
  status: 'provisioned' | 'missing' | 'failed';
  log_source_id: string | number | null;
  requires_deploy: boolean;
  error: string | null;
  checked_at: Date;
}): LogSourceRow {
  return {
    exerciseId: r.exercise_id,
    sectionId: r.section_id,
    siem: r.siem,
    identifier: r.identifier,
    name: r.name,
    status: r.status,
    logSourceId: r.log_source_id === null ? null : Number(r.log_source_id),
    requiresDeploy: r.requires_deploy,
    error: r.error,
    checkedAt: r.checked_at,
  };
}
