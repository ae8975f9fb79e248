import { type ZipOptions, zipSync } from 'fflate';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import type { ArchiveLimits, ArchiveSettings } from '../../pipeline/archive/archive-limits.ts';
import { selectForFormat } from '../../pipeline/archive/entry-path.ts';
import { archiveKindForName, openArchive } from '../../pipeline/archive/open-archive.ts';
import type { ObjectStorage } from '../../storage/object-storage.ts';
import {
  type ArchiveAnalysis,
  analyzeArchive,
  EXERCISE_BUCKET,
  removeObjects,
  storeArchive,
} from '../exercise-archives.ts';
import {
  addArtifact,
  addSection,
  addStep,
  createExercise,
  deleteExercise,
  patchSection,
} from '../exercise-service.ts';
import { loadArchives, loadExercise } from '../exercise-store.ts';
import type { Exercise, StoredArchive } from '../exercise-types.ts';
import type { BundleLimits, ReadBundleResult } from './bundle-read.ts';
import {
  BUNDLE_SCHEMA_VERSION,
  type BundleArchive,
  type BundleProblem,
  type ExerciseBundle,
  type ResolvedExerciseBundle,
} from './bundle-schema.ts';
import { bundleFilePath, writeBundle } from './bundle-write.ts';

type Format = 'leef' | 'ecs';

/** What an export reads. */
export interface ExportDeps {
  readonly db: Kysely<Database>;
  readonly storage: ObjectStorage;
}

/** What an import writes with. */
export interface ImportDeps {
  readonly db: Kysely<Database>;
  readonly storage: ObjectStorage;
  readonly clock: Clock;
  /** Caps every archive of the bundle is analysed with (archiveLimitsOf(config)). */
  readonly limits: Partial<ArchiveLimits>;
  /** The importing user, or null (the command line). */
  readonly createdBy: string | null;
}

/** Choices of an import. */
export interface ImportOptions {
  /** Destination names to use instead of the bundle's (each must exist here). */
  readonly destinations?: readonly string[];
}

/**
 * An exercise as a bundle zip (docs/exercise-bundle.md): everything but database ids. Sections get
 * the refs `s1`, `s2`, … by position and artifacts `a1`, `a2`, … in their order; every stored
 * archive (converted ones too, with `converted_from`) is read from storage into the zip. The file
 * name is the title as a slug with `.zip`.
 */
export async function exportExercise(
  deps: ExportDeps,
  exerciseId: string,
): Promise<{ filename: string; data: Buffer }> {
  const exercise = await loadExercise(deps.db, exerciseId);
  const stored = await loadArchives(deps.db, exercise.id);
  const sectionRef = new Map(exercise.sections.map((s, i) => [s.id, `s${i + 1}`]));
  const artifactRef = new Map(exercise.artifacts.map((a, i) => [a.id, `a${i + 1}`]));

  const files = new Map<string, Buffer>();
  const taken = new Set<string>();
  const archivesOf = async (sectionId: string | null): Promise<BundleArchive[]> => {
    const ref = sectionId === null ? null : (sectionRef.get(sectionId) ?? null);
    const own = stored.filter((a) => a.sectionId === sectionId);
    const entries: BundleArchive[] = [];
    for (const archive of own) {
      const file = bundleFilePath(ref, archive.format, archive.filename, taken);
      taken.add(file);
      files.set(file, await readStored(deps.storage, archive));
      entries.push({
        format: archive.format,
        file,
        filename: archive.filename,
        converted_from: archive.convertedFrom,
      });
    }
    return entries;
  };

  const sections: ResolvedExerciseBundle['sections'] = [];
  for (const section of exercise.sections) {
    sections.push({
      ref: sectionRef.get(section.id) as string,
      name: section.name,
      position: section.position,
      release:
        section.release === null
          ? null
          : {
              condition: section.release.condition,
              delay_minutes: section.release.delay_minutes,
              artifacts: section.release.artifact_ids.flatMap((id) => artifactRef.get(id) ?? []),
              gate_mode: section.release.gate_mode,
            },
      archives: await archivesOf(section.id),
    });
  }
  const bundle: ExerciseBundle = {
    schema_version: BUNDLE_SCHEMA_VERSION,
    title: exercise.title,
    description: exercise.description,
    destinations: exercise.destinations,
    convert_to_leef: exercise.convert_to_leef,
    deadlock_override: exercise.deadlock_override,
    tags: exercise.tags,
    steps: exercise.steps.map((s) => ({ title: s.title, body: s.body })),
    artifacts: exercise.artifacts.map((a) => ({
      ref: artifactRef.get(a.id) as string,
      name: a.name,
      kind: a.kind,
      values: a.values,
      match: a.match,
      points: a.points,
      section: a.section_id === null ? null : (sectionRef.get(a.section_id) ?? null),
      hint: a.hint,
      hint_penalty: a.hint_penalty,
    })),
    sections,
    archives: await archivesOf(null),
  };
  return { filename: `${slugOf(exercise.title)}.zip`, data: writeBundle(bundle, files) };
}

