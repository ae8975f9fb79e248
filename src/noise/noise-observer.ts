import type { DispatchTrigger } from './dispatch-types.ts';
import type { RunStatus } from './run-status.ts';

/**
 * What the noise runner and scheduler report as they work (the service's metrics, src/metrics);
 * calls are cheap and never throw. Tests and parts that do not care pass `ignoreNoise`.
 */
export interface NoiseObserver {
  /** A run row ended in `status` (one call per target of a dispatch; `skipped` rows too). */
  runEnded(status: RunStatus, trigger: DispatchTrigger): void;
  /** The scheduler claimed a job `lagSeconds` after its next_run_at (now − next_run_at). */
  jobClaimed(lagSeconds: number): void;
}

/** An observer that records nothing. */
export const ignoreNoise: NoiseObserver = {
  runEnded: () => {},
  jobClaimed: () => {},
};
