import type { Kysely } from 'kysely';
import type { AttemptHooks } from '../attempts/attempt-hooks.ts';
import { AttemptService } from '../attempts/attempt-service.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/schema.ts';
import type { LogSourceService } from '../log-sources/log-source-service.ts';
import type { Logger } from '../logger.ts';
import { Ticker } from '../runs/ticker.ts';
import type { Shipping } from '../shipping/shipping.ts';
import type { ObjectStorage } from '../storage/object-storage.ts';
import { IntakeListeners } from './intake/intake-listeners.ts';
import type { PublishCheck } from './publish-exercise.ts';

/** Exercises' parts with a life of their own: attempts, the release tick, live intakes, seams. */
export interface ExerciseServices {
  readonly attempts: AttemptService;
  /** Ships sections whose delay passed with nobody pressing anything (at most ~5 s late). */
  readonly releaseTicker: Ticker;
  readonly intake: IntakeListeners;
  readonly publishChecks: readonly PublishCheck[];
  start(): void;
  stop(): Promise<void>;
}

/** Choices a caller (tests) may make instead of the defaults. */
export interface ExerciseServicesOptions {
  /**
   * Replaces the seams (by default the SIEM Q log sources' provisioning check, readiness gate and
   * offense cleanup): publish checks, before-ship gates, after-complete and after-redo hooks.
   */
  readonly publishChecks?: readonly PublishCheck[];
  readonly hooks?: AttemptHooks;
  /** Release tick interval (default 2 s, so a delay release is at most ~5 s late). */
  readonly releaseTickMs?: number;
}

/** Builds the exercise services of one context. */
export function createExerciseServices(
  deps: {
    readonly config: Config;
    readonly db: Kysely<Database>;
    readonly clock: Clock;
    readonly log: Logger;
    readonly storage: ObjectStorage;
    readonly shipping: Shipping;
    readonly stopping: AbortSignal;
    readonly owner: string;
    /** SIEM Q log sources: the default publish check, gate and cleanup. */
    readonly logSources: LogSourceService;
  },
  options: ExerciseServicesOptions = {},
): ExerciseServices {
  const attempts = new AttemptService({
    db: deps.db,
    clock: deps.clock,
    log: deps.log,
    storage: deps.storage,
    shipping: deps.shipping,
    stopping: deps.stopping,
    deadlineMs: deps.config.shipmentDeadlineSeconds * 1000,
    owner: deps.owner,
    hooks: options.hooks ?? {
      gates: [deps.logSources.gate],
      afterComplete: [deps.logSources.cleanup],
      afterRedo: [deps.logSources.cleanup],
    },
  });
  const releaseTicker = new Ticker(
    'Section release tick',
    () => attempts.releaseDue(),
    { clock: deps.clock, log: deps.log },
    { tickMs: options.releaseTickMs ?? 2000 },
  );
  const intake = new IntakeListeners({ host: deps.config.intakeHost, clock: deps.clock, log: deps.log });
  return {
    attempts,
    releaseTicker,
    intake,
    publishChecks: options.publishChecks ?? [deps.logSources.publishCheck],
    start() {
      if (deps.config.releaseTick) releaseTicker.start();
    },
    async stop() {
      await releaseTicker.stop();
      await intake.close();
      await attempts.drain();
    },
  };
}
