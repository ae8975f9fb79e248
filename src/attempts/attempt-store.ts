import type { ExpressionBuilder, Kysely, Selectable, Transaction } from 'kysely';
import type { AttemptSectionsTable, AttemptsTable, Database } from '../db/schema.ts';
import { isUuid, notFound } from '../errors.ts';

type Db = Kysely<Database> | Transaction<Database>;
export type AttemptRow = Selectable<AttemptsTable>;
export type AttemptSectionRow = Selectable<AttemptSectionsTable>;
export type SectionStatus = AttemptSectionRow['status'];

/** The attempt row, or 404 (text that is no UUID names nothing). */
export async function attemptRow(db: Db, id: string): Promise<AttemptRow> {
  if (!isUuid(id)) throw notFound('attempt', id);
  const row = await db.selectFrom('attempts').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('attempt', id);
  return row;
}

/** The section rows of an attempt. */
export async function attemptSections(db: Db, attemptId: string): Promise<AttemptSectionRow[]> {
  return db.selectFrom('attempt_sections').selectAll().where('attempt_id', '=', attemptId).execute();
}

/** Artifacts found in an attempt, with when and for how many points. */
export async function attemptFindings(db: Db, attemptId: string) {
  return db
    .selectFrom('attempt_findings')
    .selectAll()
    .where('attempt_id', '=', attemptId)
    .orderBy('found_at')
    .execute();
}

/** Hints revealed in an attempt. */
export async function attemptHints(db: Db, attemptId: string) {
  return db
    .selectFrom('attempt_hints')
    .selectAll()
    .where('attempt_id', '=', attemptId)
    .orderBy('revealed_at')
    .execute();
}

/**
 * Takes a section for shipping, atomically: only one caller wins, whatever the number of service
 * instances (a conditional UPDATE is serialised by the row lock; the loser sees the new status and
 * matches nothing). Claimable: a pending section (`not_due`, `waiting_on_artifact`), a `failed`
 * one last tried before `retryBefore`, or a `shipping` one whose claim expired (its instance died).
 */
export async function claimSection(
  db: Db,
  key: { attemptId: string; sectionKey: string },
  claim: {
    owner: string;
    now: Date;
    leaseUntil: Date;
    retryBefore: Date;
    /** The attempt's start the caller read: a redo since (a new start) makes the claim miss. */
    startedAt: Date;
  },
): Promise<AttemptSectionRow | undefined> {
  return db
    .updateTable('attempt_sections')
    .set({
      status: 'shipping',
      lease_owner: claim.owner,
      lease_until: claim.leaseUntil,
      last_try_at: claim.now,
      error: null,
    })
    .where('attempt_id', '=', key.attemptId)
    .where('section_key', '=', key.sectionKey)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('attempts')
          .select('attempts.id')
          .where('attempts.id', '=', key.attemptId)
          .where('attempts.state', '=', 'running')
          .where('attempts.started_at', '=', claim.startedAt),
      ),
    )
    .where((eb) =>
      eb.or([
        eb('status', 'in', ['not_due', 'waiting_on_artifact']),
        eb.and([
          eb('status', '=', 'failed'),
          eb.or([eb('last_try_at', 'is', null), eb('last_try_at', '<=', claim.retryBefore)]),
        ]),
        eb.and([eb('status', '=', 'shipping'), eb('lease_until', '<', claim.now)]),
      ]),
    )
    .returningAll()
    .executeTakeFirst();
}

/** Records the end of a claimed shipment (only while the claim is still this owner's). */
export async function finishSection(
  db: Db,
  key: { attemptId: string; sectionKey: string; owner: string },
  result: { status: 'shipped' | 'failed'; shipped: number; failed: number; error: string | null; now: Date },
): Promise<boolean> {
  const updated = await db
    .updateTable('attempt_sections')
    .set({
      status: result.status,
      events_shipped: result.shipped,
      events_failed: result.failed,
      error: result.error,
      shipped_at: result.status === 'shipped' ? result.now : null,
      lease_owner: null,
      lease_until: null,
    })
    .where('attempt_id', '=', key.attemptId)
    .where('section_key', '=', key.sectionKey)
    .where('status', '=', 'shipping')
    .where('lease_owner', '=', key.owner)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** Gives a claimed section back (a shipment cut off by a shutdown): due again at once, for any instance's tick. */
export async function releaseSection(
  db: Db,
  key: { attemptId: string; sectionKey: string; owner: string },
  now: Date,
): Promise<void> {
  await db
    .updateTable('attempt_sections')
    .set({ status: 'not_due', releases_at: now, lease_owner: null, lease_until: null })
    .where('attempt_id', '=', key.attemptId)
    .where('section_key', '=', key.sectionKey)
    .where('status', '=', 'shipping')
    .where('lease_owner', '=', key.owner)
    .execute();
}

/** A condition on attempt_sections rows: their attempt is still in the run that began at `startedAt`. */
export function sameRun(attemptId: string, startedAt: Date) {
  return (eb: ExpressionBuilder<Database, 'attempt_sections'>) =>
    eb.exists(
      eb
        .selectFrom('attempts')
        .select('attempts.id')
        .where('attempts.id', '=', attemptId)
        .where('attempts.state', '=', 'running')
        .where('attempts.started_at', '=', startedAt),
    );
}
