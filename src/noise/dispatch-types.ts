import type { NoiseSchedule } from './schedule.ts';

/** Who started a dispatch: the scheduler (built in or external) or a person / the API. */
export type DispatchTrigger = 'schedule' | 'manual';

/** One archive of a dispatch: its order and where it lies in the `noise-archives` bucket. */
export interface DispatchArchive {
  position: number;
  storage_path: string;
}

/**
 * Exactly the body of `POST /api/noise/run` (spec 4.1). Every target has a run row created
 * beforehand (status `pending`, then `running` while the dispatch runs), named in `run_ids`.
 */
export interface DispatchRequest {
  job_id: string;
  trigger: DispatchTrigger;
  /** SIEM name → run row id. */
  run_ids: Record<string, string>;
  archives: DispatchArchive[];
  targets: string[];
  schedule: NoiseSchedule;
}

/** What a dispatcher reports; the run rows stay the source of truth (see NoiseRunner). */
export interface DispatchOutcome {
  /** True when every target succeeded. */
  ok: boolean;
  /** Targets that did not succeed (details on their run rows). */
  failed: string[];
}

/**
 * Ships a job's archives to its targets and writes each run row's final status, counts and error
 * (run-store.ts: finishRun). Called with the job's lease held and its rows `running`; it must stop
 * soon after `signal` aborts (shutdown, or the lease was lost). The caller writes next_run_at and
 * releases the lease; rows the dispatcher leaves open are marked failed by the caller.
 */
export type NoiseDispatcher = (request: DispatchRequest, signal: AbortSignal) => Promise<DispatchOutcome>;
