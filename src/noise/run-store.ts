import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Database, NoiseRunRow } from '../db/schema.ts';
import { storableText } from '../db/storable.ts';
import { cutAt } from '../siems/shared/siem-message.ts';
import type { DispatchTrigger } from './dispatch-types.ts';
import { type FinalRunStatus, OPEN_STATUSES, type RunStatus } from './run-status.ts';

/** A run row as the API shows it (decisions.md §4). */
export interface RunView {
  id: string;
  job_id: string;
  siem: string;
  trigger: DispatchTrigger;
  status: RunStatus;
  events_shipped: number;
  events_failed: number;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** Longest error text kept on a run row. */
export const MAX_RUN_ERROR_LENGTH = 2000;

/**
 * Creates one run row per target and returns `{ siem: run id }` (spec 2.4: rows exist before the
 * dispatch). Rows start `pending`, or `skipped` with a reason when the job was already running.
 */
export async function createRunRows(
  db: Kysely<Database>,
  input: {
    jobId: string;
    targets: readonly string[];
    trigger: DispatchTrigger;
    now: number;
    status?: 'pending' | 'skipped';
    owner?: string | null;
    error?: string | null;
  },
): Promise<Record<string, string>> {
  const runIds: Record<string, string> = {};
  const at = new Date(input.now);
  const skipped = input.status === 'skipped';
  const rows = input.targets.map((siem) => {
    const id = randomUUID();
    runIds[siem] = id;
    return {
      id,
      job_id: input.jobId,
      siem,
      trigger: input.trigger,
      status: input.status ?? 'pending',
      owner: input.owner ?? null,
      error: input.error ? clip(input.error) : null,
      created_at: at,
      finished_at: skipped ? at : null,
    };
  });
  if (rows.length > 0) await db.insertInto('noise_runs').values(rows).execute();
  return runIds;
}

/** pending → running for the given rows, stamped with the dispatch's lease owner. */
export async function markRunsRunning(
  db: Kysely<Database>,
  runIds: readonly string[],
  owner: string,
  now: number,
): Promise<number> {
  if (runIds.length === 0) return 0;
  const res = await db
    .updateTable('noise_runs')
    .set({ status: 'running', owner, started_at: new Date(now) })
    .where('id', 'in', runIds)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/**
 * Writes a row's final status, counts and error (what a dispatch does for each target when it
 * ends; finalStatus() derives the status from counts). Only an open row changes: returns false
 * when the row had already ended (e.g. marked failed after its lease expired).
 */
export async function finishRun(
  db: Kysely<Database>,
  runId: string,
  result: { status: FinalRunStatus; events_shipped: number; events_failed: number; error?: string | null },
  now: number,
): Promise<boolean> {
  const res = await db
    .updateTable('noise_runs')
    .set({
      status: result.status,
      events_shipped: result.events_shipped,
      events_failed: result.events_failed,
      error: result.error ? clip(result.error) : null,
      finished_at: new Date(now),
    })
    .where('id', '=', runId)
    .where('status', 'in', OPEN_STATUSES)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Updates the counters of a running row (progress on long dispatches); false when it is not running. */
export async function recordRunProgress(
  db: Kysely<Database>,
  runId: string,
  counts: { events_shipped: number; events_failed: number },
): Promise<boolean> {
  const res = await db
    .updateTable('noise_runs')
    .set({ events_shipped: counts.events_shipped, events_failed: counts.events_failed })
    .where('id', '=', runId)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/**
 * Records the events of the run on its running rows (every target ships all of them), once the
 * archives are prepared and before anything is sent: a row recovered after its dispatch died can
 * then count what was not confirmed shipped as failed (see failedOfOpenRow).
 */
export async function recordRunTotal(
  db: Kysely<Database>,
  runIds: readonly string[],
  events: number,
): Promise<number> {
  if (runIds.length === 0) return 0;
  const res = await db
    .updateTable('noise_runs')
    .set({ events_total: events })
    .where('id', 'in', runIds)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/**
 * events_failed of an open row that is failed without its dispatch's own count (the dispatch died,
 * threw, or returned without finishing it): every event of the run not confirmed shipped. The
 * confirmed ones are the last progress written, at most one progress window (noise-dispatcher.ts)
 * behind what the SIEM acknowledged. When the total was never written (the run died before its
 * archives were prepared, when nothing had been sent, or on a row of an earlier version), the
 * counts stay as they are.
 */
const failedOfOpenRow = sql<number>`case when events_total is null then events_failed
  else greatest(events_total - events_shipped, 0) end`;

/**
 * pending → running for rows no dispatch owns yet, stamped with the dispatch's lease owner and its
 * trigger: a row records the dispatch that ran it (spec 4.1 `trigger`), whoever created it.
 */
export async function startRuns(
  db: Kysely<Database>,
  runIds: readonly string[],
  run: { owner: string; trigger: DispatchTrigger; now: number },
): Promise<number> {
  if (runIds.length === 0) return 0;
  const res = await db
    .updateTable('noise_runs')
    .set({ status: 'running', owner: run.owner, trigger: run.trigger, started_at: new Date(run.now) })
    .where('id', 'in', runIds)
    .where('status', '=', 'pending')
    .where('owner', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/**
 * pending → skipped with a reason (the job was already running), with the trigger of the refused
 * dispatch. Rows a dispatch owns are never touched: they are that dispatch's to finish.
 */
export async function skipRuns(
  db: Kysely<Database>,
  runIds: readonly string[],
  reason: string,
  now: number,
  trigger: DispatchTrigger,
): Promise<number> {
  if (runIds.length === 0) return 0;
  const res = await db
    .updateTable('noise_runs')
    .set({ status: 'skipped', trigger, error: clip(reason), finished_at: new Date(now) })
    .where('id', 'in', runIds)
    .where('status', '=', 'pending')
    .where('owner', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/**
 * Marks the given rows that are still open as failed with `error`, the events not confirmed
 * shipped counted failed (failedOfOpenRow); returns how many changed.
 */
export async function failOpenRuns(
  db: Kysely<Database>,
  runIds: readonly string[],
  error: string,
  now: number,
): Promise<number> {
  if (runIds.length === 0) return 0;
  const res = await db
    .updateTable('noise_runs')
    .set({
      status: 'failed',
      events_failed: failedOfOpenRow,
      error: clip(error),
      finished_at: new Date(now),
    })
    .where('id', 'in', runIds)
    .where('status', 'in', OPEN_STATUSES)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/**
 * Marks the open rows of a job taken by `owner` (a dispatch whose lease expired: its instance died
 * or stalled) as failed: events_shipped stays the last progress the dispatch wrote, and every
 * other event of the run is counted failed (failedOfOpenRow), so shipped + failed = events.
 */
export async function failStaleRuns(
  db: Kysely<Database>,
  jobId: string,
  owner: string,
  error: string,
  now: number,
): Promise<number> {
  const res = await db
    .updateTable('noise_runs')
    .set({
      status: 'failed',
      events_failed: failedOfOpenRow,
      error: clip(error),
      finished_at: new Date(now),
    })
    .where('job_id', '=', jobId)
    .where('owner', '=', owner)
    .where('status', 'in', OPEN_STATUSES)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/** The rows with the given ids (any order). */
export async function getRuns(db: Kysely<Database>, runIds: readonly string[]): Promise<RunView[]> {
  if (runIds.length === 0) return [];
  const rows = await db.selectFrom('noise_runs').selectAll().where('id', 'in', runIds).execute();
  return rows.map(toRunView);
}

/** Run rows, newest first, with optional filters and keyset pagination on `before` (a run id). */
export async function listRuns(
  db: Kysely<Database>,
  q: { job_id?: string; siem?: string; status?: RunStatus; before?: string; limit: number },
): Promise<RunView[]> {
  let query = db
    .selectFrom('noise_runs')
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(q.limit);
  if (q.job_id) query = query.where('job_id', '=', q.job_id);
  if (q.siem) query = query.where('siem', '=', q.siem);
  if (q.status) query = query.where('status', '=', q.status);
  if (q.before) {
    const anchor = await db
      .selectFrom('noise_runs')
      .select(['created_at', 'id'])
      .where('id', '=', q.before)
      .executeTakeFirst();
    if (anchor) {
      query = query.where((eb) =>
        eb.or([
          eb('created_at', '<', anchor.created_at),
          eb.and([eb('created_at', '=', anchor.created_at), eb('id', '<', anchor.id)]),
        ]),
      );
    }
  }
  const rows = await query.execute();
  return rows.map(toRunView);
}

/** A run row as the API shows it. */
export function toRunView(row: NoiseRunRow): RunView {
  return {
    id: row.id,
    job_id: row.job_id,
    siem: row.siem,
    trigger: row.trigger as DispatchTrigger,
    status: row.status as RunStatus,
    events_shipped: row.events_shipped,
    events_failed: row.events_failed,
    error: row.error,
    created_at: row.created_at.toISOString(),
    started_at: row.started_at?.toISOString() ?? null,
    finished_at: row.finished_at?.toISOString() ?? null,
  };
}

/** An error for a run row: storable (a SIEM's answer may hold NUL), cut to length on a code point. */
function clip(text: string): string {
  const storable = storableText(text);
  return storable.length > MAX_RUN_ERROR_LENGTH ? `${cutAt(storable, MAX_RUN_ERROR_LENGTH - 1)}…` : storable;
}