/**
 * A new draft exercise from a read bundle (readBundle / readBundleDirectory): steps, sections,
 * artifacts, release rules (refs mapped to the new ids) and archives. Every archive is analysed
 * before anything is created, so a bad one refuses the import (400 naming the bundle file, 413 for
 * a cap). Several archives of one format in one section (a section stores one per format) are
 * stored as one zip holding them all. The bundle's destinations are kept when this installation has
 * them, the others dropped with a warning; `options.destinations` replaces them. All or nothing: a
 * failure after the exercise was created deletes it and its stored archives before rethrowing.
 */
export async function importExercise(
  deps: ImportDeps,
  input: ReadBundleResult,
  options: ImportOptions = {},
): Promise<{ exercise: Exercise; warnings: string[] }> {
  const { bundle } = input;
  const warnings = [...input.warnings];
  const now = deps.clock.now();

  const groups = await prepareArchives(input, { limits: deps.limits, now });

  let destinations: string[];
  if (options.destinations !== undefined) destinations = [...new Set(options.destinations)];
  else {
    const wanted = [...new Set(bundle.destinations)];
    const found =
      wanted.length === 0
        ? []
        : await deps.db.selectFrom('destinations').select('name').where('name', 'in', wanted).execute();
    const known = new Set(found.map((d) => d.name));
    destinations = wanted.filter((n) => known.has(n));
    const dropped = wanted.filter((n) => !known.has(n));
    if (dropped.length > 0) {
      warnings.push(
        `SIEM destination(s) ${dropped.map((n) => `"${n}"`).join(', ')} do not exist on this installation and were left out`,
      );
    }
  }

  const created = await createExercise(
    deps,
    {
      title: bundle.title,
      description: bundle.description,
      destinations,
      convert_to_leef: bundle.convert_to_leef,
      deadlock_override: bundle.deadlock_override,
      tags: bundle.tags,
    },
    deps.createdBy,
  );
  const exerciseId = created.id;
  const none = {};
  try {
    for (const step of bundle.steps) {
      await addStep(deps, exerciseId, { title: step.title, body: step.body }, none);
    }
    const sectionIds = new Map<string, string>();
    const sections = [...bundle.sections].sort((a, b) => a.position - b.position);
    for (const section of sections) {
      const { id } = await addSection(
        deps,
        exerciseId,
        { name: section.name, position: section.position, release: null },
        none,
      );
      sectionIds.set(section.ref, id);
    }
    const artifactIds = new Map<string, string>();
    for (const artifact of bundle.artifacts) {
      const { id } = await addArtifact(
        deps,
        exerciseId,
        {
          name: artifact.name,
          kind: artifact.kind,
          values: artifact.values,
          match: artifact.match,
          points: artifact.points,
          section_id: artifact.section === null ? null : (sectionIds.get(artifact.section) ?? null),
          hint: artifact.hint,
          hint_penalty: artifact.hint_penalty,
        },
        none,
      );
      artifactIds.set(artifact.ref, id);
    }
    for (const section of sections) {
      if (section.release === null) continue;
      await patchSection(
        deps,
        exerciseId,
        sectionIds.get(section.ref) as string,
        {
          release: {
            condition: section.release.condition,
            delay_minutes: section.release.delay_minutes,
            artifact_ids: section.release.artifacts.map((ref) => artifactIds.get(ref) as string),
            gate_mode: section.release.gate_mode,
          },
        },
        none,
      );
    }
    for (const group of groups) {
      const sectionId = group.sectionRef === null ? null : (sectionIds.get(group.sectionRef) as string);
      await storeArchive(
        deps,
        {
          exerciseId,
          sectionId,
          ...(group.convertedFrom === null ? {} : { convertedFrom: group.convertedFrom }),
        },
        group.filename,
        group.data,
        group.analysis,
      );
    }
  } catch (err) {
    await deleteExercise(deps, exerciseId)
      .then(({ storageKeys }) => removeObjects(deps.storage, storageKeys))
      .catch(() => undefined);
    throw err;
  }
  for (const g of groups.filter((x) => x.merged)) {
    warnings.push(
      `${g.files.join(', ')} were stored as one ${g.format.toUpperCase()} archive "${g.filename}" (a section holds one archive per format)`,
    );
  }
  return { exercise: await loadExercise(deps.db, exerciseId), warnings };
}

