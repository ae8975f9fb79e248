import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import type { Logger } from '../logger.ts';
import { type Claim, claimDueJobs, recoverExpiredLeases } from './job-lease.ts';
import type { RandomSource } from './next-run-at.ts';
import type { NoiseRunner } from './noise-runner.ts';

/** Parts the scheduler uses. */
export interface NoiseSchedulerDeps {
  db: Kysely<Database>;
  clock: Clock;
  log: Logger;
  runner: NoiseRunner;
}

/** Scheduler timing; defaults suit production. */
export interface NoiseSchedulerOptions {
  /** Pause between two claim rounds (default 1 s). */
  tickMs?: number;
  /** Most dispatches this instance runs at once (default 4); the rest wait for another instance or tick. */
  maxConcurrent?: number;
  /** Waits `ms` unless `signal` aborts first (injected by tests). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Spreads ticks by ±20 % so instances do not tick in lock-step (default Math.random). */
  random?: RandomSource;
}

/**
 * The built-in noise scheduler (decisions.md §5). Every tick, in short transactions, it frees
 * expired leases (failing the open rows of dispatches whose instance died) and claims due enabled
 * jobs with FOR UPDATE SKIP LOCKED, then dispatches them in this process through the runner. Any
 * number of instances may run it on one PostgreSQL: a job is claimed by one of them at a time.
 * A job overdue after downtime runs once; its next run is computed from that run's end.
 */
export class NoiseScheduler {
  readonly #deps: NoiseSchedulerDeps;
  readonly #tickMs: number;
  readonly #maxConcurrent: number;
  readonly #sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly #random: RandomSource;
  #loop: Promise<void> | undefined;
  #stop: AbortController | undefined;
  #lastTickAt: number | undefined;
  #lastTickError: string | undefined;

  constructor(deps: NoiseSchedulerDeps, options: NoiseSchedulerOptions = {}) {
    this.#deps = deps;
    this.#tickMs = options.tickMs ?? 1000;
    this.#maxConcurrent = options.maxConcurrent ?? 4;
    this.#sleep = options.sleep ?? ((ms, signal) => sleep(ms, undefined, { signal }));
    this.#random = options.random ?? Math.random;
  }

  /** Clock time (epoch ms) of the last tick that reached the database; the scheduler's heartbeat. */
  get lastTickAt(): number | undefined {
    return this.#lastTickAt;
  }

  /** Why the last tick failed, or undefined when it succeeded. */
  get lastTickError(): string | undefined {
    return this.#lastTickError;
  }

  /** True between start() and stop(). */
  get running(): boolean {
    return this.#loop !== undefined;
  }

  /** Starts the loop (idempotent). */
  start(): void {
    if (this.#loop !== undefined) return;
    const stop = new AbortController();
    this.#stop = stop;
    this.#deps.log.info({ tick_ms: this.#tickMs }, 'Noise scheduler started.');
    this.#loop = (async () => {
      while (!stop.signal.aborted) {
        try {
          await this.tick();
        } catch (err) {
          this.#deps.log.warn({ err }, 'Noise scheduler tick failed; retrying.');
        }
        try {
          // Instances that tick in lock-step would let the same one win every claim.
          await this.#sleep(Math.round(this.#tickMs * (0.8 + 0.4 * this.#random())), stop.signal);
        } catch {
          // Aborted by stop().
        }
      }
    })();
  }

  /** One claim round: frees expired leases, claims due jobs and starts their dispatches. */
  async tick(): Promise<Claim[]> {
    const { db, clock, log, runner } = this.#deps;
    const now = clock.now();
    try {
      for (const r of await recoverExpiredLeases(db, now)) {
        log.warn(r, 'Noise job lease expired (its dispatch died); freed it and failed its open runs.');
      }
      const claims = await claimDueJobs(db, {
        now,
        leaseMs: runner.leaseMs,
        limit: this.#maxConcurrent - runner.inFlight,
        newOwner: () => runner.newOwner(),
      });
      for (const claim of claims) {
        log.debug({ job_id: claim.job.id, run_ids: claim.run_ids }, 'Noise job claimed.');
        runner.runClaimed(claim);
      }
      this.#lastTickAt = now;
      this.#lastTickError = undefined;
      return claims;
    } catch (err) {
      this.#lastTickError = err instanceof Error ? err.message : String(err);
      throw err;
    }
  }

  /** Stops the loop after the current tick; running dispatches are the runner's to stop. */
  async stop(): Promise<void> {
    if (this.#loop === undefined) return;
    this.#stop?.abort();
    await this.#loop;
    this.#loop = undefined;
    this.#deps.log.info('Noise scheduler stopped.');
  }
}
