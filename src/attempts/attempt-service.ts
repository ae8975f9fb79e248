import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Actor } from '../auth/sessions.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import type { Destination } from '../destinations/destination-types.ts';
import { AppError, isUuid, notFound } from '../errors.ts';
import { exerciseRow, loadArchives, loadExercise } from '../exercises/exercise-store.ts';
import { type Exercise, LEGACY_SECTION, type StoredArchive } from '../exercises/exercise-types.ts';
import { delayDueAt, evaluateRelease, type ReleaseRule } from '../exercises/release-rule.ts';
import type { Logger } from '../logger.ts';
import { computeShift } from '../pipeline/leef/leef-rebase.ts';
import { findMatchingArtifact, type Artifact as MatchableArtifact } from './artifact-match.ts';
import type { AfterCompleteHook, AttemptHooks } from './attempt-hooks.ts';
import {
  type AttemptRow,
  type AttemptSectionRow,
  attemptFindings,
  attemptHints,
  attemptRow,
  attemptSections,
  claimSection,
  finishSection,
  releaseSection,
  sameRun,
} from './attempt-store.ts';
import { type SectionShipment, type SectionShipperDeps, shipSection } from './section-shipper.ts';

/** Compiled regex answers kept per service instance. */
const MAX_CACHED_MATCHERS = 5000;

/** A failed section is retried by Ship logs no sooner than this after its last try (decisions.md §6). */
export const RETRY_COOLDOWN_MS = 30_000;

/** Per-section reasons of Ship logs to SIEM (spec 3.2). */
export type ShipReason =
  | 'shipped'
  | 'partial'
  | 'already_shipped'
  | 'not_due'
  | 'waiting_on_artifacts'
  | 'shipping'
  | 'cooldown_skipped'
  | 'failed';

/** What attempts use. */
export interface AttemptDeps extends SectionShipperDeps {
  readonly db: Kysely<Database>;
  readonly clock: Clock;
  readonly log: Logger;
  readonly hooks: AttemptHooks;
  /** Names this instance in section claims. */
  readonly owner: string;
}

/** One section of an attempt as shown. */
export interface AttemptSectionView {
  section_id: string;
  name: string;
  position: number | null;
  status: AttemptSectionRow['status'];
  events_shipped: number;
  events_failed: number;
  releases_at?: string;
  waiting_for?: string[];
  error?: string;
  shipped_at?: string;
}

/** An attempt as shown to its analyst (never the accepted answers). */
export interface AttemptView {
  id: string;
  exercise_id: string;
  exercise_title: string;
  user_id: string;
  siem: string;
  state: 'running' | 'completed';
  started_at: string;
  completed_at: string | null;
  score: number | null;
  max_score: number | null;
  offense_cleanup: { status: string; [detail: string]: unknown } | null;
  sections: AttemptSectionView[];
  artifacts: Array<{
    id: string;
    name: string;
    kind: string;
    points: number;
    found_at: string | null;
    hint_available: boolean;
    hint: string | null;
    hint_penalty: number | null;
  }>;
  steps: Array<{ id: string; position: number; title: string; body: string }>;
}

/**
 * Analysts' attempts and staged shipping (decisions.md §6): start, answers, hints, Ship logs,
 * release of delayed sections, completion with score, redo. Every shipment goes through the
 * shipping path; a section is claimed atomically before it ships, so concurrent presses, the
 * release tick and several instances never ship a section twice.
 */
export class AttemptService {
  readonly #deps: AttemptDeps;
  readonly #inFlight = new Set<Promise<unknown>>();
  // Attempts whose release the tick started and which have not ended yet.
  readonly #releasing = new Set<string>();
  // Compiled regex answers by artifact and pattern, so a submission does not compile them again;
  // emptied when it grows past MAX_CACHED_MATCHERS (patterns of deleted artifacts).
  readonly #matchers = new Map<string, (value: string) => boolean>();

  constructor(deps: AttemptDeps) {
    this.#deps = deps;
  }

