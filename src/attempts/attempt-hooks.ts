import type { Destination } from '../destinations/destination-types.ts';
import type { Exercise } from '../exercises/exercise-types.ts';

/** What a hook learns of the attempt it runs for. */
export interface AttemptInfo {
  readonly id: string;
  readonly exerciseId: string;
  readonly siem: string;
  readonly startedAt: Date;
  readonly completedAt: Date | null;
}

/**
 * Checked before an attempt ships anything (start, redo, Ship logs; spec 3.3): throws an AppError
 * (`siem_q_not_ready`, 409) when the SIEM is not ready for the exercise's sections. SIEM Q's
 * per-section log-source gate plugs in here.
 */
export interface BeforeShipGate {
  readonly name: string;
  check(exercise: Exercise, destination: Destination): Promise<void>;
}

/** Result of an after-complete hook, stored on the attempt (decisions.md §7 offense cleanup). */
export interface AfterCompleteResult {
  readonly status: 'ok' | 'partial' | 'failed';
  readonly [detail: string]: unknown;
}

/**
 * Runs once an attempt is scored (spec 3.4: offense cleanup); never blocks completion. Answers
 * null when it has nothing to do for this exercise and destination.
 */
export interface AfterCompleteHook {
  readonly name: string;
  run(
    exercise: Exercise,
    destination: Destination,
    attempt: AttemptInfo,
  ): Promise<AfterCompleteResult | null>;
}

/** The attempt seams a SIEM kind's extras plug into (none by default but the readiness gate). */
export interface AttemptHooks {
  readonly gates: readonly BeforeShipGate[];
  readonly afterComplete: readonly AfterCompleteHook[];
  /**
   * Run after a redo reset the attempt, for the run that ended (its start, and the redo's time as
   * its end): spec 3.4, redo closes the offenses of the exercise's log sources. Never blocks the
   * redo; the result is stored as the attempt's offense_cleanup. Absent: none.
   */
  readonly afterRedo?: readonly AfterCompleteHook[];
}
