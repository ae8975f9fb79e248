import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Static } from 'typebox';
import { artifactProblems } from '../attempts/artifact-match.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import { AppError, invalidInput, isUuid, notFound } from '../errors.ts';
import type {
  ArtifactCreateBody,
  ArtifactPatchBody,
  ExerciseCreateBody,
  ExercisePatchBody,
  ReleaseRuleInput,
  SectionCreateBody,
  SectionPatchBody,
  StepCreateBody,
  StepPatchBody,
} from './exercise.schemas.ts';
import { bumpVersion, exerciseRow, loadExercise } from './exercise-store.ts';
import type { Exercise } from './exercise-types.ts';
import { type ReleaseRule, releaseRuleProblem } from './release-rule.ts';

/** What authoring uses. */
export interface ExerciseServiceDeps {
  readonly db: Kysely<Database>;
  readonly clock: Clock;
}

type Version = { ifMatch?: number | undefined };

/** Creates a draft (only a title is required). */
export async function createExercise(
  deps: ExerciseServiceDeps,
  input: Static<typeof ExerciseCreateBody>,
  createdBy: string | null,
): Promise<Exercise> {
  const destinations = unique(input.destinations ?? []);
  await requireDestinations(deps.db, destinations);
  const id = randomUUID();
  const now = new Date(deps.clock.now());
  await deps.db
    .insertInto('exercises')
    .values({
      id,
      title: input.title,
      description: input.description ?? '',
      destinations: JSON.stringify(destinations),
      convert_to_leef: input.convert_to_leef ?? false,
      deadlock_override: input.deadlock_override ?? false,
      tags: JSON.stringify(unique(input.tags ?? [])),
      created_by: createdBy,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return loadExercise(deps.db, id);
}

/** Changes an exercise's own fields (a draft only; 412 on a stale If-Match). */
export async function patchExercise(
  deps: ExerciseServiceDeps,
  id: string,
  input: Static<typeof ExercisePatchBody>,
  version: Version,
): Promise<Exercise> {
  if (input.destinations) await requireDestinations(deps.db, input.destinations);
  await change(deps, id, version, async (trx) => {
    const set: Record<string, unknown> = {};
    if (input.title !== undefined) set.title = input.title;
    if (input.description !== undefined) set.description = input.description;
    if (input.destinations !== undefined) set.destinations = JSON.stringify(unique(input.destinations));
    if (input.convert_to_leef !== undefined) set.convert_to_leef = input.convert_to_leef;
    if (input.deadlock_override !== undefined) set.deadlock_override = input.deadlock_override;
    if (input.tags !== undefined) set.tags = JSON.stringify(unique(input.tags));
    if (Object.keys(set).length > 0)
      await trx.updateTable('exercises').set(set).where('id', '=', id).execute();
  });
  return loadExercise(deps.db, id);
}

/**
 * Deletes an exercise with its attempts and the keys of its stored archives (returned so the
 * caller removes the objects once the rows are gone); 409 while an attempt runs.
 */
export async function deleteExercise(
  deps: ExerciseServiceDeps,
  id: string,
): Promise<{ title: string; storageKeys: string[] }> {
  return deps.db.transaction().execute(async (trx) => {
    const row = await exerciseRow(trx, id, { forUpdate: true });
    const running = await trx
      .selectFrom('attempts')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('exercise_id', '=', id)
      .where('state', '=', 'running')
      .executeTakeFirstOrThrow();
    if (Number(running.n) > 0) {
      throw new AppError(
        'conflict',
        `exercise "${row.title}" has ${running.n} running attempt(s): complete them first`,
        {
          details: { running_attempts: Number(running.n) },
        },
      );
    }
    const keys = await trx
      .selectFrom('exercise_archives')
      .select('storage_key')
      .where('exercise_id', '=', id)
      .execute();
    await trx.deleteFrom('exercises').where('id', '=', id).execute();
    return { title: row.title, storageKeys: keys.map((k) => k.storage_key) };
  });
}

// ---- steps

/** Adds a step (position: last unless given; later steps move down). */
export async function addStep(
  deps: ExerciseServiceDeps,
  exerciseId: string,
  input: Static<typeof StepCreateBody>,
  version: Version,
): Promise<{ exercise: Exercise; id: string }> {
  const id = randomUUID();
  await change(deps, exerciseId, version, async (trx) => {
    const position = input.position ?? (await nextPosition(trx, 'exercise_steps', exerciseId));
    if (input.position !== undefined) {
      await trx
        .updateTable('exercise_steps')
        .set((eb) => ({ position: eb('position', '+', 1) }))
        .where('exercise_id', '=', exerciseId)
        .where('position', '>=', position)
        .execute();
    }
    await trx
      .insertInto('exercise_steps')
      .values({ id, exercise_id: exerciseId, position, title: input.title, body: input.body ?? '' })
      .execute();
  });
  return { exercise: await loadExercise(deps.db, exerciseId), id };
}

/** Changes a step. */
export async function patchStep(
  deps: ExerciseServiceDeps,
  exerciseId: string,
  stepId: string,
  input: Static<typeof StepPatchBody>,
  version: Version,
): Promise<Exercise> {
  await change(deps, exerciseId, version, async (trx) => {
    await childRow(trx, 'exercise_steps', exerciseId, stepId, 'step');
    const set: Record<string, unknown> = {};
    if (input.title !== undefined) set.title = input.title;
    if (input.body !== undefined) set.body = input.body;
    if (input.position !== undefined) set.position = input.position;
    if (Object.keys(set).length > 0)
      await trx.updateTable('exercise_steps').set(set).where('id', '=', stepId).execute();
  });
  return loadExercise(deps.db, exerciseId);
}

// ---- sections

/** Adds a section; its position must be free (409 naming it) and its gates artifacts of this exercise. */
export async function addSection(
  deps: ExerciseServiceDeps,
  exerciseId: string,
  input: Static<typeof SectionCreateBody>,
  version: Version,
): Promise<{ exercise: Exercise; id: string }> {
  const id = randomUUID();
  await change(deps, exerciseId, version, async (trx) => {
    const position = input.position ?? (await nextPosition(trx, 'exercise_sections', exerciseId));
    await requireFreePosition(trx, exerciseId, position, null);
    const release = await checkRelease(trx, exerciseId, input.release ?? null);
    await trx
      .insertInto('exercise_sections')
      .values({ id, exercise_id: exerciseId, name: input.name, position, release: jsonOrNull(release) })
      .execute();
  });
  return { exercise: await loadExercise(deps.db, exerciseId), id };
}

/** Changes a section. */
export async function patchSection(
  deps: ExerciseServiceDeps,
  exerciseId: string,
  sectionId: string,
  input: Static<typeof SectionPatchBody>,
  version: Version,
): Promise<Exercise> {
  await change(deps, exerciseId, version, async (trx) => {
    await childRow(trx, 'exercise_sections', exerciseId, sectionId, 'section');
    const set: Record<string, unknown> = {};
    if (input.name !== undefined) set.name = input.name;
    if (input.position !== undefined) {
      await requireFreePosition(trx, exerciseId, input.position, sectionId);
      set.position = input.position;
    }
    if (input.release !== undefined)
      set.release = jsonOrNull(await checkRelease(trx, exerciseId, input.release));
    if (Object.keys(set).length > 0)
      await trx.updateTable('exercise_sections').set(set).where('id', '=', sectionId).execute();
  });
  return loadExercise(deps.db, exerciseId);
}

// ---- artifacts

/** Adds an artifact (its values checked: regex answers must be valid and RE2-safe). */
export async function addArtifact(
  deps: ExerciseServiceDeps,
  exerciseId: string,
  input: Static<typeof ArtifactCreateBody>,
  version: Version,
): Promise<{ exercise: Exercise; id: string }> {
  const id = randomUUID();
  const artifact = {
    id,
    name: input.name,
    kind: input.kind,
    values: input.values,
    match: input.match ?? 'exact',
    points: input.points ?? 10,
  };
  requireValidArtifact(artifact);
  await change(deps, exerciseId, version, async (trx) => {
    const sectionId = input.section_id ?? null;
    if (sectionId !== null) await childRow(trx, 'exercise_sections', exerciseId, sectionId, 'section');
    await trx
      .insertInto('exercise_artifacts')
      .values({
        id,
        exercise_id: exerciseId,
        name: artifact.name,
        kind: artifact.kind,
        values: JSON.stringify(artifact.values),
        match: artifact.match,
        points: artifact.points,
        section_id: sectionId,
        hint: input.hint ?? null,
        hint_penalty: input.hint_penalty ?? null,
      })
      .execute();
  });
  return { exercise: await loadExercise(deps.db, exerciseId), id };
}

/** Changes an artifact. */
export async function patchArtifact(
  deps: ExerciseServiceDeps,
  exerciseId: string,
  artifactId: string,
  input: Static<typeof ArtifactPatchBody>,
  version: Version,
): Promise<Exercise> {
  await change(deps, exerciseId, version, async (trx) => {
    const row = await trx
      .selectFrom('exercise_artifacts')
      .selectAll()
      .where('id', '=', isUuid(artifactId) ? artifactId : '00000000-0000-0000-0000-000000000000')
      .where('exercise_id', '=', exerciseId)
      .executeTakeFirst();
    if (!row) throw notFound('artifact', artifactId);
    const merged = {
      id: row.id,
      name: input.name ?? row.name,
      kind: (input.kind ?? row.kind) as Static<typeof ArtifactCreateBody>['kind'],
      values: input.values ?? row.values,
      match: (input.match ?? row.match) as NonNullable<Static<typeof ArtifactCreateBody>['match']>,
      points: input.points ?? row.points,
    };
    requireValidArtifact(merged);
    if (input.section_id) await childRow(trx, 'exercise_sections', exerciseId, input.section_id, 'section');
    const set: Record<string, unknown> = {
      name: merged.name,
      kind: merged.kind,
      values: JSON.stringify(merged.values),
      match: merged.match,
      points: merged.points,
    };
    if (input.section_id !== undefined) set.section_id = input.section_id;
    if (input.hint !== undefined) set.hint = input.hint;
    if (input.hint_penalty !== undefined) set.hint_penalty = input.hint_penalty;
    await trx.updateTable('exercise_artifacts').set(set).where('id', '=', artifactId).execute();
  });
  return loadExercise(deps.db, exerciseId);
}

/**
 * Deletes a step, section or artifact. An artifact a section's gate names is refused (409 naming
 * the sections); a section's archives go with it (their keys returned for the caller to remove).
 */
export async function deleteChild(
  deps: ExerciseServiceDeps,
  exerciseId: string,
  child: 'steps' | 'sections' | 'artifacts',
  childId: string,
  version: Version,
): Promise<{ exercise: Exercise; storageKeys: string[] }> {
  let storageKeys: string[] = [];
  await change(deps, exerciseId, version, async (trx) => {
    if (child === 'steps') {
      await childRow(trx, 'exercise_steps', exerciseId, childId, 'step');
      await trx.deleteFrom('exercise_steps').where('id', '=', childId).execute();
    } else if (child === 'sections') {
      await childRow(trx, 'exercise_sections', exerciseId, childId, 'section');
      await refuseGatedArtifactsOf(trx, exerciseId, childId);
      const keys = await trx
        .selectFrom('exercise_archives')
        .select('storage_key')
        .where('section_id', '=', childId)
        .execute();
      storageKeys = keys.map((k) => k.storage_key);
      await trx.deleteFrom('exercise_sections').where('id', '=', childId).execute();
    } else {
      await childRow(trx, 'exercise_artifacts', exerciseId, childId, 'artifact');
      const gating = (
        await trx
          .selectFrom('exercise_sections')
          .select(['name', 'release'])
          .where('exercise_id', '=', exerciseId)
          .execute()
      ).filter((s) => ((s.release as ReleaseRule | null)?.artifact_ids ?? []).includes(childId));
      if (gating.length > 0) {
        throw new AppError(
          'conflict',
          `the artifact is a release gate of section(s) ${gating.map((s) => `"${s.name}"`).join(', ')}: remove it from their gates first`,
          { details: { sections: gating.map((s) => s.name) } },
        );
      }
      await trx.deleteFrom('exercise_artifacts').where('id', '=', childId).execute();
    }
  });
  return { exercise: await loadExercise(deps.db, exerciseId), storageKeys };
}

/**
 * 409 when a release gate of another section names an artifact of section `sectionId`: deleting the
 * section would leave that artifact with no section, findable from the start, and open the gate early.
 */
async function refuseGatedArtifactsOf(
  trx: Transaction<Database>,
  exerciseId: string,
  sectionId: string,
): Promise<void> {
  const own = new Set(
    (
      await trx
        .selectFrom('exercise_artifacts')
        .select('id')
        .where('exercise_id', '=', exerciseId)
        .where('section_id', '=', sectionId)
        .execute()
    ).map((a) => a.id),
  );
  if (own.size === 0) return;
  const sections = await trx
    .selectFrom('exercise_sections')
    .select(['id', 'name', 'release'])
    .where('exercise_id', '=', exerciseId)
    .orderBy('position')
    .execute();
  const names: string[] = [];
  const artifacts = new Set<string>();
  for (const section of sections) {
    if (section.id === sectionId) continue;
    const gated = ((section.release as ReleaseRule | null)?.artifact_ids ?? []).filter((id) => own.has(id));
    if (gated.length === 0) continue;
    names.push(section.name);
    for (const id of gated) artifacts.add(id);
  }
  if (names.length > 0) {
    throw new AppError(
      'conflict',
      `artifacts of the section are release gates of section(s) ${names.map((n) => `"${n}"`).join(', ')}: remove them from their gates first`,
      { details: { sections: names, artifacts: [...artifacts] } },
    );
  }
}

/** Parses an `If-Match` header: a version number, bare or quoted (`"7"`, `W/"7"`); 400 otherwise. */
export function parseIfMatch(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '' || header.trim() === '*') return undefined;
  const m = /^\s*(?:(?:W\/)?"(\d{1,9})"|(\d{1,9}))\s*$/.exec(header);
  if (!m)
    throw invalidInput('Invalid If-Match header', { 'if-match': 'must be the exercise version, e.g. 7' });
  return Number(m[1] ?? m[2]);
}

// Runs one change of an exercise in a transaction that also bumps its version.
async function change(
  deps: ExerciseServiceDeps,
  id: string,
  version: Version,
  apply: (trx: Transaction<Database>) => Promise<void>,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    await bumpVersion(trx, id, { ifMatch: version.ifMatch, now: new Date(deps.clock.now()) });
    await apply(trx);
  });
}

