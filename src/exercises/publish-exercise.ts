import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import { loadDestination } from '../destinations/destination-service.ts';
import type { Destination, PayloadFormat } from '../destinations/destination-types.ts';
import { isAppError } from '../errors.ts';
import type { ArchiveLimits } from '../pipeline/archive/archive-limits.ts';
import { convertArchive } from '../pipeline/convert/convert-archive.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import type { SiemRegistry } from '../siems/registry.ts';
import type { ObjectStorage } from '../storage/object-storage.ts';
import { checkDeadlocks } from './deadlock-check.ts';
import { analyzeArchive, EXERCISE_BUCKET, removeObjects, storeArchive } from './exercise-archives.ts';
import { bumpVersion, exerciseRow, loadArchives, loadExercise } from './exercise-store.ts';
import type { Exercise, StoredArchive } from './exercise-types.ts';

/** Why an exercise cannot be published (decisions.md §6); ids in `section` and `artifact`. */
export type Problem = {
  code: string;
  message: string;
  /** The SIEM destination's name. */
  siem?: string;
  /** A section id (absent for a sectionless exercise's legacy archive). */
  section?: string;
  format?: PayloadFormat;
  artifact?: string;
  [extra: string]: unknown;
};

/** Something the author should know that does not block publishing. */
export type Warning = {
  code: string;
  message: string;
  siem?: string;
  section?: string;
  [extra: string]: unknown;
};

/**
 * The answer of publish: every problem at once, never only the first. An active exercise whose
 * checks fail again stays active (`ok: false, state: 'active'`): publish never takes an exercise
 * away from analysts, only unpublish does.
 */
export type PublishOutcome =
  | { ok: true; state: 'active'; warnings: Warning[] }
  | { ok: false; state: 'draft' | 'active'; problems: Problem[]; warnings: Warning[] };

/**
 * A check of one outside system a publish needs (the SIEM Q log-source provisioning): it gets the
 * exercise as it will be published, converted archives included, and its enabled destinations,
 * and answers with problems that block publishing and warnings that do not. A check that throws
 * is reported as a `publish_check_failed` problem naming it.
 */
export interface PublishCheck {
  readonly name: string;
  check(
    exercise: Exercise,
    destinations: readonly Destination[],
  ): Promise<{ problems: Problem[]; warnings: Warning[] }>;
}

/** What publishing uses. */
export interface PublishDeps {
  readonly db: Kysely<Database>;
  readonly storage: ObjectStorage;
  readonly clock: Clock;
  /** The SIEM kinds: a destination's payload formats. */
  readonly siems: SiemRegistry;
  /** Opens destinations' secrets, so publish checks get destinations their clients can use. */
  readonly secretBox: SecretBox;
  readonly limits: Partial<ArchiveLimits>;
  readonly publishChecks: readonly PublishCheck[];
}

/** Who publishes (for the caller's audit record). */
export type PublishActor = { readonly id: string | null } | null;

// One archive slot: a section, or (sectionless) the exercise's legacy archives.
interface Unit {
  readonly sectionId: string | null;
  /** For messages: `section "Recon"` or `the exercise archive`. */
  readonly label: string;
}

const FORMAT_NAMES: Record<PayloadFormat, string> = { leef: 'LEEF', ecs: 'ECS' };
const other = (format: PayloadFormat): PayloadFormat => (format === 'leef' ? 'ecs' : 'leef');

/**
 * Publishes an exercise (decisions.md §6 "Publish", spec 3.1): runs every check and answers with
 * every problem found. The checks:
 * - it names destinations, and each still exists (`no_destinations`, `missing_destination`); a
 *   disabled destination is a warning and needs no archives (spec 2.5: each *enabled* one does);
 * - it has sections, or (sectionless) a legacy archive (`no_sections`);
 * - every section (or the legacy archive set) has an archive in each enabled destination's format,
 *   made by conversion from the section's other format where missing, and a LEEF archive
 *   beside every ECS-only section when `convert_to_leef` is on (`missing_format` when there is
 *   nothing to convert or the conversion fails);
 * - staging deadlocks (`deadlock_*`), unless `deadlock_override` (then a warning when there are some);
 * - every publish check (SIEM Q provisioning), each on its own.
 *
 * Converted archives are stored as they are made and stay when publishing fails for another
 * reason (they are valid derived data). A converted archive older than the archive it was made
 * from (a new upload of the original format since) is stale: it is made again when needed, and
 * dropped when no destination needs it any more.
 *
 * With no problem a draft becomes active (one transaction, its version counted); an exercise
 * already active stays active either way (see PublishOutcome). Throws 404 for an unknown exercise
 * and 412 when the exercise changed while the checks ran.
 */
