import type { Kysely } from 'kysely';
import type { AfterCompleteHook, AfterCompleteResult, BeforeShipGate } from '../attempts/attempt-hooks.ts';
import { sectionIdentity } from '../attempts/section-identity.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import type { Destination } from '../destinations/destination-types.ts';
import { AppError } from '../errors.ts';
import type { Exercise } from '../exercises/exercise-types.ts';
import type { Problem, PublishCheck, Warning } from '../exercises/publish-exercise.ts';
import type { Logger } from '../logger.ts';
import type { ConsoleFailure, LogSourceAdmin } from '../siems/log-source-admin.ts';
import type { SiemRegistry } from '../siems/registry.ts';
import {
  exerciseLogSources,
  exercisesNaming,
  identifierOwner,
  type LogSourceRow,
  saveLogSource,
  siemLogSources,
} from './log-source-store.ts';

/** What the log-source feature uses. */
export interface LogSourceDeps {
  readonly db: Kysely<Database>;
  readonly siems: SiemRegistry;
  readonly clock: Clock;
  readonly log: Logger;
  /** Aborted at shutdown: an offense cleanup stops (what it did not close is counted failed). */
  readonly stopping?: AbortSignal;
}

/** An offense cleanup (completion, redo, wipe) gives up after this long, so no request waits for minutes. */
export const OFFENSE_CLEANUP_DEADLINE_MS = 60_000;

/** Why a section is not ready for shipping (spec 3.3). */
export type BlockReason = 'missing' | 'failed' | 'deploy_required';

/** A section that blocks an attempt, as `409 siem_q_not_ready` lists it (decisions.md §7). */
export interface BlockingSection {
  /** The section's id; null for a sectionless exercise's log source. */
  readonly section: string | null;
  readonly name: string;
  readonly identifier: string;
  readonly reason: BlockReason;
}

/** One offense cleanup (decisions.md §7 result rows), stored on the attempt or in a wipe's answer. */
export interface OffenseCleanupResult extends AfterCompleteResult {
  readonly status: 'ok' | 'partial' | 'failed';
  readonly closed: number;
  readonly failed: number;
  readonly found: number;
  readonly error: string | null;
}

/** What one cleanup did, without the attempt. */
export interface OffenseCleanupCounts {
  readonly status: 'ok' | 'partial' | 'failed';
  readonly found: number;
  readonly closed: number;
  readonly failed: number;
  readonly error: string | null;
}

/** One log source unit of an exercise: a section, or the sectionless exercise itself. */
interface Unit {
  readonly sectionId: string | null;
  readonly name: string;
  readonly identifier: string;
  /** The log source's name in the console: `Socdrill {exercise title} / {section name}`. */
  readonly sourceName: string;
}

/**
 * SIEM Q log sources of exercises (spec 2.6, 3.1, 3.3, 3.4; decisions.md §7), for destinations
 * whose client offers `logSources` (the kind's capability): provisioning at publish, the readiness
 * gate before an attempt ships, offense cleanup after an attempt and at a wipe, and the console
 * check of a session start. The console work itself is the kind's (src/siems/log-source-admin.ts).
 */
export class LogSourceService {
  readonly #deps: LogSourceDeps;

  constructor(deps: LogSourceDeps) {
    this.#deps = deps;
  }

  /** The publish check: a log source ensured for every section × provisioning destination. */
  readonly publishCheck: PublishCheck = {
    name: 'siem_q_log_sources',
    check: (exercise, destinations) => this.provision(exercise, destinations),
  };

  /** The gate of attempt start, redo and Ship logs. */
  readonly gate: BeforeShipGate = {
    name: 'siem_q_readiness',
    check: (exercise, destination) => this.assertReady(exercise, destination),
  };