async function childRow(
  trx: Transaction<Database>,
  table: 'exercise_steps' | 'exercise_sections' | 'exercise_artifacts',
  exerciseId: string,
  childId: string,
  what: string,
): Promise<void> {
  if (!isUuid(childId)) throw notFound(what, childId);
  const row = await trx
    .selectFrom(table)
    .select('id')
    .where('id', '=', childId)
    .where('exercise_id', '=', exerciseId)
    .executeTakeFirst();
  if (!row) throw notFound(what, childId);
}

async function nextPosition(
  trx: Transaction<Database>,
  table: 'exercise_steps' | 'exercise_sections',
  exerciseId: string,
): Promise<number> {
  const row = await trx
    .selectFrom(table)
    .select((eb) => eb.fn.max('position').as('max'))
    .where('exercise_id', '=', exerciseId)
    .executeTakeFirst();
  return Number(row?.max ?? 0) + 1;
}

async function requireFreePosition(
  trx: Transaction<Database>,
  exerciseId: string,
  position: number,
  except: string | null,
): Promise<void> {
  const clash = await trx
    .selectFrom('exercise_sections')
    .select(['id', 'name'])
    .where('exercise_id', '=', exerciseId)
    .where('position', '=', position)
    .executeTakeFirst();
  if (clash && clash.id !== except) {
    throw new AppError('conflict', `section "${clash.name}" already has position ${position}`, {
      details: { position, section: clash.id },
    });
  }
}

