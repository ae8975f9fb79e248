import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { AuditEntry } from '../audit/audit-log.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import type { Logger } from '../logger.ts';
import type { NoiseDispatcher } from './dispatch-types.ts';
import { NoiseRunner, type NoiseRunnerOptions } from './noise-runner.ts';
import { NoiseScheduler, type NoiseSchedulerOptions } from './scheduler.ts';
import { createUnavailableDispatcher } from './unavailable-dispatcher.ts';

/** The noise feature's long-lived parts, held by the context as `ctx.noise`. */
export interface NoiseServices {
  /**
   * Ships a dispatch (spec 4.1). The context assigns the real one (noise-dispatcher.ts); services
   * built without storage and drivers keep the default, which marks every run row failed with
   * "noise dispatch is not available yet". Replaceable (tests assign a recorder).
   */
  dispatch: NoiseDispatcher;
  readonly runner: NoiseRunner;
  /** Started by the serving process when SCHEDULER is on (see build-app.ts). */
  readonly scheduler: NoiseScheduler;
  /**
   * Stops the scheduler, then aborts and awaits running dispatches (bounded by the runner's grace
   * period). Later calls share the first one's end: the app closes these at shutdown, the context
   * again after it.
   */
  close(): Promise<void>;
}

/** Wires the runner, the scheduler and the default dispatcher. */
export function createNoiseServices(
  deps: { db: Kysely<Database>; clock: Clock; log: Logger; audit(entry: AuditEntry): Promise<void> },
  options: { runner?: NoiseRunnerOptions; scheduler?: NoiseSchedulerOptions; instanceId?: string } = {},
): NoiseServices {
  const instanceId = options.instanceId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  // The runner reads the slot at every dispatch, so a dispatcher assigned later is the one used.
  const runner = new NoiseRunner(
    { ...deps, instanceId, dispatcher: () => services.dispatch },
    options.runner,
  );
  const scheduler = new NoiseScheduler({ ...deps, runner }, options.scheduler);
  // A second close would wait out the grace period again for a dispatch that ignores its abort,
  // pushing the shutdown past main.ts's forced exit.
  let closing: Promise<void> | undefined;
  const services: NoiseServices = {
    dispatch: createUnavailableDispatcher(deps),
    runner,
    scheduler,
    close() {
      closing ??= (async () => {
        // In this order: a tick still claiming would otherwise start a dispatch after the abort.
        await scheduler.stop();
        await runner.close();
      })();
      return closing;
    },
  };
  return services;
}
