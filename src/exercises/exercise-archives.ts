import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import { AppError, isUuid, notFound } from '../errors.ts';
import type { ArchiveLimits } from '../pipeline/archive/archive-limits.ts';
import { quoteName, selectForFormat } from '../pipeline/archive/entry-path.ts';
import { type ArchiveKind, archiveKindForName, openArchive } from '../pipeline/archive/open-archive.ts';
import { detectEntryFormat } from '../pipeline/ecs/detect-format.ts';
import { REBASE_LEAD_MS } from '../pipeline/leef/leef-rebase.ts';
import { prepareShipment } from '../pipeline/shipment/prepare-shipment.ts';
import type { ObjectStorage } from '../storage/object-storage.ts';
import { bumpVersion } from './exercise-store.ts';
import type { ArchiveInfo } from './exercise-types.ts';

/** The bucket of every exercise archive (decisions.md §1). */
export const EXERCISE_BUCKET = 'exercise-archives';

/** What an archive holds, found by reading it once as a shipment would. */
export interface ArchiveAnalysis {
  readonly format: 'leef' | 'ecs';
  readonly kind: ArchiveKind;
  readonly files: number;
  readonly events: number;
  /** Newest readable event time (epoch ms), null when no event has a readable time. */
  readonly latestEventMs: number | null;
}

/**
 * Detects an upload's format (spec 2.5: LEEF, ECS, or unknown, which fails closed with
 * `unknown_format` naming the file and the entry; entries of both formats in one archive are refused
 * too) and reads it as a shipment would, so what publish and attempts later ship is known to be
 * readable now: counts, and the newest event time an attempt's one shift is computed from.
 */
export async function analyzeArchive(
  data: Buffer,
  filename: string,
  options: { limits: Partial<ArchiveLimits>; now: number },
): Promise<ArchiveAnalysis> {
  const kind = archiveKindForName(filename);
  const opened = await openArchive(data, {
    kind,
    name: filename,
    select: selectForFormat('any'),
    limits: options.limits,
  });
  const formats = new Map<'leef' | 'ecs', string>();
  for await (const entry of opened.entries()) {
    const detected = await detectEntryFormat(entry);
    const where = kind === 'text' ? '' : ` (entry ${quoteName(entry.path)})`;
    if (detected === 'unknown') {
      throw new AppError(
        'unknown_format',
        `${quoteName(filename)}${where} is neither LEEF nor ECS (JSON or NDJSON with @timestamp and an ECS field)`,
        { details: { filename, ...(kind === 'text' ? {} : { entry: entry.path }) } },
      );
    }
    if (!formats.has(detected)) formats.set(detected, entry.path);
  }
  if (formats.size > 1) {
    throw new AppError(
      'unknown_format',
      `${quoteName(filename)} mixes LEEF (${quoteName(formats.get('leef') ?? '')}) and ECS (${quoteName(formats.get('ecs') ?? '')}) entries: upload one archive per format`,
      { details: { filename, entries: Object.fromEntries(formats) } },
    );
  }
  const format = [...formats.keys()][0] ?? 'leef';
  const prepared = await prepareShipment([{ data, kind, name: filename, label: filename }], {
    format,
    now: options.now,
    limits: options.limits,
  });
  const readable = prepared.unreadable < prepared.events;
  return {
    format,
    kind,
    files: prepared.files,
    events: prepared.events,
    latestEventMs: readable ? options.now + REBASE_LEAD_MS - prepared.shiftMs : null,
  };
}

/** What storing an archive uses. */
export interface ArchiveStoreDeps {
  readonly db: Kysely<Database>;
  readonly storage: ObjectStorage;
  readonly clock: Clock;
}

/**
 * Stores an analysed archive as the section's (or, `sectionId` null, the exercise's legacy)
 * archive of its format, replacing the one it had: the object is written first under a new key,
 * then the row swapped in one transaction (with the exercise's version), then the old object
 * removed, so a failure at any point leaves the previous archive whole.
 */
export async function storeArchive(
  deps: ArchiveStoreDeps,
  target: {
    exerciseId: string;
    sectionId: string | null;
    ifMatch?: number | undefined;
    convertedFrom?: 'leef' | 'ecs';
  },
  filename: string,
  data: Buffer,
  analysis: ArchiveAnalysis,
): Promise<ArchiveInfo> {
  const { exerciseId, sectionId } = target;
  const key = `${exerciseId}/${sectionId ?? 'legacy'}/${analysis.format}/${randomUUID()}-${safeName(filename)}`;
  await deps.storage.put(EXERCISE_BUCKET, key, data, data.length);
  const now = new Date(deps.clock.now());
  let replaced: string | undefined;
  try {
    await deps.db.transaction().execute(async (trx) => {
      // Publish stores converted archives of an exercise it is about to activate.
      await bumpVersion(trx, exerciseId, {
        ifMatch: target.ifMatch,
        now,
        allowActive: target.convertedFrom !== undefined,
      });
      if (sectionId !== null) {
        const section = isUuid(sectionId)
          ? await trx
              .selectFrom('exercise_sections')
              .select('id')
              .where('id', '=', sectionId)
              .where('exercise_id', '=', exerciseId)
              .executeTakeFirst()
          : undefined;
        if (!section) throw notFound('section', sectionId);
      }
      let old = trx
        .selectFrom('exercise_archives')
        .select(['id', 'storage_key'])
        .where('exercise_id', '=', exerciseId)
        .where('format', '=', analysis.format);
      old =
        sectionId === null ? old.where('section_id', 'is', null) : old.where('section_id', '=', sectionId);
      const previous = await old.executeTakeFirst();
      if (previous) {
        replaced = previous.storage_key;
        await trx.deleteFrom('exercise_archives').where('id', '=', previous.id).execute();
      }
      await trx
        .insertInto('exercise_archives')
        .values({
          id: randomUUID(),
          exercise_id: exerciseId,
          section_id: sectionId,
          format: analysis.format,
          filename,
          storage_key: key,
          archive_kind: analysis.kind,
          files: analysis.files,
          events: analysis.events,
          size: data.length,
          latest_event_ms: analysis.latestEventMs,
          converted_from: target.convertedFrom ?? null,
          created_at: now,
        })
        .execute();
    });
  } catch (err) {
    await deps.storage.delete(EXERCISE_BUCKET, key).catch(() => undefined);
    throw err;
  }
  if (replaced) await removeObjects(deps.storage, [replaced]);
  return {
    format: analysis.format,
    filename,
    files: analysis.files,
    events: analysis.events,
    size: data.length,
    ...(target.convertedFrom ? { converted_from: target.convertedFrom } : {}),
    uploaded_at: now.toISOString(),
  };
}

/** Removes stored archives whose rows are gone; a missing object is no error. */
export async function removeObjects(storage: ObjectStorage, keys: readonly string[]): Promise<void> {
  for (const key of keys) await storage.delete(EXERCISE_BUCKET, key).catch(() => undefined);
}

/** The name an upload is stored under: its base name with anything but safe characters replaced. */
function safeName(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? 'archive';
  const cleaned = base.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  return (cleaned || 'archive').slice(0, 120);
}