// A release rule must be well formed and gate only on artifacts of this exercise.
async function checkRelease(
  trx: Transaction<Database>,
  exerciseId: string,
  release: Static<typeof ReleaseRuleInput> | null,
): Promise<ReleaseRule | null> {
  if (release === null) return null;
  const rule: ReleaseRule = {
    condition: release.condition,
    delay_minutes: release.delay_minutes ?? 0,
    artifact_ids: release.artifact_ids ?? [],
    gate_mode: release.gate_mode ?? 'all',
  };
  const problem = releaseRuleProblem(rule);
  if (problem) throw invalidInput('Invalid release', { release: problem });
  if (rule.artifact_ids.length > 0) {
    const ids = rule.artifact_ids.filter(isUuid);
    const own = ids.length
      ? await trx
          .selectFrom('exercise_artifacts')
          .select('id')
          .where('exercise_id', '=', exerciseId)
          .where('id', 'in', ids)
          .execute()
      : [];
    const ownIds = new Set(own.map((a) => a.id));
    const foreign = rule.artifact_ids.filter((a) => !ownIds.has(a));
    if (foreign.length > 0) {
      throw new AppError(
        'invalid_input',
        `Invalid release: artifact_ids ${foreign.map((a) => `"${a}"`).join(', ')} are not artifacts of this exercise`,
        {
          details: {
            fields: { 'release.artifact_ids': 'must name artifacts of this exercise' },
            artifacts: foreign,
          },
        },
      );
    }
  }
  return rule;
}

function requireValidArtifact(artifact: Parameters<typeof artifactProblems>[0]): void {
  const problems = artifactProblems(artifact);
  if (problems.length > 0) {
    throw new AppError('invalid_input', `Invalid artifact "${artifact.name}": ${problems.join('; ')}`, {
      details: { artifact: artifact.name, problems },
    });
  }
}

async function requireDestinations(db: Kysely<Database>, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  const found = await db
    .selectFrom('destinations')
    .select('name')
    .where('name', 'in', [...names])
    .execute();
  const known = new Set(found.map((d) => d.name));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length > 0) {
    throw new AppError(
      'invalid_input',
      `Unknown SIEM destination(s): ${unknown.map((n) => `"${n}"`).join(', ')}`,
      {
        details: { fields: { destinations: 'must name existing SIEM destinations' }, unknown },
      },
    );
  }
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function jsonOrNull(value: unknown): string | null {
  return value === null ? null : JSON.stringify(value);
}