/** One archive to store: a section's (or the legacy) archive of one format. */
interface PreparedArchive {
  readonly sectionRef: string | null;
  readonly format: Format;
  readonly filename: string;
  readonly data: Buffer;
  readonly analysis: ArchiveAnalysis;
  readonly convertedFrom: Format | null;
  /** The bundle files it holds. */
  readonly files: string[];
  readonly merged: boolean;
}

/**
 * Analyses every archive a bundle names (each refusal names its bundle file) and groups them into
 * what will be stored: one archive per section and format. Nothing is written.
 */
export async function prepareArchives(
  input: Pick<ReadBundleResult, 'bundle' | 'archives'>,
  options: { limits: Partial<ArchiveLimits>; now: number },
): Promise<PreparedArchive[]> {
  const { bundle } = input;
  const owners: Array<{ sectionRef: string | null; archives: BundleArchive[] }> = [
    ...[...bundle.sections]
      .sort((a, b) => a.position - b.position)
      .map((s) => ({ sectionRef: s.ref as string | null, archives: s.archives })),
    { sectionRef: null, archives: bundle.archives },
  ];
  const prepared: PreparedArchive[] = [];
  for (const owner of owners) {
    const byFormat = new Map<Format, BundleArchive[]>();
    for (const archive of owner.archives) {
      const list = byFormat.get(archive.format) ?? [];
      if (!list.some((a) => a.file === archive.file)) list.push(archive);
      byFormat.set(archive.format, list);
    }
    for (const [format, archives] of byFormat) {
      for (const archive of archives) {
        const analysis = await analyzeBundleFile(input.archives, archive, options);
        if (analysis.format !== format) {
          throw new AppError(
            'invalid_input',
            `bundle file "${archive.file}" is declared ${format.toUpperCase()} but holds ${analysis.format.toUpperCase()} events`,
            {
              details: {
                reason: 'archive_format',
                file: archive.file,
                declared: format,
                found: analysis.format,
              },
            },
          );
        }
        if (archives.length === 1) {
          prepared.push({
            sectionRef: owner.sectionRef,
            format,
            filename: archive.filename,
            data: bundleBytes(input.archives, archive.file),
            analysis,
            convertedFrom: archive.converted_from,
            files: [archive.file],
            merged: false,
          });
        }
      }
      if (archives.length > 1) {
        const filename = `${owner.sectionRef ?? 'exercise'}-${format}.zip`;
        const data = await mergeArchives(input.archives, archives, format, options.limits);
        let analysis: ArchiveAnalysis;
        try {
          analysis = await analyzeArchive(data, filename, options);
        } catch (err) {
          throw namingFiles(
            err,
            archives.map((a) => a.file),
          );
        }
        const from = new Set(archives.map((a) => a.converted_from));
        prepared.push({
          sectionRef: owner.sectionRef,
          format,
          filename,
          data,
          analysis,
          convertedFrom: from.size === 1 ? (archives[0]?.converted_from ?? null) : null,
          files: archives.map((a) => a.file),
          merged: true,
        });
      }
    }
  }
  return prepared;
}

async function analyzeBundleFile(
  files: ReadonlyMap<string, Buffer>,
  archive: BundleArchive,
  options: { limits: Partial<ArchiveLimits>; now: number },
): Promise<ArchiveAnalysis> {
  try {
    return await analyzeArchive(bundleBytes(files, archive.file), archive.filename, options);
  } catch (err) {
    throw namingFiles(err, [archive.file]);
  }
}

