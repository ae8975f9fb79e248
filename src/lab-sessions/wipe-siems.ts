import { type AuditEntry, recordAudit } from '../audit/audit-log.ts';
import type { Actor } from '../auth/sessions.ts';
import type { AppContext } from '../context.ts';
import { loadDestination } from '../destinations/destination-service.ts';
import type { Destination } from '../destinations/destination-types.ts';
import { AppError, invalidInput } from '../errors.ts';
import { listJobRows, type NoiseJob } from '../noise/job-store.ts';
import type { DispatchResult } from '../noise/noise-runner.ts';
import type { SiemClient } from '../siems/siem-client.ts';

/** Answer of DELETE /api/sessions (spec 4.3, decisions.md §5). */
export interface WipeResult {
  ok: boolean;
  wiped: string[];
  skipped: string[];
  re_fired: Array<{ siem: string; job_ids: string[] }>;
  re_fire_errors: string[];
  /** SIEMs whose wipe failed (only when ok is false). */
  errors?: Array<{ siem: string; message: string }>;
  /** SIEM Q destinations with offense cleanup: the offenses of their log sources closed (spec 3.4). */
  offense_cleanup?: OffenseCleanupLine[];
}

/** One SIEM's offense cleanup in a wipe's answer. */
export interface OffenseCleanupLine {
  siem: string;
  status: 'ok' | 'partial' | 'failed';
  found: number;
  closed: number;
  failed: number;
  error: string | null;
}

/** How long the answer waits for re-fired noise runs (decisions.md §5). */
export const RE_FIRE_WAIT_MS = 120_000;

type Deps = Pick<AppContext, 'db' | 'secretBox' | 'siems' | 'clock' | 'log' | 'noise' | 'logSources'>;

/**
 * Permanently deletes the lab's events from each named SIEM whose kind can wipe: first the
 * non-default custom indexes that noise jobs targeting it use, then its default index; a SIEM
 * whose kind cannot delete (syslog_tcp) is skipped. Each wipe is audited before it
 * starts (no audit record, no delete) and after it ends. Then every enabled job with
 * propagate_on_wipe that targets a wiped SIEM is re-fired to the wiped SIEMs it targets.
 */
export async function wipeSiems(
  deps: Deps,
  by: { actor: Actor | null; ip: string | null },
  names: readonly string[],
  options: { reFireWaitMs?: number } = {},
): Promise<WipeResult> {
  // Names exactly as configured (spec 2.1): a padded name is unknown, not trimmed into another.
  const siems = [...new Set(names)];
  if (siems.length === 0 || siems.some((s) => s.trim() === '')) {
    throw invalidInput('Nothing to wipe', {
      siem: 'name at least one SIEM destination (?siem=name, repeatable)',
    });
  }
  const destinations: Destination[] = [];
  const unknown: string[] = [];
  for (const name of siems) {
    try {
      destinations.push(await loadDestination(deps, name));
    } catch (err) {
      if (err instanceof AppError && err.code === 'not_found') unknown.push(name);
      else throw err;
    }
  }
  if (unknown.length > 0) {
    throw invalidInput('Unknown SIEM destination; nothing was wiped', {
      siem: `no destination is named ${unknown.map((u) => `"${u}"`).join(', ')}`,
    });
  }

  const jobs = await listJobRows(deps.db);
  const [outcomes, cleanups] = await Promise.all([
    Promise.all(destinations.map((d) => wipeOne(deps, by, d, jobs))),
    Promise.all(destinations.map((d) => closeOffenses(deps, by, d))),
  ]);
  const offense_cleanup = cleanups.filter((c): c is OffenseCleanupLine => c !== null);
  const wiped = outcomes.filter((o) => o.kind === 'wiped').map((o) => o.siem);
  const skipped = outcomes.filter((o) => o.kind === 'skipped').map((o) => o.siem);
  const errors = outcomes.flatMap((o) => (o.kind === 'failed' ? [{ siem: o.siem, message: o.message }] : []));

  const { re_fired, re_fire_errors } = await reFire(
    deps,
    by,
    jobs,
    wiped,
    options.reFireWaitMs ?? RE_FIRE_WAIT_MS,
  );
  return {
    ok: errors.length === 0,
    wiped,
    skipped,
    re_fired,
    re_fire_errors,
    ...(errors.length > 0 ? { errors } : {}),
    ...(offense_cleanup.length > 0 ? { offense_cleanup } : {}),
  };
}