  /** Offense cleanup after completion and after a redo (the attempt's window). */
  readonly cleanup: AfterCompleteHook = {
    name: 'siem_q_offense_cleanup',
    run: (exercise, destination, attempt) =>
      this.closeExerciseOffenses(exercise, destination, {
        attemptId: attempt.id,
        from: attempt.startedAt.getTime(),
        until: (attempt.completedAt ?? new Date(this.#deps.clock.now())).getTime(),
      }),
  };

  /**
   * Provisions (idempotently) the log source of every section on every enabled destination that
   * wants them; answers every problem at once: `siem_q_unreachable` (console down, or refusing the
   * token), `siem_q_error` (siem, section, message), `siem_q_deploy_required` (siem, section; also
   * a warning). Rows are stored as found, so the gate and the API show the same state.
   */
  async provision(
    exercise: Exercise,
    destinations: readonly Destination[],
  ): Promise<{ problems: Problem[]; warnings: Warning[] }> {
    const problems: Problem[] = [];
    const warnings: Warning[] = [];
    for (const destination of destinations) {
      await this.#withAdmin(destination, async (admin) => {
        if (!admin.provision) return;
        const siem = destination.name;
        const setup = await admin.setup(undefined, { fresh: true });
        if (!setup.ok) {
          problems.push(consoleProblem(siem, setup));
          return;
        }
        const rows = await exerciseLogSources(this.#deps.db, exercise.id, siem);
        for (const unit of units(exercise, siem)) {
          const known = rows.find((r) => r.sectionId === unit.sectionId);
          const owner = await identifierOwner(this.#deps.db, unit.identifier, exercise.id, siem);
          if (owner !== null) {
            const message = `log source identifier "${unit.identifier}" of ${label(unit)} is already provisioned for ${owner.exerciseId === exercise.id ? 'this exercise' : `exercise ${owner.exerciseId}`} on SIEM "${owner.siem}" (destination names that differ only in case, or beyond 63 characters, give the same identifier); identifiers are never shared`;
            await this.#save(exercise.id, siem, unit, { status: 'failed', error: message, known });
            problems.push({ code: 'siem_q_error', siem, ...sectionOf(unit), message });
            continue;
          }
          const outcome = await admin.ensure({
            identifier: unit.identifier,
            name: unit.sourceName,
            description: `Socdrill exercise ${exercise.id}, ${label(unit)}; events arrive with HOSTNAME ${unit.identifier}`,
            knownId: known?.logSourceId ?? null,
          });
          if (!outcome.ok) {
            await this.#save(exercise.id, siem, unit, {
              status: 'failed',
              error: outcome.message,
              known,
            });
            if (outcome.reason === 'unreachable' || outcome.reason === 'auth') {
              problems.push(consoleProblem(siem, outcome));
              return;
            }
            problems.push({ code: 'siem_q_error', siem, ...sectionOf(unit), message: outcome.message });
            continue;
          }
          const { source } = outcome;
          await this.#save(exercise.id, siem, unit, {
            status: 'provisioned',
            error: null,
            logSourceId: source.id,
            requiresDeploy: source.requiresDeploy,
            name: source.name,
          });
          if (source.requiresDeploy) {
            const message = `SIEM "${siem}" accepted log source "${source.name}" (id ${source.id}) for ${label(unit)}, but it needs "Deploy Changes" in the SIEM Q console; deploy there, then publish again`;
            problems.push({ code: 'siem_q_deploy_required', siem, ...sectionOf(unit), message });
            warnings.push({ code: 'siem_q_deploy_required', siem, ...sectionOf(unit), message });
          }
        }
      });
    }
    return { problems, warnings };
  }

  /**
   * The runtime gate (spec 3.3): every section's log source must be provisioned, known by id and
   * deployed. Rows that look ready are read live (a log source deleted in the console, or waiting
   * for a deploy, is caught here); the rows are updated with what the console says. Throws `409
   * siem_q_not_ready` listing every blocking section, or `500 siem_q_unreachable` naming the
   * console when it cannot be asked.
   */
  async assertReady(exercise: Exercise, destination: Destination): Promise<void> {
    await this.#withAdmin(destination, async (admin) => {
      if (!admin.provision) return;
      const siem = destination.name;
      const rows = await exerciseLogSources(this.#deps.db, exercise.id, siem);
      const blocking: BlockingSection[] = [];
      const toRead: Array<{ unit: Unit; row: LogSourceRow & { logSourceId: number } }> = [];
      for (const unit of units(exercise, siem)) {
        const row = rows.find((r) => r.sectionId === unit.sectionId);
        if (row === undefined || row.status === 'missing' || row.logSourceId === null) {
          blocking.push(block(unit, row?.status === 'failed' ? 'failed' : 'missing'));
        } else if (row.status === 'failed') blocking.push(block(unit, 'failed'));
        else if (row.identifier !== unit.identifier) {
          // The section moved since publish: its events would carry a HOSTNAME no log source has.
          await this.#save(exercise.id, siem, unit, {
            status: 'missing',
            error: `the section's identifier is now "${unit.identifier}" (it was provisioned as "${row.identifier}"); publish the exercise again`,
            known: row,
          });
          blocking.push(block(unit, 'missing'));
        } else toRead.push({ unit, row: row as LogSourceRow & { logSourceId: number } });
      }
      if (toRead.length > 0) {
        const live = await admin.read(toRead.map((r) => r.row.logSourceId));
        if (!live.ok) throw consoleError(siem, admin, live);
        for (const { unit, row } of toRead) {
          const source = live.sources.get(row.logSourceId);
          if (source === undefined) {
            await this.#save(exercise.id, siem, unit, {
              status: 'missing',
              error: `log source ${row.logSourceId} no longer exists in the SIEM Q console; publish the exercise again to provision it`,
              known: row,
            });
            blocking.push(block(unit, 'missing'));
            continue;
          }
          if (!source.enabled || source.identifier !== unit.identifier) {
            const why = !source.enabled
              ? `log source ${source.id} is disabled in the SIEM Q console: enable it there`
              : `log source ${source.id} now has the identifier "${source.identifier}" in the SIEM Q console, not "${unit.identifier}"; publish the exercise again`;
            await this.#save(exercise.id, siem, unit, { status: 'failed', error: why, known: row });
            blocking.push(block(unit, 'failed'));
            continue;
          }
          if (source.requiresDeploy !== row.requiresDeploy) {
            await this.#save(exercise.id, siem, unit, {
              status: 'provisioned',
              error: null,
              logSourceId: source.id,
              requiresDeploy: source.requiresDeploy,
              name: source.name,
            });
          }
          if (source.requiresDeploy) blocking.push(block(unit, 'deploy_required'));
        }
      }
      if (blocking.length === 0) return;
      // In the exercise's section order, whichever check found them.
      const order = units(exercise, siem).map((u) => u.sectionId);
      blocking.sort((a, b) => order.indexOf(a.section) - order.indexOf(b.section));
      const described = blocking
        .map(
          (b) =>
            `${b.section === null ? 'the exercise' : `section "${b.name}"`} (${b.reason.replace('_', ' ')})`,
        )
        .join(', ');
      throw new AppError(
        'siem_q_not_ready',
        `SIEM "${siem}" is not ready for exercise "${exercise.title}": ${described}`,
        { details: { siem, sections: blocking } },
      );
    });
  }

  /**
   * Session start's check (spec 4.2): with provisioning on, the console must answer and the event
   * collector resolve, or the start fails at once (500 naming the console) instead of shipping.
   */
  async assertConsoleReady(destination: Destination): Promise<void> {
    await this.#withAdmin(destination, async (admin) => {
      if (!admin.provision) return;
      // Asked now, not from the cache: the start is refused when the console is down now.
      const setup = await admin.setup(undefined, { fresh: true });
      if (!setup.ok) throw consoleError(destination.name, admin, setup);
    });
  }

  /**
   * Closes the offenses of an exercise's log sources (every provisioned section's, and the
   * sectionless one's) opened in the window, each once; null when the destination has no
   * offense cleanup. Never throws: a failure is the result's status.
   */
  async closeExerciseOffenses(
    exercise: Exercise,
    destination: Destination,
    window: { attemptId: string; from: number; until: number },
  ): Promise<OffenseCleanupResult | null> {
    try {
      return await this.#withAdmin(destination, async (admin) => {
        if (!admin.offenseCleanup) return null;
        const signal = this.#cleanupSignal();
        const rows = await exerciseLogSources(this.#deps.db, exercise.id, destination.name);
        const ids = rows.map((r) => r.logSourceId).filter((id): id is number => id !== null);
        // Plus the exercise-level log source (spec 3.4 "legacy"), when the console has one.
        const legacyId = sectionIdentity(exercise.id, null, destination.name);
        if (!rows.some((r) => r.sectionId === null)) {
          const legacy = await admin.find([legacyId], signal);
          if (!legacy.ok) return failedCleanup(window.attemptId, legacy.message);
          const found = legacy.sources.get(legacyId);
          if (found !== undefined) ids.push(found.id);
        }
        const outcome = await admin.closeOffenses(
          { logSourceIds: [...new Set(ids)], openedFrom: window.from, openedUntil: window.until },
          signal,
        );
        const result = cleanupResult(window.attemptId, outcome);
        this.#deps.log.info(
          { attempt: window.attemptId, siem: destination.name, ...outcomeLog(result) },
          'Offense cleanup ran.',
        );
        return result;
      });
    } catch (err) {
      return failedCleanup(window.attemptId, err instanceof Error ? err.message : String(err));
    }
  }

  /**
   * A session wipe's cleanup (spec 3.4): the open offenses of every log source provisioned on the
   * destination, all exercises, any time; each once. Null when the destination has no offense
   * cleanup.
   */
  async closeOffensesForWipe(destination: Destination): Promise<OffenseCleanupCounts | null> {
    return this.#withAdmin(destination, async (admin) => {
      if (!admin.offenseCleanup) return null;
      const signal = this.#cleanupSignal();
      const rows = await siemLogSources(this.#deps.db, destination.name);
      const ids = new Set(rows.map((r) => r.logSourceId).filter((id): id is number => id !== null));
      // Plus every exercise-level ("legacy") log source of exercises that name this SIEM.
      const legacy = (await exercisesNaming(this.#deps.db, destination.name)).map((id) =>
        sectionIdentity(id, null, destination.name),
      );
      if (legacy.length > 0) {
        const found = await admin.find(legacy, signal);
        if (!found.ok)
          return { status: 'failed' as const, found: 0, closed: 0, failed: 0, error: found.message };
        for (const source of found.sources.values()) ids.add(source.id);
      }
      const outcome = await admin.closeOffenses({ logSourceIds: [...ids] }, signal);
      const { status, found, closed, failed, error } = cleanupResult(null, outcome);
      return { status, found, closed, failed, error };
    });
  }

  /** The rows of an exercise for `GET /api/exercises/:id/log-sources`. */
  async list(exerciseId: string): Promise<LogSourceRow[]> {
    return exerciseLogSources(this.#deps.db, exerciseId);
  }

  // The deadline of one offense cleanup, cut short by shutdown.
  #cleanupSignal(): AbortSignal {
    const deadline = AbortSignal.timeout(OFFENSE_CLEANUP_DEADLINE_MS);
    return this.#deps.stopping ? AbortSignal.any([this.#deps.stopping, deadline]) : deadline;
  }

  // Runs `work` with the destination's console admin when its kind has one; closes the client.
  async #withAdmin<T>(
    destination: Destination,
    work: (admin: LogSourceAdmin) => Promise<T>,
  ): Promise<T | null> {
    const kind = this.#deps.siems.find(destination.driver);
    if (kind === undefined || !kind.capabilities.logSources) return null;
    const client = this.#deps.siems.client(destination);
    try {
      if (client.logSources === undefined) return null;
      return await work(client.logSources);
    } finally {
      await client.close();
    }
  }

  async #save(
    exerciseId: string,
    siem: string,
    unit: Unit,
    change: {
      status: LogSourceRow['status'];
      error: string | null;
      known?: LogSourceRow | undefined;
      logSourceId?: number;
      requiresDeploy?: boolean;
      name?: string;
    },
  ): Promise<void> {
    await saveLogSource(
      this.#deps.db,
      {
        exerciseId,
        sectionId: unit.sectionId,
        siem,
        identifier: unit.identifier,
        name: change.name ?? change.known?.name ?? unit.sourceName,
        status: change.status,
        logSourceId: change.logSourceId ?? change.known?.logSourceId ?? null,
        requiresDeploy: change.requiresDeploy ?? change.known?.requiresDeploy ?? false,
        error: change.error,
      },
      new Date(this.#deps.clock.now()),
    );
  }
}