function bundleBytes(files: ReadonlyMap<string, Buffer>, file: string): Buffer {
  const data = files.get(file);
  if (data === undefined) {
    throw new AppError('invalid_input', `the bundle lacks the archive ${file}`, {
      details: { reason: 'missing_archive', files: [file] },
    });
  }
  return data;
}

// An archive's refusal with the bundle file(s) it came from in front; status and code kept.
function namingFiles(err: unknown, files: readonly string[]): unknown {
  if (!(err instanceof AppError)) return err;
  const which = files.map((f) => `"${f}"`).join(', ');
  return new AppError(err.code, `bundle file ${which}: ${err.message}`, {
    details: { ...err.details, file: files.length === 1 ? files[0] : files },
    status: err.status,
    cause: err,
  });
}

const EXTENSION: Record<Format, RegExp> = { leef: /\.(?:log|txt)$/i, ecs: /\.(?:ndjson|json)$/i };

// Several archives of one format as one zip: each entry under the bundle path it came from.
async function mergeArchives(
  files: ReadonlyMap<string, Buffer>,
  archives: readonly BundleArchive[],
  format: Format,
  limits: Partial<ArchiveLimits>,
): Promise<Buffer> {
  const entries: Record<string, [Uint8Array, ZipOptions]> = {};
  const mtime = new Date(1980, 0, 1);
  for (const archive of archives) {
    const base = archive.file.replace(/^archives\//, '');
    const kind = archiveKindForName(archive.filename);
    const opened = await openArchive(bundleBytes(files, archive.file), {
      kind,
      name: archive.filename,
      select: selectForFormat(format),
      limits,
    });
    for await (const entry of opened.entries()) {
      const chunks: Uint8Array[] = [];
      for await (const chunk of entry.bytes()) chunks.push(chunk);
      let name = kind === 'text' ? base : `${base.replace(/(?:\.tar\.gz|\.tgz|\.zip)$/i, '')}/${entry.path}`;
      if (!EXTENSION[format].test(name)) name += format === 'leef' ? '.log' : '.ndjson';
      entries[name] = [Buffer.concat(chunks), { level: 6, mtime }];
    }
  }
  const zip = zipSync(entries);
  return Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength);
}

async function readStored(storage: ObjectStorage, archive: StoredArchive): Promise<Buffer> {
  try {
    return await storage.get(EXERCISE_BUCKET, archive.storageKey);
  } catch (err) {
    throw new AppError(
      'internal',
      `the stored archive "${archive.filename}" (${archive.format}) cannot be read`,
      {
        cause: err,
      },
    );
  }
}

/** A file name for a title: lowercase ASCII letters and digits joined by `-` ("exercise" when none). */
export function slugOf(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '');
  return slug === '' ? 'exercise' : slug;
}

/** The caps a bundle is read with, from the archive settings (`ARCHIVE_MAX_*`). */
export function bundleLimitsOf(settings: ArchiveSettings): BundleLimits {
  return {
    maxBytes: settings.archiveMaxBytes,
    maxEntries: settings.archiveMaxEntries,
    maxUncompressedBytes: settings.archiveMaxUncompressedBytes,
  };
}

/**
 * Every archive problem of a read bundle, each with the bundle file it is about: content that is
 * neither LEEF nor ECS, a damaged or over-limit archive, or a format other than the one declared.
 * Needs no database (what `socdrill exercise validate` runs).
 */
export async function bundleArchiveProblems(
  input: Pick<ReadBundleResult, 'bundle' | 'archives'>,
  options: { limits: Partial<ArchiveLimits>; now: number },
): Promise<BundleProblem[]> {
  const problems: BundleProblem[] = [];
  const all = [...input.bundle.sections.flatMap((s) => s.archives), ...input.bundle.archives];
  const seen = new Set<string>();
  for (const archive of all) {
    const key = `${archive.file}\u0000${archive.format}`;
    if (seen.has(key)) continue;
    seen.add(key);
    try {
      const analysis = await analyzeArchive(
        bundleBytes(input.archives, archive.file),
        archive.filename,
        options,
      );
      if (analysis.format !== archive.format) {
        problems.push({
          path: archive.file,
          message: `is declared ${archive.format.toUpperCase()} but holds ${analysis.format.toUpperCase()} events`,
        });
      }
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      problems.push({ path: archive.file, message: err.message });
    }
  }
  return problems;
}
