import type { Kysely } from 'kysely';
import type { AuditEntry } from '../audit/audit-log.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import type { Logger } from '../logger.ts';
import type { RunEngine } from '../runs/run-engine.ts';
import type { NoiseDispatcher } from './dispatch-types.ts';
import type { NoiseObserver } from './noise-observer.ts';
import { NoiseRunner, type NoiseRunnerOptions } from './noise-runner.ts';
import { NoiseScheduler, type NoiseSchedulerOptions } from './scheduler.ts';

/** The noise feature's long-lived parts, held by the context as `ctx.noise`. */
export interface NoiseServices {
  readonly runner: NoiseRunner;
  /** Started by ctx.start() when SCHEDULER is on; stopped by ctx.close(). */
  readonly scheduler: NoiseScheduler;
}

/** What the noise feature is wired from. */
export interface NoiseServicesDeps {
  readonly db: Kysely<Database>;
  readonly clock: Clock;
  readonly log: Logger;
  readonly engine: RunEngine;
  /** Ships a dispatch (noise-dispatcher.ts; tests may pass another). */
  readonly dispatcher: NoiseDispatcher;
  audit(entry: AuditEntry): Promise<void>;
  /** Told of ended run rows and scheduler claims (the service's metrics); none when absent. */
  readonly observer?: NoiseObserver;
}

/** Tuning of the noise parts; defaults suit production. */
export interface NoiseServicesOptions {
  readonly runner?: NoiseRunnerOptions;
  readonly scheduler?: NoiseSchedulerOptions;
}

/** Wires the runner and the scheduler. */
export function createNoiseServices(
  deps: NoiseServicesDeps,
  options: NoiseServicesOptions = {},
): NoiseServices {
  const runner = new NoiseRunner(deps, options.runner);
  const scheduler = new NoiseScheduler({ ...deps, runner }, options.scheduler);
  return { runner, scheduler };
}
