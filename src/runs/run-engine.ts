import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';

/**
 * A lease on the row a run works on (a noise job, an attempt's section): taken by the caller under
 * the row's lock before the run starts, extended here while it runs. Whoever takes over an expired
 * lease knows the run that held it died.
 */
export interface RunLease {
  /** Names the leased row in logs (e.g. the job id). */
  readonly key: string;
  /** This run's owner string (RunEngine.newOwner). */
  readonly owner: string;
  /** Extends the lease from `now`; false when it was lost (expired and taken over, row deleted). */
  extend(now: number, leaseMs: number): Promise<boolean>;
}

/** Timing of leases; defaults suit production. */
export interface RunEngineOptions {
  /** How long a lease lasts without a heartbeat; another instance takes over after it (default 60 s). */
  readonly leaseMs?: number;
  /** How often running work extends its lease (default a third of leaseMs). */
  readonly heartbeatMs?: number;
  /** How long close() waits for aborted runs to end (default 8 s). */
  readonly shutdownGraceMs?: number;
}

/** How a run names what happened to it, in the errors its signal aborts with. */
export interface RunWording {
  /** When the service stops during the run (default "the service stopped during the run"). */
  readonly stopped?: string;
  /** When its lease was lost (default "the run lost its lease (it expired and was taken over)"). */
  readonly leaseLost?: string;
}

interface Flight {
  readonly lease: RunLease;
  readonly controller: AbortController;
  readonly wording: Required<RunWording>;
  done?: Promise<unknown>;
}

/**
 * Runs leased background work in this process — noise dispatches today, attempt shipments next:
 * keeps each run's lease alive with heartbeats, aborts a run whose lease was lost, refuses new runs
 * once closing, and on close aborts every run and waits (bounded) for them to end. What a run does
 * and what rows it keeps are the caller's; the engine only owns the in-process lifecycle.
 */
export class RunEngine {
  readonly leaseMs: number;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #instanceId: string;
  readonly #heartbeatMs: number;
  readonly #graceMs: number;
  readonly #flights = new Set<Flight>();
  /** Starts between the closed check and their flight (taking a lease): close() waits for them. */
  readonly #startingNow = new Set<Promise<unknown>>();
  #heartbeatTimer: NodeJS.Timeout | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;

  constructor(deps: { clock: Clock; log: Logger; instanceId: string }, options: RunEngineOptions = {}) {
    this.#clock = deps.clock;
    this.#log = deps.log;
    this.#instanceId = deps.instanceId;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.#heartbeatMs = options.heartbeatMs ?? Math.max(1, Math.floor(this.leaseMs / 3));
    // 8 s: a shutdown hook waiting for this must end within the HTTP server's 10 s hook limit.
    this.#graceMs = options.shutdownGraceMs ?? 8_000;
  }

  /** Runs going on in this process. */
  get inFlight(): number {
    return this.#flights.size;
  }

  /** A new, unique lease owner for one run of this instance: `<instance>/<uuid>`. */
  newOwner(): string {
    return `${this.#instanceId}/${randomUUID()}`;
  }

  /**
   * Runs `start` (a request taking its lease and starting its run) unless the engine is closed,
   * tracked until it returns, so close() can wait for it and then stop the run it started too.
   */
  async starting<T>(start: () => Promise<T>, what = 'run'): Promise<T> {
    if (this.#closed) throw new AppError('unavailable', `The service is stopping; no new ${what} starts`);
    const p = start();
    this.#startingNow.add(p);
    try {
      return await p;
    } finally {
      this.#startingNow.delete(p);
    }
  }

  /**
   * Runs `work` with `lease` kept alive; its signal aborts when the lease is lost or the engine
   * closes. A run started after close() began is aborted at once.
   */
  run<T>(lease: RunLease, work: (signal: AbortSignal) => Promise<T>, wording: RunWording = {}): Promise<T> {
    const flight: Flight = {
      lease,
      controller: new AbortController(),
      wording: {
        stopped: wording.stopped ?? 'the service stopped during the run',
        leaseLost: wording.leaseLost ?? 'the run lost its lease (it expired and was taken over)',
      },
    };
    this.#flights.add(flight);
    if (this.#closed) flight.controller.abort(new Error(flight.wording.stopped));
    this.#startHeartbeat();
    const done = (async () => {
      try {
        return await work(flight.controller.signal);
      } finally {
        this.#flights.delete(flight);
        if (this.#flights.size === 0) this.#stopHeartbeat();
      }
    })();
    flight.done = done;
    return done;
  }

  /**
   * Extends the lease of every run going on here; a run whose lease was lost (it expired and
   * another instance took the row over) is aborted. Runs on a timer; tests call it directly.
   */
  async heartbeat(): Promise<void> {
    for (const flight of [...this.#flights]) {
      const { lease } = flight;
      try {
        const held = await lease.extend(this.#clock.now(), this.leaseMs);
        if (!held && !flight.controller.signal.aborted) {
          this.#log.error({ key: lease.key, owner: lease.owner }, 'A run lost its lease; stopping it.');
          flight.controller.abort(new Error(flight.wording.leaseLost));
        }
      } catch (err) {
        this.#log.warn({ err, key: lease.key }, 'A run lease could not be extended.');
      }
    }
  }

  /** Resolves once every run going on here now has ended. */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.#flights].map((f) => f.done));
  }

  /**
   * Refuses new runs, aborts every run going on here and waits (bounded) for them to end. Later
   * calls share the first one's end: a run that ignores its abort costs the grace period once.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#closed = true;
    // Requests taking their lease right now: once started, their runs are aborted at once (run()
    // sees #closed) and awaited below with the others, so none outlives the close.
    await Promise.allSettled([...this.#startingNow]);
    const dones: Promise<unknown>[] = [];
    for (const flight of this.#flights) {
      flight.controller.abort(new Error(flight.wording.stopped));
      if (flight.done) dones.push(flight.done);
    }
    if (dones.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.#graceMs);
      });
      await Promise.race([Promise.allSettled(dones), grace]);
      clearTimeout(timer);
    }
    this.#stopHeartbeat();
  }

  #startHeartbeat(): void {
    if (this.#heartbeatTimer) return;
    this.#heartbeatTimer = setInterval(() => void this.heartbeat(), this.#heartbeatMs);
    this.#heartbeatTimer.unref();
  }

  #stopHeartbeat(): void {
    clearInterval(this.#heartbeatTimer);
    this.#heartbeatTimer = undefined;
  }
}