/**
 * Spec 3.4: a wipe also closes the open offenses of every log source provisioned on a SIEM Q
 * destination with offense cleanup on (all exercises, each offense once). Audited like the wipe;
 * its failure is reported, never a failed wipe (the events are what a wipe deletes).
 */
async function closeOffenses(
  deps: Deps,
  by: { actor: Actor | null; ip: string | null },
  destination: Destination,
): Promise<OffenseCleanupLine | null> {
  const siem = destination.name;
  let line: OffenseCleanupLine;
  try {
    const result = await deps.logSources.closeOffensesForWipe(destination);
    if (result === null) return null;
    line = {
      siem,
      status: result.status,
      found: result.found,
      closed: result.closed,
      failed: result.failed,
      error: result.error,
    };
  } catch (err) {
    line = {
      siem,
      status: 'failed',
      found: 0,
      closed: 0,
      failed: 0,
      error: err instanceof Error ? err.message : String(err),
    };
  }
  const { siem: _siem, ...details } = line;
  await recordAudit(deps.db, deps.clock.now(), {
    actor: by.actor,
    ip: by.ip,
    action: 'session.wipe_offenses',
    target: siem,
    outcome: line.status === 'ok' ? 'success' : 'failure',
    details,
  }).catch((err: unknown) =>
    deps.log.error({ err, siem }, 'Audit record of an offense cleanup could not be written.'),
  );
  return line;
}

type WipeOutcome =
  | { kind: 'wiped'; siem: string }
  | { kind: 'skipped'; siem: string }
  | { kind: 'failed'; siem: string; message: string };

/** Indexes to wipe on one SIEM: custom ones of its noise jobs first, then its default. */
export function indexesToWipe(destination: Destination, jobs: readonly NoiseJob[]): string[] {
  const custom = new Set<string>();
  for (const job of jobs) {
    if (!job.targets.includes(destination.name)) continue;
    for (const archive of job.archives) {
      if (archive.index_mode !== 'default' && archive.index && archive.index !== destination.index) {
        custom.add(archive.index);
      }
    }
  }
  const list = [...custom].sort();
  if (destination.index) list.push(destination.index);
  return list;
}

async function wipeOne(
  deps: Deps,
  by: { actor: Actor | null; ip: string | null },
  destination: Destination,
  jobs: readonly NoiseJob[],
): Promise<WipeOutcome> {
  const siem = destination.name;
  let indexes: string[] | undefined;
  // The `started` record's id: the wipe's end names it (details.started_id), as a session start's
  // does, so a `started` record nothing names is a wipe whose process died on the way.
  let startedId: string | undefined;
  const audit = (outcome: AuditEntry['outcome'], details: Record<string, unknown>) =>
    recordAudit(deps.db, deps.clock.now(), {
      actor: by.actor,
      ip: by.ip,
      action: 'session.wipe',
      target: siem,
      outcome,
      details: {
        driver: destination.driver,
        ...(indexes === undefined ? {} : { indexes }),
        ...(startedId === undefined ? {} : { started_id: startedId }),
        ...details,
      },
    });
  // An end record that cannot be written is logged; the wipe's answer still says what happened.
  const unrecorded = (err: unknown) =>
    deps.log.error({ err, siem }, 'Audit record of a wipe could not be written.');
  if (!deps.siems.kindOf(destination).capabilities.wipe) {
    // Nothing is deleted through this kind, but every wipe request leaves its trace.
    await audit('success', { skipped: true, reason: `${destination.driver} has no delete API` }).catch(
      unrecorded,
    );
    return { kind: 'skipped', siem };
  }
  indexes = indexesToWipe(destination, jobs);
  if (!destination.index) {
    const message = `SIEM "${siem}" has no default index configured, so its events cannot be wiped safely; set its index`;
    await audit('failure', { error: message }).catch(unrecorded);
    return { kind: 'failed', siem, message };
  }
  try {
    // Written before anything is deleted: without an audit record there is no wipe.
    startedId = await audit('started', {});
  } catch (err) {
    deps.log.error({ err, siem }, 'Audit record could not be written; wipe not started.');
    return {
      kind: 'failed',
      siem,
      message: `SIEM "${siem}" was not wiped: the audit record could not be written`,
    };
  }
  let client: SiemClient | undefined;
  try {
    // Built inside: a client that cannot be built is a failed wipe, audited like any other.
    client = deps.siems.client(destination);
    if (!client.wipe) throw new Error(`the ${destination.driver} client has no wipe`);
    const results = await client.wipe(indexes);
    const failed = results.filter((r) => !r.ok);
    const deleted = Object.fromEntries(results.map((r) => [r.index, r.ok ? (r.deleted ?? null) : null]));
    if (failed.length > 0 || results.length !== indexes.length) {
      const why =
        failed.map((r) => `${r.index}: ${r.ok ? '' : r.error}`).join('; ') || 'not every index was wiped';
      const message = `Wiping SIEM "${siem}" failed: ${why}`;
      await audit('failure', { deleted, error: message }).catch(unrecorded);
      return { kind: 'failed', siem, message };
    }
    await audit('success', { deleted }).catch(unrecorded);
    return { kind: 'wiped', siem };
  } catch (err) {
    const message = `Wiping SIEM "${siem}" failed: ${err instanceof Error ? err.message : String(err)}`;
    await audit('failure', { error: message }).catch(unrecorded);
    return { kind: 'failed', siem, message };
  } finally {
    await client?.close().catch(unrecorded);
  }
}

