import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';

/** Timing of a ticker; defaults suit production. */
export interface TickerOptions {
  /** Pause between two ticks (default 1 s). */
  readonly tickMs?: number;
  /** Waits `ms` unless `signal` aborts first (injected by tests). */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Spreads ticks by ±20 % so instances do not tick in lock-step (default Math.random). */
  readonly random?: () => number;
}

/**
 * A background loop: runs `tick` again and again with a jittered pause between, never two at once,
 * until stop(). Its last successful tick is its heartbeat (for platform status). Background work of
 * every feature (the noise scheduler, attempt release ticks) runs on one of these, started and
 * stopped by the context.
 */
export class Ticker {
  readonly #name: string;
  readonly #tick: () => Promise<unknown>;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #tickMs: number;
  readonly #sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly #random: () => number;
  #loop: Promise<void> | undefined;
  #stop: AbortController | undefined;
  #lastTickAt: number | undefined;
  #lastTickError: string | undefined;

  constructor(
    name: string,
    tick: () => Promise<unknown>,
    deps: { clock: Clock; log: Logger },
    options: TickerOptions = {},
  ) {
    this.#name = name;
    this.#tick = tick;
    this.#clock = deps.clock;
    this.#log = deps.log;
    this.#tickMs = options.tickMs ?? 1000;
    this.#sleep = options.sleep ?? ((ms, signal) => sleep(ms, undefined, { signal }));
    this.#random = options.random ?? Math.random;
  }

  /** Clock time (epoch ms) at the start of the last tick that succeeded. */
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
    this.#log.info({ tick_ms: this.#tickMs }, `${this.#name} started.`);
    this.#loop = (async () => {
      while (!stop.signal.aborted) {
        try {
          await this.tickOnce();
        } catch (err) {
          this.#log.warn({ err }, `${this.#name} tick failed; retrying.`);
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

  /** One tick, recorded as the heartbeat when it succeeds. */
  tickOnce(): Promise<unknown> {
    return this.record(this.#tick);
  }

  /** Runs `work` as a tick: its success is the heartbeat, its failure the last error. */
  async record<T>(work: () => Promise<T>): Promise<T> {
    const at = this.#clock.now();
    try {
      const value = await work();
      this.#lastTickAt = at;
      this.#lastTickError = undefined;
      return value;
    } catch (err) {
      this.#lastTickError = err instanceof Error ? err.message : String(err);
      throw err;
    }
  }

  /** Stops the loop after the current tick. */
  async stop(): Promise<void> {
    if (this.#loop === undefined) return;
    this.#stop?.abort();
    await this.#loop;
    this.#loop = undefined;
    this.#log.info(`${this.#name} stopped.`);
  }
}