export async function publishExercise(
  deps: PublishDeps,
  exerciseId: string,
  _actor: PublishActor,
): Promise<PublishOutcome> {
  const problems: Problem[] = [];
  const warnings: Warning[] = [];
  const initial = await loadExercise(deps.db, exerciseId);

  // Destinations: which formats are needed, by whom.
  const enabled: Destination[] = [];
  if (initial.destinations.length === 0) {
    problems.push({
      code: 'no_destinations',
      message: 'The exercise names no SIEM destination: add at least one it can run on',
    });
  }
  for (const name of initial.destinations) {
    const found = await destinationFor(deps, name);
    if ('problem' in found) {
      problems.push(found.problem);
      continue;
    }
    const destination = found.destination;
    if (!destination.enabled) {
      warnings.push({
        code: 'destination_disabled',
        message: `SIEM destination "${name}" is disabled: attempts cannot run on it until it is enabled (its format was not checked)`,
        siem: name,
      });
      continue;
    }
    enabled.push(destination);
  }

  // Archive slots: the sections, or the legacy archive set of a sectionless exercise.
  const units: Unit[] =
    initial.sections.length > 0
      ? initial.sections.map((s) => ({ sectionId: s.id, label: `section "${s.name}"` }))
      : initial.archives.length > 0
        ? [{ sectionId: null, label: 'the exercise archive' }]
        : [];
  if (units.length === 0) {
    problems.push({
      code: 'no_sections',
      message: 'The exercise has no sections and no exercise archive: add a section with its logs',
    });
  }

  // Formats needed, each with the destinations needing it (none: convert_to_leef).
  const needs = new Map<PayloadFormat, string[]>();
  for (const d of enabled) needs.set(d.payload_format, [...(needs.get(d.payload_format) ?? []), d.name]);

  const stored = await loadArchives(deps.db, exerciseId);
  // Versions this publish added itself (one per conversion or dropped archive): any other change
  // while the checks ran makes the final version check fail (412), since it was never checked.
  let ownChanges = 0;
  for (const unit of units) {
    const own = stored.filter((a) => a.sectionId === unit.sectionId);
    const wanted = new Map(needs);
    if (
      initial.convert_to_leef &&
      !wanted.has('leef') &&
      own.some((a) => a.format === 'ecs' && a.convertedFrom === null)
    ) {
      wanted.set('leef', []);
    }
    for (const [format, siems] of wanted) {
      const outcome = await ensureFormat(deps, initial, unit, own, format);
      if (outcome === 'present') continue;
      if (outcome === 'converted') {
        ownChanges++;
        continue;
      }
      problems.push(...missingFormat(unit, format, siems, outcome));
    }
    for (const stale of own.filter((a) => !wanted.has(a.format) && isStale(a, own))) {
      await dropArchive(deps, exerciseId, stale);
      ownChanges++;
    }
  }

  // The exercise as it will be published (converted archives included), and its version now.
  const exercise = ownChanges > 0 ? await loadExercise(deps.db, exerciseId) : initial;

  const deadlocks = checkDeadlocks(exercise.sections, exercise.artifacts);
  if (!exercise.deadlock_override) problems.push(...deadlocks);
  else if (deadlocks.length > 0) {
    warnings.push({
      code: 'deadlock_override',
      message: `Staging problems ignored (deadlock override is on): ${deadlocks.map((d) => d.message).join('; ')}`,
      deadlocks,
    });
  }

  for (const check of deps.publishChecks) {
    try {
      const found = await check.check(exercise, enabled);
      problems.push(...found.problems);
      warnings.push(...found.warnings);
    } catch (err) {
      problems.push({
        code: 'publish_check_failed',
        message: `Publish check "${check.name}" failed: ${messageOf(err)}`,
        check: check.name,
      });
    }
  }

  if (problems.length > 0) return { ok: false, state: exercise.state, problems, warnings };
  if (exercise.state === 'draft') {
    await deps.db.transaction().execute(async (trx) => {
      const now = new Date(deps.clock.now());
      // ifMatch: an edit made while the checks ran was not checked (412: publish again).
      await bumpVersion(trx, exerciseId, { ifMatch: initial.version + ownChanges, allowActive: true, now });
      await trx
        .updateTable('exercises')
        .set({ state: 'active', published_at: now })
        .where('id', '=', exerciseId)
        .execute();
    });
  }
  return { ok: true, state: 'active', warnings };
}

/**
 * Takes an exercise back to draft so it can be edited again (its version counted); attempts in
 * progress go on. A draft stays as it is.
 */
export async function unpublishExercise(
  deps: Pick<PublishDeps, 'db' | 'clock'>,
  exerciseId: string,
): Promise<{ state: 'draft'; version: number }> {
  return deps.db.transaction().execute(async (trx) => {
    const row = await exerciseRow(trx, exerciseId, { forUpdate: true });
    if (row.state === 'draft') return { state: 'draft', version: row.version };
    const version = await bumpVersion(trx, exerciseId, {
      allowActive: true,
      now: new Date(deps.clock.now()),
    });
    await trx.updateTable('exercises').set({ state: 'draft' }).where('id', '=', exerciseId).execute();
    return { state: 'draft', version };
  });
}

