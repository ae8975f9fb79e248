import { AppError } from '../../errors.ts';
import type { ArchiveEntry } from '../archive/archive-entry.ts';
import type { ArchiveInput } from '../archive/archive-input.ts';
import { type ArchiveLimits, resolveArchiveLimits } from '../archive/archive-limits.ts';
import { SplitMemo, splitByteLines } from '../archive/byte-lines.ts';
import { quoteName, selectForFormat } from '../archive/entry-path.ts';
import { type ArchiveKind, type OpenedArchive, openArchive } from '../archive/open-archive.ts';
import { createRetainBudget } from '../archive/retain-budget.ts';
import { detectEntryFormat } from '../ecs/detect-format.ts';
import type { EcsScanPool } from '../ecs/ecs-scan-pool.ts';
import { EcsTwoPassReader } from '../ecs/read-ecs-records.ts';
import { isAsciiLine, LeefLineReader, LineIndexes } from '../leef/leef-line-reader.ts';
import {
  computeShift,
  createRebaseContext,
  finishFirstPass,
  finishYearlessPass,
  type RebaseContext,
  readEventTime,
  shiftDays,
  yearlessPassContext,
} from '../leef/leef-rebase.ts';
import { ShipmentScratch } from './shipment-scratch.ts';

/** One archive of a shipment (session start has one; a noise run has one per job archive). */
export interface ShipmentSource {
  /** The archive, in memory or (a `.zip` only) in a file that stays until the shipment is over. */
  readonly data: ArchiveInput;
  readonly kind: ArchiveKind;
  /** File name of a plain-text upload: names its one entry, and so how it is read (`.json` vs lines). */
  readonly name?: string;
  /** Names the archive in messages (a storage path, or the URL's host and path). */
  readonly label: string;
}

/** Input format of a shipment: which entries are read, and how. */
export type ShipmentFormat = 'leef' | 'ecs';

/** Pass 1 done: counts, the shift, and what pass 2 needs. */
export interface PreparedShipment {
  readonly format: ShipmentFormat;
  readonly now: number;
  /** Entries processed, over all sources (decisions.md §5 `files`). */
  readonly files: number;
  /** Events found (non-empty LEEF lines or ECS documents), over all sources. */
  readonly events: number;
  /** Events per source, in source order. */
  readonly eventsPerSource: readonly number[];
  /** Events without a readable time: shipped unchanged. */
  readonly unreadable: number;
  readonly shiftMs: number;
  readonly shiftDays: number;
  /** @internal pass-2 state */
  readonly archives: readonly OpenedArchive[];
  /** @internal */
  readonly leef: RebaseContext | null;
  /** @internal what pass 1 found about LEEF lines, for pass 2 (see LineIndexes) */
  readonly lineIndexes: LineIndexes;
  /** @internal where pass 1 found the lines of each chunk, for later passes (see SplitMemo) */
  readonly splits: SplitMemo;
  /** @internal */
  readonly ecsReaders: readonly EcsTwoPassReader[];
}

/**
 * Opens every source, checks each selected entry's format (failing closed on content that is not
 * the shipment's format), and runs rebase pass 1 over all of them: one shift for the whole
 * shipment (decisions.md §5), so a noise run with ten archives keeps their relative timing.
 * Throws `no_events` when nothing is left to ship — never an empty success.
 *
 * LEEF lines are read as bytes (see LeefLineReader). What pass 1 found about each line is kept for
 * pass 2 within `indexBytes` (LineIndexes); inflated bytes are kept only as far as
 * ArchiveLimits.retainBytes allows (none by default), and pass 2 inflates the rest again. Pass 1
 * keeps its memos in `scratch` (a new ShipmentScratch when not given).
 */