async function reFire(
  deps: Deps,
  by: { actor: Actor | null; ip: string | null },
  jobs: readonly NoiseJob[],
  wiped: readonly string[],
  waitMs: number,
): Promise<Pick<WipeResult, 're_fired' | 're_fire_errors'>> {
  const re_fire_errors: string[] = [];
  const bySiem = new Map<string, string[]>();
  const running: Array<{ job: NoiseJob; done: Promise<DispatchResult> }> = [];
  for (const job of jobs) {
    if (!job.enabled || !job.propagate_on_wipe) continue;
    const targets = job.targets.filter((t) => wiped.includes(t));
    if (targets.length === 0) continue;
    try {
      const handle = await deps.noise.runner.runJob(job.id, {
        trigger: 'manual',
        targets,
        by: { actor: by.actor, ip: by.ip },
      });
      for (const t of targets) bySiem.set(t, [...(bySiem.get(t) ?? []), job.id]);
      // Marked handled at once: it may settle while the next job is being started, and its
      // rejection is read below (an unhandled one would end the process).
      handle.done.catch(() => {});
      running.push({ job, done: handle.done });
    } catch (err) {
      re_fire_errors.push(
        `Noise job "${job.name}" (${job.id}) was not re-fired: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), waitMs);
    timer.unref();
  });
  try {
    await Promise.all(
      running.map(async ({ job, done }) => {
        let result: DispatchResult | 'timeout';
        try {
          result = await Promise.race([done, timeout]);
        } catch (err) {
          // The data is already gone: a re-fire failure is a line, never a failed wipe (spec part 7).
          re_fire_errors.push(
            `Noise job "${job.name}" (${job.id}) re-fire failed: ${err instanceof Error ? err.message : String(err)}`,
          );
          return;
        }
        if (result === 'timeout') return; // still running: its outcome lands on its run rows
        for (const run of result.runs) {
          if (run.status === 'succeeded') continue;
          re_fire_errors.push(
            `Noise job "${job.name}" (${job.id}) re-fired to "${run.siem}" ended ${run.status}${run.error ? `: ${run.error}` : ''}`,
          );
        }
        // A target whose row could not be read back still counts as failed.
        for (const siem of result.failed) {
          if (result.runs.some((r) => r.siem === siem)) continue;
          re_fire_errors.push(`Noise job "${job.name}" (${job.id}) re-fired to "${siem}" did not succeed`);
        }
      }),
    );
  } finally {
    clearTimeout(timer);
  }
  const re_fired = wiped
    .filter((s) => bySiem.has(s))
    .map((siem) => ({ siem, job_ids: bySiem.get(siem) ?? [] }));
  return { re_fired, re_fire_errors };
}