/** The log source units of an exercise on one destination (decisions.md §7 identifiers and names). */
function units(exercise: Exercise, siem: string): Unit[] {
  if (exercise.sections.length === 0) {
    return [
      {
        sectionId: null,
        name: exercise.title,
        identifier: sectionIdentity(exercise.id, null, siem),
        sourceName: `Socdrill ${exercise.title}`,
      },
    ];
  }
  return [...exercise.sections]
    .sort((a, b) => a.position - b.position)
    .map((s) => ({
      sectionId: s.id,
      name: s.name,
      identifier: sectionIdentity(exercise.id, s.position, siem),
      sourceName: `Socdrill ${exercise.title} / ${s.name}`,
    }));
}

function label(unit: Unit): string {
  return unit.sectionId === null ? 'the exercise' : `section "${unit.name}"`;
}

function sectionOf(unit: Unit): { section?: string } {
  return unit.sectionId === null ? {} : { section: unit.sectionId };
}

function block(unit: Unit, reason: BlockReason): BlockingSection {
  return { section: unit.sectionId, name: unit.name, identifier: unit.identifier, reason };
}

function consoleProblem(siem: string, failure: ConsoleFailure): Problem {
  return {
    code: failure.reason === 'unreachable' ? 'siem_q_unreachable' : 'siem_q_error',
    siem,
    message: failure.message,
  };
}