// A destination by name with its kind checked, or the problem that it is not usable.
async function destinationFor(
  deps: PublishDeps,
  name: string,
): Promise<{ destination: Destination } | { problem: Problem }> {
  let destination: Destination;
  try {
    destination = await loadDestination(deps, name);
  } catch (err) {
    if (isAppError(err) && err.code === 'not_found') {
      return {
        problem: {
          code: 'missing_destination',
          message: `SIEM destination "${name}" no longer exists: remove it from the exercise or create it again`,
          siem: name,
        },
      };
    }
    return {
      problem: {
        code: 'destination_unusable',
        message: `SIEM destination "${name}" cannot be used: ${messageOf(err)}`,
        siem: name,
      },
    };
  }
  const kind = deps.siems.kindOf(destination);
  if (!kind.payloadFormats.includes(destination.payload_format)) {
    return {
      problem: {
        code: 'destination_unusable',
        message: `SIEM destination "${name}" ships ${FORMAT_NAMES[destination.payload_format]}, which its kind ${kind.name} does not take (${kind.payloadFormats.map((f) => FORMAT_NAMES[f]).join(' or ')})`,
        siem: name,
        format: destination.payload_format,
      },
    };
  }
  return { destination };
}

// A converted archive made before the archive it came from was replaced.
function isStale(archive: StoredArchive, own: readonly StoredArchive[]): boolean {
  if (archive.convertedFrom === null) return false;
  const source = own.find((a) => a.format === archive.convertedFrom);
  return source !== undefined && archive.createdAt.getTime() < source.createdAt.getTime();
}

/**
 * Makes sure the unit has a current archive of `format`: present already, or converted now from
 * its other format and stored beside it; else why not (`nothing` when it has no archive at all).
 */
async function ensureFormat(
  deps: PublishDeps,
  exercise: Exercise,
  unit: Unit,
  own: readonly StoredArchive[],
  format: PayloadFormat,
): Promise<'present' | 'converted' | { reason: string }> {
  const existing = own.find((a) => a.format === format);
  if (existing && !isStale(existing, own)) return 'present';
  const source = own.find((a) => a.format === other(format));
  if (!source) {
    return {
      reason:
        own.length === 0
          ? 'it has no archive'
          : `it has no ${FORMAT_NAMES[other(format)]} archive to convert`,
    };
  }
  try {
    const data = await deps.storage.get(EXERCISE_BUCKET, source.storageKey);
    const now = deps.clock.now();
    const converted = await convertArchive(data, source.archiveKind, source.filename, source.format, {
      limits: deps.limits,
      now,
    });
    const analysis = await analyzeArchive(converted.data, converted.filename, { limits: deps.limits, now });
    if (analysis.format !== format) {
      return { reason: `the conversion of "${source.filename}" did not give ${FORMAT_NAMES[format]}` };
    }
    await storeArchive(
      deps,
      { exerciseId: exercise.id, sectionId: unit.sectionId, convertedFrom: source.format },
      converted.filename,
      converted.data,
      analysis,
    );
    return 'converted';
  } catch (err) {
    return {
      reason: `converting ${FORMAT_NAMES[source.format]} archive "${source.filename}" failed: ${messageOf(err)}`,
    };
  }
}

// One missing_format problem per destination needing the format (one without: convert_to_leef).
function missingFormat(
  unit: Unit,
  format: PayloadFormat,
  siems: readonly string[],
  why: { reason: string },
): Problem[] {
  const section = unit.sectionId === null ? {} : { section: unit.sectionId };
  const name = FORMAT_NAMES[format];
  if (siems.length === 0) {
    return [
      {
        code: 'missing_format',
        message: `Convert to LEEF is on, but ${unit.label} has no LEEF archive and none could be made: ${why.reason}`,
        format,
        ...section,
      },
    ];
  }
  return siems.map((siem) => ({
    code: 'missing_format',
    message: `SIEM destination "${siem}" takes ${name}, but ${unit.label} has no ${name} archive and none could be made: ${why.reason}`,
    siem,
    format,
    ...section,
  }));
}

// Removes a stale converted archive nobody needs any more (row with the version, then the object).
async function dropArchive(deps: PublishDeps, exerciseId: string, archive: StoredArchive): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    await bumpVersion(trx, exerciseId, { allowActive: true, now: new Date(deps.clock.now()) });
    await trx.deleteFrom('exercise_archives').where('id', '=', archive.id).execute();
  });
  await removeObjects(deps.storage, [archive.storageKey]);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
