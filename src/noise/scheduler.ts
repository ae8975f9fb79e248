import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import type { Logger } from '../logger.ts';
import { Ticker, type TickerOptions } from '../runs/ticker.ts';
import { type Claim, claimDueJobs, recoverExpiredLeases } from './job-lease.ts';
import type { NoiseObserver } from './noise-observer.ts';
import type { NoiseRunner } from './noise-runner.ts';

/** Parts the scheduler uses. */
export interface NoiseSchedulerDeps {
  db: Kysely<Database>;
  clock: Clock;
  log: Logger;
  runner: NoiseRunner;
  /** Told how late each claimed job was (the service's metrics); none when absent. */
  observer?: NoiseObserver;
}

/** Scheduler timing; defaults suit production. */
export interface NoiseSchedulerOptions extends TickerOptions {
  /** Most dispatches this instance runs at once (default 4); the rest wait for another instance or tick. */
  maxConcurrent?: number;
}

/**
 * The built-in noise scheduler (decisions.md §5), a Ticker. Every tick, in short transactions, it
 * frees expired leases (failing the open rows of dispatches whose instance died) and claims due
 * enabled jobs with FOR UPDATE SKIP LOCKED, then dispatches them in this process through the
 * runner. Any number of instances may run it on one PostgreSQL: a job is claimed by one of them at
 * a time. A job overdue after downtime runs once; its next run is computed from that run's end.
 */
export class NoiseScheduler {
  readonly #deps: NoiseSchedulerDeps;
  readonly #maxConcurrent: number;
  readonly #ticker: Ticker;

  constructor(deps: NoiseSchedulerDeps, options: NoiseSchedulerOptions = {}) {
    this.#deps = deps;
    this.#maxConcurrent = options.maxConcurrent ?? 4;
    this.#ticker = new Ticker('Noise scheduler', () => this.#claimRound(), deps, options);
  }

  /** Clock time (epoch ms) of the last tick that reached the database; the scheduler's heartbeat. */
  get lastTickAt(): number | undefined {
    return this.#ticker.lastTickAt;
  }

  /** Why the last tick failed, or undefined when it succeeded. */
  get lastTickError(): string | undefined {
    return this.#ticker.lastTickError;
  }

  /** True between start() and stop(). */
  get running(): boolean {
    return this.#ticker.running;
  }

  /** Starts the loop (idempotent). */
  start(): void {
    this.#ticker.start();
  }

  /** One claim round, as a tick: frees expired leases, claims due jobs and starts their dispatches. */
  tick(): Promise<Claim[]> {
    return this.#ticker.record(() => this.#claimRound());
  }

  /** Stops the loop after the current tick; running dispatches are the runner's to stop. */
  stop(): Promise<void> {
    return this.#ticker.stop();
  }

  async #claimRound(): Promise<Claim[]> {
    const { db, clock, log, runner } = this.#deps;
    const now = clock.now();
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
      // Claimed jobs are due, so next_run_at is set and not after now.
      if (claim.job.next_run_at !== null)
        this.#deps.observer?.jobClaimed((now - claim.job.next_run_at) / 1000);
      runner.runClaimed(claim);
    }
    return claims;
  }
}