export async function prepareShipment(
  sources: readonly ShipmentSource[],
  options: {
    format: ShipmentFormat;
    now: number;
    limits?: Partial<ArchiveLimits>;
    /** Memory for pass 1's line positions (LineIndexes; default DEFAULT_INDEX_BYTES). */
    indexBytes?: number;
    /** Memory for pass 1's line ranges (SplitMemo; default DEFAULT_SPLIT_MEMO_BYTES). */
    splitBytes?: number;
    /** Pass 1's memos; never one another pass is using. */
    scratch?: ShipmentScratch;
    /** A scan worker that takes half of pass 1's work on ECS NDJSON lines (EcsScanPool). */
    ecsScanPool?: EcsScanPool | null;
    /**
     * Stops pass 1 between batches (a deadline, a shutdown): it throws the signal's reason, so an
     * archive that takes minutes to read (4 GiB of short lines) cannot outlive either.
     */
    signal?: AbortSignal;
  },
): Promise<PreparedShipment> {
  const { format, now, signal } = options;
  const scratch = options.scratch ?? new ShipmentScratch();
  const select = selectForFormat(format);
  const retain = createRetainBudget(resolveArchiveLimits(options.limits).retainBytes);
  const archives: OpenedArchive[] = [];
  for (const source of sources) {
    try {
      archives.push(
        await openArchive(source.data, {
          kind: source.kind,
          ...(source.name !== undefined ? { name: source.name } : {}),
          select,
          limits: options.limits,
          retain,
        }),
      );
    } catch (err) {
      throw withArchiveLabel(err, source.label, sources.length > 1);
    }
  }

  const leef = format === 'leef' ? createRebaseContext(now) : null;
  const reader = new LeefLineReader(scratch);
  const lineIndexes = new LineIndexes(options.indexBytes);
  const splits = new SplitMemo(options.splitBytes);
  const ecsReaders = archives.map(() => new EcsTwoPassReader(undefined, options.ecsScanPool ?? null));
  const eventsPerSource: number[] = [];
  let latestEcs: number | null = null;
  let unreadableEcs = 0;
  let files = 0;
  // Entries of another or of no known format: they fail the shipment closed (spec 2.5), but only
  // once pass 1 is over, so an archive with nothing usable at all is `no_events` (decisions.md §5).
  const rejected: AppError[] = [];
  // LEEF entries with year-less event times, per archive: only they are read a second time.
  const yearlessEntries = archives.map(() => new Set<string>());

  for (const [i, archive] of archives.entries()) {
    let count = 0;
    try {
      for await (const entry of archive.entries()) {
        signal?.throwIfAborted();
        files++;
        const verdict = await entryVerdict(entry, format);
        if (verdict !== 'usable') {
          if (verdict !== 'empty')
            rejected.push(
              withArchiveLabel(verdict, (sources[i] as ShipmentSource).label, sources.length > 1) as AppError,
            );
          continue;
        }
        if (leef) {
          const yearlessBefore = leef.yearless;
          count += await readLeefTimes(
            entry,
            leef,
            reader,
            lineIndexes,
            splits,
            lineIndexKey(i, entry.path),
            signal,
          );
          if (leef.yearless > yearlessBefore) (yearlessEntries[i] as Set<string>).add(entry.path);
        } else {
          const ecsReader = ecsReaders[i] as EcsTwoPassReader;
          for await (const times of ecsReader.timesPass(entry, scratch.ecsTimes)) {
            signal?.throwIfAborted();
            unreadableEcs += times.unreadable;
            if (times.latest !== null && (latestEcs === null || times.latest > latestEcs))
              latestEcs = times.latest;
            count += times.documents;
          }
        }
      }
    } catch (err) {
      throw withArchiveLabel(err, (sources[i] as ShipmentSource).label, sources.length > 1);
    }
    eventsPerSource.push(count);
  }

  const events = eventsPerSource.reduce((a, b) => a + b, 0);
  if (events === 0) {
    const unusable = rejected.map((err) => err.details?.entry as string);
    throw new AppError(
      'no_events',
      `The archive has no ${format === 'leef' ? 'LEEF lines (.log/.txt entries)' : 'ECS documents (.ndjson/.json entries)'} to ship` +
        (unusable.length > 0
          ? ` (not ${format === 'leef' ? 'LEEF' : 'ECS'}: ${unusable.slice(0, 5).map(quoteName).join(', ')})`
          : ''),
      { details: { files, format, ...(unusable.length > 0 ? { unusable_entries: unusable } : {}) } },
    );
  }
  if (rejected.length > 0) throw rejected[0];
  let shiftMs = leef ? finishFirstPass(leef, now) : computeShift(latestEcs, now);
  const again = leef ? yearlessPassContext(leef) : null;
  if (leef && again) {
    // Dated and year-less event times together: the year-less ones are read once more against
    // the newest dated event, where pass 2 will place them, so the newest of all lands at now + 2 h.
    // Only entries that had year-less times are read again.
    const secondReader = new LeefLineReader(scratch);
    for (const [i, archive] of archives.entries()) {
      const wanted = yearlessEntries[i] as Set<string>;
      if (wanted.size === 0) continue;
      try {
        for await (const entry of archive.entries()) {
          if (wanted.has(entry.path))
            await readLeefTimes(
              entry,
              again,
              secondReader,
              null,
              splits,
              lineIndexKey(i, entry.path),
              signal,
            );
        }
      } catch (err) {
        throw withArchiveLabel(err, (sources[i] as ShipmentSource).label, sources.length > 1);
      }
    }
    shiftMs = finishYearlessPass(leef, again, now);
  }
  return {
    format,
    now,
    files,
    events,
    eventsPerSource,
    unreadable: leef ? leef.unreadable : unreadableEcs,
    shiftMs,
    shiftDays: shiftDays(shiftMs),
    archives,
    leef,
    lineIndexes,
    splits,
    ecsReaders,
  };
}