  /** Starts an attempt; sections that release at start ship before the answer. */
  async start(actor: UserActor, exerciseId: string, siem: string): Promise<AttemptView> {
    const { db } = this.#deps;
    const row = await exerciseRow(db, exerciseId);
    if (row.state !== 'active') {
      throw new AppError('conflict', `exercise "${row.title}" is not published (state ${row.state})`, {
        details: { state: row.state },
      });
    }
    if (!row.destinations.includes(siem)) {
      throw new AppError(
        'invalid_input',
        `SIEM "${siem}" is not enabled on exercise "${row.title}" (enabled: ${row.destinations.map((d) => `"${d}"`).join(', ') || 'none'})`,
        {
          details: {
            fields: { siem: 'must be one of the exercise destinations' },
            destinations: row.destinations,
          },
        },
      );
    }
    const exercise = await loadExercise(db, exerciseId);
    const archives = await loadArchives(db, exerciseId);
    const destination = await this.#readyDestination(exercise, siem, archives);
    const now = this.#deps.clock.now();
    const id = randomUUID();
    try {
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('attempts')
          .values({
            id,
            exercise_id: exerciseId,
            user_id: actor.userId,
            siem,
            state: 'running',
            started_at: new Date(now),
            shift_ms: attemptShift(exercise, archives, destination.payload_format, now),
          })
          .execute();
        await trx
          .insertInto('attempt_sections')
          .values(initialSections(id, exercise, now))
          .execute();
      });
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw new AppError('conflict', `you already have a running attempt of exercise "${row.title}"`, {
          details: { exercise_id: exerciseId },
        });
      }
      throw err;
    }
    await this.#releaseAndShip(id);
    return this.view(actor, id);
  }

  /** Checks an answer; a match may release sections, which ship before the answer. */
  async submit(
    actor: UserActor,
    attemptId: string,
    input: { value: string; artifact_id?: string | undefined },
  ): Promise<{
    matched: boolean;
    artifact_id?: string;
    points?: number;
    already_found?: boolean;
    released: string[];
  }> {
    const attempt = await this.#own(actor, attemptId, { running: true });
    const exercise = await loadExercise(this.#deps.db, attempt.exercise_id);
    if (input.artifact_id !== undefined && !exercise.artifacts.some((a) => a.id === input.artifact_id)) {
      throw notFound('artifact', input.artifact_id);
    }
    if (this.#matchers.size > MAX_CACHED_MATCHERS) this.#matchers.clear();
    const match = findMatchingArtifact(
      exercise.artifacts as MatchableArtifact[],
      input.value,
      input.artifact_id,
      this.#matchers,
    );
    const now = new Date(this.#deps.clock.now());
    let fresh = false;
    await this.#deps.db.transaction().execute(async (trx) => {
      // The attempt as it was read: still running and not redone since (a redo starts a new run).
      const current = await trx
        .selectFrom('attempts')
        .select('id')
        .where('id', '=', attemptId)
        .where('state', '=', 'running')
        .where('started_at', '=', attempt.started_at)
        .forUpdate()
        .executeTakeFirst();
      if (!current) {
        throw new AppError('conflict', 'the attempt was completed or redone meanwhile: reload it', {
          details: { reason: 'attempt_changed' },
        });
      }
      await trx
        .insertInto('attempt_submissions')
        .values({
          id: randomUUID(),
          attempt_id: attemptId,
          value: input.value.slice(0, 4096),
          artifact_id: match?.id ?? input.artifact_id ?? null,
          matched: match !== undefined,
          points: match?.points ?? null,
          submitted_at: now,
        })
        .execute();
      if (match) {
        const inserted = await trx
          .insertInto('attempt_findings')
          .values({ attempt_id: attemptId, artifact_id: match.id, points: match.points, found_at: now })
          .onConflict((oc) => oc.columns(['attempt_id', 'artifact_id']).doNothing())
          .returning('artifact_id')
          .executeTakeFirst();
        fresh = inserted !== undefined;
      }
    });
    if (!match) return { matched: false, released: [] };
    const released = fresh ? await this.#releaseAndShip(attemptId) : [];
    return {
      matched: true,
      artifact_id: match.id,
      points: fresh ? match.points : 0,
      ...(fresh ? {} : { already_found: true }),
      released,
    };
  }

  /** Reveals an artifact's hint; its penalty counts once, however often it is asked for. */
  async revealHint(
    actor: UserActor,
    attemptId: string,
    artifactId: string,
  ): Promise<{ artifact_id: string; hint: string; penalty: number }> {
    const attempt = await this.#own(actor, attemptId, { running: true });
    const exercise = await loadExercise(this.#deps.db, attempt.exercise_id);
    const artifact = exercise.artifacts.find((a) => a.id === artifactId);
    if (!artifact) throw notFound('artifact', artifactId);
    if (!artifact.hint) {
      throw new AppError('invalid_input', `artifact "${artifact.name}" has no hint`, {
        details: { artifact: artifactId },
      });
    }
    const penalty = artifact.hint_penalty ?? 0;
    await this.#deps.db
      .insertInto('attempt_hints')
      .values({
        attempt_id: attemptId,
        artifact_id: artifactId,
        penalty,
        revealed_at: new Date(this.#deps.clock.now()),
      })
      .onConflict((oc) => oc.columns(['attempt_id', 'artifact_id']).doNothing())
      .execute();
    const stored = await this.#deps.db
      .selectFrom('attempt_hints')
      .select('penalty')
      .where('attempt_id', '=', attemptId)
      .where('artifact_id', '=', artifactId)
      .executeTakeFirstOrThrow();
    return { artifact_id: artifactId, hint: artifact.hint, penalty: stored.penalty };
  }

  /**
   * Ship logs to SIEM: every section answers one of the eight reasons; released sections that are
   * not shipped (or failed longer ago than the cooldown) ship now.
   */
  async shipNow(
    actor: UserActor,
    attemptId: string,
  ): Promise<{
    sections: Array<{
      section_id: string;
      reason: ShipReason;
      events_shipped: number;
      events_failed: number;
    }>;
  }> {
    const attempt = await this.#own(actor, attemptId, { running: true });
    const exercise = await loadExercise(this.#deps.db, attempt.exercise_id);
    const archives = await loadArchives(this.#deps.db, exercise.id);
    await this.#readyDestination(exercise, attempt.siem, archives);
    const rows = await attemptSections(this.#deps.db, attemptId);
    const found = await this.#found(attemptId);
    const now = this.#deps.clock.now();
    const out: Array<{
      section_id: string;
      reason: ShipReason;
      events_shipped: number;
      events_failed: number;
    }> = [];
    for (const row of sortRows(rows, exercise)) {
      if (!sectionExists(exercise, row.section_key)) continue;
      const report = (reason: ShipReason, shipped = row.events_shipped, failed = row.events_failed) =>
        out.push({ section_id: row.section_key, reason, events_shipped: shipped, events_failed: failed });
      if (row.status === 'shipped') {
        report('already_shipped');
        continue;
      }
      if (row.status === 'shipping' && row.lease_until !== null && row.lease_until.getTime() >= now) {
        report('shipping');
        continue;
      }
      if (
        row.status === 'failed' &&
        row.last_try_at !== null &&
        now - row.last_try_at.getTime() < RETRY_COOLDOWN_MS
      ) {
        report('cooldown_skipped');
        continue;
      }
      if (row.status === 'not_due' || row.status === 'waiting_on_artifact') {
        const state = evaluateRelease(ruleOf(exercise, row.section_key), {
          startedAt: attempt.started_at.getTime(),
          now,
          found,
        });
        if (!state.released) {
          report(state.status === 'not_due' ? 'not_due' : 'waiting_on_artifacts');
          continue;
        }
      }
      const shipment = await this.#claimAndShip(attempt, exercise, archives, row.section_key);
      if (shipment === undefined) {
        // Another caller took it between the read and the claim.
        const now2 = await this.#sectionRow(attemptId, row.section_key);
        report(
          now2?.status === 'shipped' ? 'already_shipped' : 'shipping',
          now2?.events_shipped,
          now2?.events_failed,
        );
        continue;
      }
      const reason: ShipReason =
        shipment.status === 'shipped' ? 'shipped' : shipment.shipped > 0 ? 'partial' : 'failed';
      report(reason, shipment.shipped, shipment.failed);
    }
    return { sections: out };
  }

  /** Completes an attempt with its score (points found minus hint penalties, never below 0). */
  async complete(
    actor: UserActor,
    attemptId: string,
  ): Promise<{
    score: number;
    max_score: number;
    offense_cleanup: { status: string; [detail: string]: unknown } | null;
  }> {
    const attempt = await this.#own(actor, attemptId, {});
    if (attempt.state === 'completed') {
      throw new AppError('conflict', 'the attempt is already completed', { details: { state: 'completed' } });
    }
    const exercise = await loadExercise(this.#deps.db, attempt.exercise_id);
    const now = new Date(this.#deps.clock.now());
    const { score, maxScore } = await this.#deps.db.transaction().execute(async (trx) => {
      // Locked first: an answer or a redo racing the completion waits, then sees it completed.
      const current = await trx
        .selectFrom('attempts')
        .select(['state', 'started_at'])
        .where('id', '=', attemptId)
        .forUpdate()
        .executeTakeFirstOrThrow();
      if (current.state !== 'running' || current.started_at.getTime() !== attempt.started_at.getTime()) {
        throw new AppError('conflict', 'the attempt was completed or redone meanwhile: reload it', {
          details: { state: current.state },
        });
      }
      const [findings, hints] = await Promise.all([
        attemptFindings(trx, attemptId),
        attemptHints(trx, attemptId),
      ]);
      // Artifacts deleted since (the exercise unpublished and edited) count in neither sum.
      const artifactIds = new Set(exercise.artifacts.map((a) => a.id));
      const points = findings
        .filter((f) => artifactIds.has(f.artifact_id))
        .reduce((sum, f) => sum + f.points, 0);
      const penalties = hints
        .filter((h) => artifactIds.has(h.artifact_id))
        .reduce((sum, h) => sum + h.penalty, 0);
      const result = {
        score: Math.max(0, points - penalties),
        maxScore: exercise.artifacts.reduce((sum, a) => sum + a.points, 0),
      };
      await trx
        .updateTable('attempts')
        .set({
          state: 'completed',
          completed_at: now,
          score: result.score,
          max_score: result.maxScore,
          updated_at: now,
        })
        .where('id', '=', attemptId)
        .execute();
      return result;
    });
    const cleanup = await this.#runHooks(this.#deps.hooks.afterComplete, exercise, {
      ...attempt,
      completed_at: now,
    });
    if (cleanup !== null) {
      await this.#deps.db
        .updateTable('attempts')
        .set({ offense_cleanup: JSON.stringify(cleanup) })
        .where('id', '=', attemptId)
        .execute();
    }
    return { score, max_score: maxScore, offense_cleanup: cleanup };
  }

  /**
   * Resets an attempt (running or completed) to a new start: findings and hint reveals cleared,
   * a new shift, sections re-evaluated from now and the released ones shipped.
   */
  async redo(actor: UserActor, attemptId: string): Promise<AttemptView> {
    const attempt = await this.#own(actor, attemptId, {});
    const row = await exerciseRow(this.#deps.db, attempt.exercise_id);
    if (row.state !== 'active') {
      throw new AppError('conflict', `exercise "${row.title}" is not published (state ${row.state})`, {
        details: { state: row.state },
      });
    }
    const exercise = await loadExercise(this.#deps.db, attempt.exercise_id);
    const archives = await loadArchives(this.#deps.db, exercise.id);
    const destination = await this.#readyDestination(exercise, attempt.siem, archives);
    const now = this.#deps.clock.now();
    try {
      await this.#deps.db.transaction().execute(async (trx) => {
        const sections = await trx
          .selectFrom('attempt_sections')
          .select(['section_key', 'status', 'lease_until'])
          .where('attempt_id', '=', attemptId)
          .forUpdate()
          .execute();
        if (
          sections.some(
            (s) => s.status === 'shipping' && s.lease_until !== null && s.lease_until.getTime() >= now,
          )
        ) {
          throw new AppError(
            'conflict',
            'a section of the attempt is shipping right now; redo it once that ends',
            {
              details: { reason: 'shipping' },
            },
          );
        }
        await trx.deleteFrom('attempt_findings').where('attempt_id', '=', attemptId).execute();
        await trx.deleteFrom('attempt_hints').where('attempt_id', '=', attemptId).execute();
        await trx.deleteFrom('attempt_sections').where('attempt_id', '=', attemptId).execute();
        await trx
          .updateTable('attempts')
          .set({
            state: 'running',
            started_at: new Date(now),
            shift_ms: attemptShift(exercise, archives, destination.payload_format, now),
            completed_at: null,
            score: null,
            max_score: null,
            offense_cleanup: null,
            updated_at: new Date(now),
          })
          .where('id', '=', attemptId)
          .execute();
        await trx
          .insertInto('attempt_sections')
          .values(initialSections(attemptId, exercise, now))
          .execute();
      });
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw new AppError(
          'conflict',
          `you already have another running attempt of exercise "${row.title}"`,
          {
            details: { exercise_id: attempt.exercise_id },
          },
        );
      }
      throw err;
    }
    // The run that ended: its offenses are closed (spec 3.4), before the new run's logs arrive.
    const cleanup = await this.#runHooks(this.#deps.hooks.afterRedo ?? [], exercise, {
      ...attempt,
      completed_at: attempt.completed_at ?? new Date(now),
    });
    if (cleanup !== null) {
      await this.#deps.db
        .updateTable('attempts')
        .set({ offense_cleanup: JSON.stringify(cleanup) })
        .where('id', '=', attemptId)
        .execute();
    }
    await this.#releaseAndShip(attemptId);
    return this.view(actor, attemptId);
  }

  /** One attempt: its analyst's own, or any with manage_exercises (others: 404). */
  async view(actor: UserActor, attemptId: string): Promise<AttemptView> {
    const attempt = await this.#visible(actor, attemptId);
    return this.#render(attempt);
  }

  /** Attempts visible to the actor, newest first (`mine`: only their own). */
  async list(
    actor: UserActor,
    filter: { exerciseId?: string | undefined; mine?: boolean | undefined },
  ): Promise<AttemptView[]> {
    let query = this.#deps.db.selectFrom('attempts').selectAll().orderBy('created_at', 'desc').limit(500);
    if (filter.exerciseId !== undefined) {
      if (!isUuid(filter.exerciseId)) return [];
      query = query.where('exercise_id', '=', filter.exerciseId);
    }
    if (filter.mine || !actor.capabilities.has('manage_exercises'))
      query = query.where('user_id', '=', actor.userId);
    const rows = await query.execute();
    const out: AttemptView[] = [];
    for (const row of rows) out.push(await this.#render(row));
    return out;
  }

  /** Author progress: every attempt of an exercise with its analyst, sections, findings and score. */
  async progress(exerciseId: string) {
    await exerciseRow(this.#deps.db, exerciseId);
    const rows = await this.#deps.db
      .selectFrom('attempts')
      .innerJoin('users', 'users.id', 'attempts.user_id')
      .selectAll('attempts')
      .select(['users.email', 'users.display_name'])
      .where('attempts.exercise_id', '=', exerciseId)
      .orderBy('attempts.started_at', 'desc')
      .execute();
    const out = [];
    for (const row of rows) {
      const view = await this.#render(row);
      const findings = await attemptFindings(this.#deps.db, row.id);
      const hints = await attemptHints(this.#deps.db, row.id);
      out.push({
        attempt_id: row.id,
        analyst: { id: row.user_id, email: row.email, display_name: row.display_name },
        siem: row.siem,
        state: row.state,
        started_at: row.started_at.toISOString(),
        completed_at: row.completed_at?.toISOString() ?? null,
        score: row.score,
        max_score: row.max_score,
        sections: view.sections.map((s) => ({ section_id: s.section_id, name: s.name, status: s.status })),
        found: findings.map((f) => ({
          artifact_id: f.artifact_id,
          name: view.artifacts.find((a) => a.id === f.artifact_id)?.name ?? f.artifact_id,
          found_at: f.found_at.toISOString(),
          points: f.points,
        })),
        hints: hints.map((h) => ({
          artifact_id: h.artifact_id,
          revealed_at: h.revealed_at.toISOString(),
          penalty: h.penalty,
        })),
      });
    }
    return { exercise_id: exerciseId, attempts: out };
  }

  /**
   * The release tick: pending sections of running attempts whose delay has passed, and shipments
   * whose claim expired, are released and shipped, each attempt on its own (not awaited: see
   * settled()). Returns how many attempts' releases it started.
   */
  async releaseDue(): Promise<number> {
    const now = new Date(this.#deps.clock.now());
    const due = await this.#deps.db
      .selectFrom('attempt_sections')
      .innerJoin('attempts', 'attempts.id', 'attempt_sections.attempt_id')
      .select(['attempt_sections.attempt_id'])
      .where('attempts.state', '=', 'running')
      .where((eb) =>
        eb.or([
          eb.and([
            eb('attempt_sections.status', 'in', ['not_due', 'waiting_on_artifact']),
            eb('attempt_sections.releases_at', '<=', now),
          ]),
          eb.and([
            eb('attempt_sections.status', '=', 'shipping'),
            eb('attempt_sections.lease_until', '<', now),
          ]),
        ]),
      )
      .groupBy('attempt_sections.attempt_id')
      .orderBy((eb) => eb.fn.min('attempt_sections.releases_at'))
      .limit(100)
      .execute();
    // Each attempt's release runs on its own: a slow SIEM holds back its own analysts, never the
    // tick (decisions.md §6: at most 5 s late). An attempt still being released is left to that run.
    let started = 0;
    for (const { attempt_id } of due) {
      if (this.#deps.stopping.aborted || this.#releasing.has(attempt_id)) continue;
      this.#releasing.add(attempt_id);
      started++;
      const work = this.#releaseAndShip(attempt_id, { expiredClaims: true })
        .catch((err: unknown) => {
          this.#deps.log.warn({ attempt: attempt_id, err }, 'Releasing the sections of an attempt failed.');
        })
        .finally(() => {
          this.#releasing.delete(attempt_id);
          this.#inFlight.delete(work);
        });
      this.#inFlight.add(work);
    }
    return started;
  }

  /** Waits for the releases the tick started (tests; shutdown uses drain()). */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** Waits for shipments this instance started (shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.#inFlight]);
  }

  // Evaluates every pending section of an attempt and ships the released ones, in position order.
  // Sections still pending get their status (not_due / waiting_on_artifact) and next delay time.
  async #releaseAndShip(attemptId: string, options: { expiredClaims?: boolean } = {}): Promise<string[]> {
    const { db } = this.#deps;
    const attempt = await attemptRow(db, attemptId);
    if (attempt.state !== 'running') return [];
    const exercise = await loadExercise(db, attempt.exercise_id);
    const archives = await loadArchives(db, exercise.id);
    const found = await this.#found(attemptId);
    const now = this.#deps.clock.now();
    const released: string[] = [];
    for (const row of sortRows(await attemptSections(db, attemptId), exercise)) {
      // A section deleted from the exercise since the attempt started (unpublished and edited):
      // never shipped; off the release tick's list.
      if (!sectionExists(exercise, row.section_key)) {
        if (row.releases_at !== null) {
          await db
            .updateTable('attempt_sections')
            .set({ releases_at: null })
            .where('attempt_id', '=', attemptId)
            .where('section_key', '=', row.section_key)
            .execute();
        }
        continue;
      }
      const expired =
        row.status === 'shipping' && row.lease_until !== null && row.lease_until.getTime() < now;
      if (
        row.status !== 'not_due' &&
        row.status !== 'waiting_on_artifact' &&
        !(options.expiredClaims && expired)
      )
        continue;
      const rule = ruleOf(exercise, row.section_key);
      const state = evaluateRelease(rule, { startedAt: attempt.started_at.getTime(), now, found });
      if (!state.released) {
        const releasesAt = state.status === 'not_due' ? delayDueAt(rule, attempt.started_at.getTime()) : null;
        if (row.status !== state.status || (row.releases_at?.getTime() ?? null) !== releasesAt) {
          await db
            .updateTable('attempt_sections')
            .set({ status: state.status, releases_at: releasesAt === null ? null : new Date(releasesAt) })
            .where('attempt_id', '=', attemptId)
            .where('section_key', '=', row.section_key)
            .where('status', '=', row.status)
            .where(sameRun(attemptId, attempt.started_at))
            .execute();
        }
        continue;
      }
      await db
        .updateTable('attempt_sections')
        .set({ released_at: new Date(now) })
        .where('attempt_id', '=', attemptId)
        .where('section_key', '=', row.section_key)
        .where('released_at', 'is', null)
        .where(sameRun(attemptId, attempt.started_at))
        .execute();
      const shipment = await this.#claimAndShip(attempt, exercise, archives, row.section_key);
      if (shipment !== undefined) released.push(row.section_key);
    }
    return released;
  }

  // Claims a section and ships it; undefined when another caller holds it or it is done.
  async #claimAndShip(
    attempt: AttemptRow,
    exercise: Exercise,
    archives: readonly StoredArchive[],
    sectionKey: string,
  ): Promise<SectionShipment | undefined> {
    const { db, clock, owner } = this.#deps;
    const now = clock.now();
    const claimOwner = `${owner}/${randomUUID()}`;
    const claimed = await claimSection(
      db,
      { attemptId: attempt.id, sectionKey },
      {
        owner: claimOwner,
        now: new Date(now),
        // Longer than a shipment may last (pass 1 and sending each held to the deadline).
        leaseUntil: new Date(now + 2 * this.#deps.deadlineMs + 60_000),
        retryBefore: new Date(now - RETRY_COOLDOWN_MS),
        startedAt: attempt.started_at,
      },
    );
    if (!claimed) return undefined;
    const work = (async () => {
      const shipment = await shipSection(this.#deps, attempt, exercise, archives, sectionKey);
      if (shipment.status === 'failed' && this.#deps.stopping.aborted) {
        // Cut off by a shutdown, not refused by the SIEM: the next release tick (this instance
        // after its restart, or another) ships it again, with nobody pressing anything.
        await releaseSection(
          db,
          { attemptId: attempt.id, sectionKey, owner: claimOwner },
          new Date(clock.now()),
        );
        return shipment;
      }
      await finishSection(
        db,
        { attemptId: attempt.id, sectionKey, owner: claimOwner },
        { ...shipment, now: new Date(clock.now()) },
      );
      return shipment;
    })();
    this.#inFlight.add(work);
    try {
      return await work;
    } finally {
      this.#inFlight.delete(work);
    }
  }

  // The attempt's destination, after the before-ship gates (SIEM Q readiness) and the format
  // check of spec 7: every section needs an archive in the destination's format.
  async #readyDestination(
    exercise: Exercise,
    siem: string,
    archives: readonly StoredArchive[],
  ): Promise<Destination> {
    const { destination } = await this.#deps.shipping.target(siem);
    for (const gate of this.#deps.hooks.gates) await gate.check(exercise, destination);
    const format = destination.payload_format;
    const keys = sectionKeys(exercise);
    const lacking = keys.filter(
      (key) =>
        !archives.some(
          (a) => a.format === format && (key === LEGACY_SECTION ? a.sectionId === null : a.sectionId === key),
        ),
    );
    if (lacking.length > 0) {
      const names = lacking.map((k) =>
        k === LEGACY_SECTION
          ? 'the exercise archive'
          : `"${exercise.sections.find((s) => s.id === k)?.name}"`,
      );
      throw new AppError(
        'conflict',
        `SIEM "${siem}" takes ${format.toUpperCase()}, and these sections have no ${format.toUpperCase()} archive: ${names.join(', ')}`,
        { details: { siem, format, sections: lacking, reason: 'missing_format' } },
      );
    }
    return destination;
  }

  // Runs after-complete or after-redo hooks for one run of an attempt; their last result (or a
  // failure) is what gets stored, and nothing they do blocks the operation that called them.
  async #runHooks(
    hooks: readonly AfterCompleteHook[],
    exercise: Exercise,
    attempt: AttemptRow,
  ): Promise<{ status: string; [detail: string]: unknown } | null> {
    if (hooks.length === 0) return null;
    let destination: Destination;
    try {
      // A disabled destination still gets its cleanup: nothing is shipped to it.
      destination = (await this.#deps.shipping.target(attempt.siem, { allowDisabled: true })).destination;
    } catch (err) {
      // A deleted destination: nothing is known of its kind, so no hook can run for it.
      this.#deps.log.warn(
        { attempt: attempt.id, siem: attempt.siem, err: err instanceof Error ? err.message : String(err) },
        'Attempt hooks skipped: the destination cannot be loaded.',
      );
      return null;
    }
    const info = {
      id: attempt.id,
      exerciseId: attempt.exercise_id,
      siem: attempt.siem,
      startedAt: attempt.started_at,
      completedAt: attempt.completed_at,
    };
    let result: { status: string; [detail: string]: unknown } | null = null;
    for (const hook of hooks) {
      try {
        const outcome = await hook.run(exercise, destination, info);
        if (outcome !== null) result = { ...outcome };
      } catch (err) {
        // Never blocks completion: the failure is the stored result.
        this.#deps.log.warn({ attempt: attempt.id, hook: hook.name, err }, 'Attempt hook failed.');
        result = { status: 'failed', error: err instanceof Error ? err.message : String(err) };
      }
    }
    return result;
  }

  async #found(attemptId: string): Promise<Set<string>> {
    return new Set((await attemptFindings(this.#deps.db, attemptId)).map((f) => f.artifact_id));
  }

  async #sectionRow(attemptId: string, sectionKey: string) {
    return this.#deps.db
      .selectFrom('attempt_sections')
      .selectAll()
      .where('attempt_id', '=', attemptId)
      .where('section_key', '=', sectionKey)
      .executeTakeFirst();
  }

  // The actor's own attempt (others: 404), optionally running (a completed one: 409).
  async #own(actor: UserActor, attemptId: string, options: { running?: boolean }): Promise<AttemptRow> {
    const attempt = await attemptRow(this.#deps.db, attemptId);
    if (attempt.user_id !== actor.userId) throw notFound('attempt', attemptId);
    if (options.running && attempt.state !== 'running') {
      throw new AppError('conflict', 'the attempt is completed: redo it to continue', {
        details: { state: attempt.state },
      });
    }
    return attempt;
  }

  async #visible(actor: UserActor, attemptId: string): Promise<AttemptRow> {
    const attempt = await attemptRow(this.#deps.db, attemptId);
    if (attempt.user_id !== actor.userId && !actor.capabilities.has('manage_exercises')) {
      throw notFound('attempt', attemptId);
    }
    return attempt;
  }

  async #render(attempt: AttemptRow): Promise<AttemptView> {
    const { db } = this.#deps;
    const exercise = await loadExercise(db, attempt.exercise_id);
    const [rows, findings, hints] = await Promise.all([
      attemptSections(db, attempt.id),
      attemptFindings(db, attempt.id),
      attemptHints(db, attempt.id),
    ]);
    const found = new Set(findings.map((f) => f.artifact_id));
    const now = this.#deps.clock.now();
    return {
      id: attempt.id,
      exercise_id: attempt.exercise_id,
      exercise_title: exercise.title,
      user_id: attempt.user_id,
      siem: attempt.siem,
      state: attempt.state,
      started_at: attempt.started_at.toISOString(),
      completed_at: attempt.completed_at?.toISOString() ?? null,
      score: attempt.score,
      max_score: attempt.max_score,
      offense_cleanup: attempt.offense_cleanup as AttemptView['offense_cleanup'],
      sections: sortRows(rows, exercise).map((row) => {
        const section = exercise.sections.find((s) => s.id === row.section_key);
        const view: AttemptSectionView = {
          section_id: row.section_key,
          name: section?.name ?? (row.section_key === LEGACY_SECTION ? 'Exercise logs' : row.section_key),
          position: section?.position ?? null,
          status: row.status,
          events_shipped: row.events_shipped,
          events_failed: row.events_failed,
        };
        if (
          (row.status === 'not_due' || row.status === 'waiting_on_artifact') &&
          attempt.state === 'running'
        ) {
          const state = evaluateRelease(ruleOf(exercise, row.section_key), {
            startedAt: attempt.started_at.getTime(),
            now,
            found,
          });
          if (!state.released) {
            if (state.releases_at !== undefined) view.releases_at = new Date(state.releases_at).toISOString();
            view.waiting_for = state.waiting_for;
          }
        }
        if (row.error) view.error = row.error;
        if (row.shipped_at) view.shipped_at = row.shipped_at.toISOString();
        return view;
      }),
      artifacts: exercise.artifacts.map((a) => {
        const finding = findings.find((f) => f.artifact_id === a.id);
        const revealed = hints.some((h) => h.artifact_id === a.id);
        return {
          id: a.id,
          name: a.name,
          kind: a.kind,
          points: a.points,
          found_at: finding?.found_at.toISOString() ?? null,
          hint_available: Boolean(a.hint),
          hint: revealed ? (a.hint ?? null) : null,
          hint_penalty: a.hint ? (a.hint_penalty ?? 0) : null,
        };
      }),
      steps: exercise.steps,
    };
  }
}

/** A signed-in user, as attempts see them. */
export type UserActor = Extract<Actor, { kind: 'user' }>;

// The one shift of every shipment of an attempt: the newest event of all its sections' archives
// in the destination's format lands at now + 2 h, so later sections continue the same timeline.
function attemptShift(
  exercise: Exercise,
  archives: readonly StoredArchive[],
  format: 'leef' | 'ecs',
  now: number,
): number {
  const keys = new Set(sectionKeys(exercise));
  let latest: number | null = null;
  for (const a of archives) {
    if (a.format !== format || a.latestEventMs === null) continue;
    if (!keys.has(a.sectionId ?? LEGACY_SECTION)) continue;
    latest = latest === null ? a.latestEventMs : Math.max(latest, a.latestEventMs);
  }
  return computeShift(latest, now);
}

function sectionKeys(exercise: Exercise): string[] {
  return exercise.sections.length > 0 ? exercise.sections.map((s) => s.id) : [LEGACY_SECTION];
}

function initialSections(attemptId: string, exercise: Exercise, now: number) {
  return sectionKeys(exercise).map((key) => {
    const rule = ruleOf(exercise, key);
    const dueAt = delayDueAt(rule, now);
    return {
      attempt_id: attemptId,
      section_key: key,
      status: (rule === null || dueAt === null || dueAt <= now ? 'waiting_on_artifact' : 'not_due') as
        | 'waiting_on_artifact'
        | 'not_due',
      releases_at: dueAt === null ? null : new Date(dueAt),
    };
  });
}

function sectionExists(exercise: Exercise, sectionKey: string): boolean {
  return sectionKey === LEGACY_SECTION
    ? exercise.sections.length === 0
    : exercise.sections.some((s) => s.id === sectionKey);
}

function ruleOf(exercise: Exercise, sectionKey: string): ReleaseRule | null {
  return exercise.sections.find((s) => s.id === sectionKey)?.release ?? null;
}

function sortRows(rows: readonly AttemptSectionRow[], exercise: Exercise): AttemptSectionRow[] {
  const position = (key: string) => exercise.sections.find((s) => s.id === key)?.position ?? 0;
  return [...rows].sort((a, b) => position(a.section_key) - position(b.section_key));
}

function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505';
}