function consoleError(siem: string, admin: LogSourceAdmin, failure: ConsoleFailure): AppError {
  return new AppError(
    failure.reason === 'unreachable' ? 'siem_q_unreachable' : 'siem_q_error',
    failure.message,
    { details: { siem, console: admin.console, reason: failure.reason } },
  );
}

function cleanupResult(
  attemptId: string | null,
  outcome: Awaited<ReturnType<LogSourceAdmin['closeOffenses']>>,
): OffenseCleanupResult {
  const status: OffenseCleanupResult['status'] = outcome.listFailed
    ? 'failed'
    : outcome.failed === 0
      ? 'ok'
      : outcome.closed > 0
        ? 'partial'
        : 'failed';
  return {
    attempt_id: attemptId,
    status,
    found: outcome.found,
    closed: outcome.closed,
    failed: outcome.failed,
    error: outcome.errors.length > 0 ? outcome.errors.join('; ') : null,
  };
}

function failedCleanup(attemptId: string, error: string): OffenseCleanupResult {
  return { attempt_id: attemptId, status: 'failed', found: 0, closed: 0, failed: 0, error };
}

function outcomeLog(result: OffenseCleanupResult): Record<string, unknown> {
  return { status: result.status, found: result.found, closed: result.closed, failed: result.failed };
}