/** How pass 1 and pass 2 name entry `path` of source `source` to LineIndexes and SplitMemo. */
export function lineIndexKey(source: number, path: string): string {
  return `${source}/${path}`;
}

/**
 * Reads the event time of every line of a LEEF entry into `ctx` (pass 1), recording what pass 2
 * can reuse in `indexes` when given and the entry's line ranges in `splits` (entry `key`, as
 * lineIndexKey names it); returns the entry's line count.
 */
async function readLeefTimes(
  entry: ArchiveEntry,
  ctx: RebaseContext,
  reader: LeefLineReader,
  indexes: LineIndexes | null,
  splits: SplitMemo,
  key: string,
  signal: AbortSignal | undefined,
): Promise<number> {
  let count = 0;
  const memo = splits.entry(key);
  for await (const batch of splitByteLines(entry.bytes(), entry.path, entry.maxLineLength, memo)) {
    signal?.throwIfAborted();
    for (const lines of batch.segments) {
      const { buf, starts, ends } = lines;
      const index = indexes === null ? null : indexes.create(lines, key);
      for (let k = 0; k < starts.length; k++) {
        if (isAsciiLine(lines, k)) {
          reader.eventTime(buf, starts[k] as number, ends[k] as number, ctx, index, k);
        } else {
          readEventTime(buf.toString('utf8', starts[k], ends[k]), ctx, reader.scratch);
        }
      }
    }
    count += batch.count;
  }
  return count;
}

/**
 * `usable` when the entry holds the shipment's format; `empty` for an entry without any non-empty
 * line (nothing to ship, not an error); otherwise the error that fails it closed, naming the entry
 * (spec 2.5).
 */
async function entryVerdict(
  entry: ArchiveEntry,
  format: ShipmentFormat,
): Promise<'usable' | 'empty' | AppError> {
  const detected = await detectEntryFormat(entry);
  if (detected === format) return 'usable';
  if (detected === 'unknown') {
    for await (const _line of entry.lines()) {
      return new AppError(
        'archive_invalid',
        `Archive entry ${quoteName(entry.path)} is neither LEEF nor ECS (JSON with @timestamp and an ECS field)`,
        { details: { entry: entry.path } },
      );
    }
    return 'empty';
  }
  return new AppError(
    'archive_invalid',
    `Archive entry ${quoteName(entry.path)} holds ${detected === 'ecs' ? 'ECS documents' : 'LEEF lines'}, but this destination takes ${format === 'ecs' ? 'ECS' : 'LEEF'}`,
    { details: { entry: entry.path, found: detected, expected: format } },
  );
}

/** Prefixes an archive error with the archive's label when a shipment has several archives. */
function withArchiveLabel(err: unknown, label: string, several: boolean): unknown {
  if (!several || !(err instanceof AppError)) return err;
  return new AppError(err.code, `${label}: ${err.message}`, {
    details: { ...(err.details ?? {}), archive: label },
    cause: err,
  });
}
