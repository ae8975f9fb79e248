import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import { AppError, isUuid, notFound } from '../errors.ts';
import type {
  ArchiveInfo,
  Artifact,
  Exercise,
  ExerciseListItem,
  Section,
  Step,
  StoredArchive,
} from './exercise-types.ts';
import type { ReleaseRule } from './release-rule.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** The exercise row, or 404 (text that is no UUID names nothing). */
export async function exerciseRow(db: Db, id: string, options: { forUpdate?: boolean } = {}) {
  if (!isUuid(id)) throw notFound('exercise', id);
  let query = db.selectFrom('exercises').selectAll().where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw notFound('exercise', id);
  return row;
}

/** Every exercise, newest change first (without children). */
export async function listExerciseRows(db: Db): Promise<ExerciseListItem[]> {
  const rows = await db.selectFrom('exercises').selectAll().orderBy('updated_at', 'desc').execute();
  return rows.map(summaryOf);
}

/** One exercise with steps, artifacts, sections and archives. */
export async function loadExercise(db: Db, id: string): Promise<Exercise> {
  const row = await exerciseRow(db, id);
  const [steps, artifacts, sections, archives] = await Promise.all([
    db
      .selectFrom('exercise_steps')
      .selectAll()
      .where('exercise_id', '=', id)
      .orderBy('position')
      .orderBy('created_at')
      .execute(),
    db
      .selectFrom('exercise_artifacts')
      .selectAll()
      .where('exercise_id', '=', id)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('exercise_sections')
      .selectAll()
      .where('exercise_id', '=', id)
      .orderBy('position')
      .execute(),
    loadArchives(db, id),
  ]);
  const archiveView = (a: StoredArchive): ArchiveInfo => ({
    format: a.format,
    filename: a.filename,
    files: a.files,
    events: a.events,
    size: a.size,
    ...(a.convertedFrom ? { converted_from: a.convertedFrom } : {}),
    uploaded_at: a.createdAt.toISOString(),
  });
  return {
    ...summaryOf(row),
    steps: steps.map((s): Step => ({ id: s.id, position: s.position, title: s.title, body: s.body })),
    artifacts: artifacts.map(
      (a): Artifact => ({
        id: a.id,
        name: a.name,
        kind: a.kind as Artifact['kind'],
        values: a.values,
        match: a.match as Artifact['match'],
        points: a.points,
        section_id: a.section_id,
        hint: a.hint,
        hint_penalty: a.hint_penalty,
      }),
    ),
    sections: sections.map(
      (s): Section => ({
        id: s.id,
        name: s.name,
        position: s.position,
        release: (s.release as ReleaseRule | null) ?? null,
        archives: archives.filter((a) => a.sectionId === s.id).map(archiveView),
      }),
    ),
    archives: archives.filter((a) => a.sectionId === null).map(archiveView),
  };
}

/** Every archive row of an exercise, by section then format. */
export async function loadArchives(db: Db, exerciseId: string): Promise<StoredArchive[]> {
  const rows = await db
    .selectFrom('exercise_archives')
    .selectAll()
    .where('exercise_id', '=', exerciseId)
    .orderBy('format')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    exerciseId: r.exercise_id,
    sectionId: r.section_id,
    format: r.format,
    filename: r.filename,
    storageKey: r.storage_key,
    archiveKind: r.archive_kind as StoredArchive['archiveKind'],
    files: r.files,
    events: r.events,
    size: Number(r.size),
    latestEventMs: r.latest_event_ms === null ? null : Number(r.latest_event_ms),
    convertedFrom: r.converted_from,
    createdAt: r.created_at,
  }));
}

/**
 * Refuses a change of `row` with 412 when `ifMatch` names another version, and with 409 while the
 * exercise is active unless `allowActive`. bumpVersion runs it under the row lock; a caller may run
 * it earlier too, before doing work it cannot undo.
 */
export function assertChangeable(
  row: { title: string; version: number; state: 'draft' | 'active' },
  options: { ifMatch?: number | undefined; allowActive?: boolean },
): void {
  if (options.ifMatch !== undefined && options.ifMatch !== row.version) {
    throw new AppError(
      'precondition_failed',
      `exercise "${row.title}" changed since version ${options.ifMatch} (now ${row.version}): reload it and apply the change again`,
      { details: { version: row.version } },
    );
  }
  if (row.state === 'active' && !options.allowActive) {
    throw new AppError('conflict', `exercise "${row.title}" is active: unpublish it before changing it`, {
      details: { state: 'active' },
    });
  }
}

/**
 * Counts one change of an exercise: `version + 1` (and updated_at), refused with 412 when
 * `ifMatch` names another version, and with 409 while the exercise is active unless `allowActive`.
 * Runs inside the transaction of the change so the version and the change land together.
 */
export async function bumpVersion(
  trx: Transaction<Database>,
  id: string,
  options: { ifMatch?: number | undefined; allowActive?: boolean; now: Date },
): Promise<number> {
  const row = await exerciseRow(trx, id, { forUpdate: true });
  assertChangeable(row, options);
  const next = row.version + 1;
  await trx
    .updateTable('exercises')
    .set({ version: next, updated_at: options.now })
    .where('id', '=', id)
    .execute();
  return next;
}

function summaryOf(row: {
  id: string;
  title: string;
  description: string;
  state: 'draft' | 'active';
  destinations: string[];
  convert_to_leef: boolean;
  deadlock_override: boolean;
  tags: string[];
  version: number;
  updated_at: Date;
}): ExerciseListItem {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    state: row.state,
    destinations: row.destinations,
    convert_to_leef: row.convert_to_leef,
    deadlock_override: row.deadlock_override,
    tags: row.tags,
    version: row.version,
    updated_at: row.updated_at.toISOString(),
  };
}
