import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import { EventRing } from './event-ring.ts';
import { encodeSseEvent } from './sse-frame.ts';
import { diffReadings, sortedComponents } from './status-diff.ts';
import type { MonitoringProvider, StatusComponent, StatusReading, StatusSnapshot } from './status-types.ts';

/** Receives encoded event frames (one chunk per poll that changed something). */
export type StatusListener = (chunk: Buffer) => void;

/** Why a snapshot is sent: a plain connect, or a Last-Event-ID that could not be honoured. */
export type SnapshotCause = 'connect' | 'reset';

/** What a new stream writes first, and how it stops listening. */
export interface Subscription {
  /** A `snapshot` event, or the events missed since Last-Event-ID (possibly none: empty). */
  readonly initial: Buffer;
  /** True when Last-Event-ID was honoured, so `initial` holds the missed events. */
  readonly resumed: boolean;
  unsubscribe(): void;
}

/** Settings of the hub; the defaults follow docs/platform-status.md. */
export interface StatusHubOptions {
  provider: MonitoringProvider;
  clock: Clock;
  log: Logger;
  /** Poll interval; defaults to the provider's. */
  intervalMs?: number;
  /** Events kept for Last-Event-ID replay (default 1,000). */
  replayLimit?: number;
  /** Oldest event kept for replay (default 5 minutes). */
  replayMaxAgeMs?: number;
}

const EVENT_ID = /^([0-9a-f]{12})-(\d{1,15})$/;

/**
 * The one poller of an instance and the fan-out to every stream: it polls the provider, folds the
 * readings into the current state, numbers each change, keeps the last ones for replay, and hands
 * each change to every listener as an already encoded frame (encoded once, not once per client).
 */
export class StatusHub {
  readonly provider: MonitoringProvider;
  readonly intervalMs: number;
  /** Distinguishes this process's event ids from another instance's or an earlier run's. */
  readonly bootId = randomBytes(6).toString('hex');
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #ring: EventRing;
  readonly #listeners = new Set<StatusListener>();
  #components = new Map<string, StatusComponent>();
  #polledAt: number | null = null;
  #snapshotFrames = new Map<SnapshotCause, Buffer>();
  #queue: Promise<void> = Promise.resolve();
  #inFlight: AbortController | undefined;
  #timer: NodeJS.Timeout | undefined;
  #started = false;
  #closed = false;

  constructor(options: StatusHubOptions) {
    this.provider = options.provider;
    this.intervalMs = options.intervalMs ?? options.provider.intervalMs;
    this.#clock = options.clock;
    this.#log = options.log;
    this.#ring = new EventRing(options.replayLimit ?? 1000, options.replayMaxAgeMs ?? 5 * 60_000);
  }

  /** Polls now and then every interval until closed; calling it again does nothing. */
  start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    this.#loop();
  }

  /** Runs one poll after any poll in progress; resolves when its changes are published. Never rejects. */
  pollNow(): Promise<void> {
    const run = this.#queue.then(() => this.#pollOnce());
    this.#queue = run;
    return run;
  }

  /** Stops polling (cancelling a poll in progress) and forgets every listener. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#inFlight?.abort();
    await this.#queue;
    this.#listeners.clear();
  }

  /** Id of the last event (`<boot>-<seq>`); `<boot>-0` before the first. */
  get lastEventId(): string {
    return `${this.bootId}-${this.#ring.lastSeq}`;
  }

  /** Number of open subscriptions. */
  get listenerCount(): number {
    return this.#listeners.size;
  }

  /** The current state. */
  snapshot(): StatusSnapshot {
    return {
      event_id: this.lastEventId,
      provider: this.provider.name,
      polled_at: this.#polledAt === null ? null : new Date(this.#polledAt).toISOString(),
      components: sortedComponents(this.#components),
    };
  }

  /**
   * Starts listening. With a Last-Event-ID of this process still inside the replay window, the
   * subscription starts with exactly the events after it; otherwise with a fresh snapshot. Both
   * the initial frames and the registration happen in one synchronous step, so no event is lost
   * or sent twice between them.
   */
  subscribe(listener: StatusListener, lastEventId?: string): Subscription {
    if (this.#closed) throw new Error('status hub is closed');
    let initial: Buffer | null = null;
    if (lastEventId !== undefined) {
      const seq = this.#ownSeq(lastEventId);
      const missed = seq === null ? null : this.#ring.after(seq, this.#clock.now());
      if (missed) initial = Buffer.concat(missed.map((e) => e.frame));
    }
    const resumed = initial !== null;
    initial ??= this.#snapshotFrame(lastEventId === undefined ? 'connect' : 'reset');
    this.#listeners.add(listener);
    return {
      initial,
      resumed,
      unsubscribe: () => {
        this.#listeners.delete(listener);
      },
    };
  }

  #loop = (): void => {
    this.#timer = undefined;
    void this.pollNow().then(() => {
      if (this.#closed) return;
      this.#timer = setTimeout(this.#loop, this.intervalMs);
      this.#timer.unref();
    });
  };

  async #pollOnce(): Promise<void> {
    if (this.#closed) return;
    const controller = new AbortController();
    this.#inFlight = controller;
    try {
      const readings = await this.provider.poll(controller.signal);
      if (!this.#closed) this.#apply(readings);
    } catch (err) {
      if (!this.#closed)
        this.#log.warn({ err, provider: this.provider.name }, 'Platform status poll failed.');
    } finally {
      this.#inFlight = undefined;
    }
  }

  #apply(readings: readonly StatusReading[]): void {
    const now = this.#clock.now();
    const { next, changes } = diffReadings(this.#components, readings, now);
    this.#components = next;
    this.#polledAt = now;
    this.#snapshotFrames.clear();
    if (changes.length === 0) return;
    const frames: Buffer[] = [];
    for (const change of changes) {
      const seq = this.#ring.lastSeq + 1;
      const frame = Buffer.from(
        encodeSseEvent({ id: `${this.bootId}-${seq}`, event: 'status', data: JSON.stringify(change) }),
      );
      this.#ring.push({ seq, at: now, frame });
      frames.push(frame);
    }
    const chunk = frames.length === 1 ? (frames[0] as Buffer) : Buffer.concat(frames);
    for (const listener of this.#listeners) {
      try {
        listener(chunk);
      } catch (err) {
        this.#log.error({ err }, 'Platform status listener failed.');
      }
    }
  }

  #snapshotFrame(cause: SnapshotCause): Buffer {
    let frame = this.#snapshotFrames.get(cause);
    if (!frame) {
      const data = JSON.stringify({ cause, ...this.snapshot() });
      frame = Buffer.from(encodeSseEvent({ id: this.lastEventId, event: 'snapshot', data }));
      this.#snapshotFrames.set(cause, frame);
    }
    return frame;
  }

  /** The sequence number of one of this process's event ids, or null for anything else. */
  #ownSeq(eventId: string): number | null {
    const m = EVENT_ID.exec(eventId.trim());
    if (!m || m[1] !== this.bootId) return null;
    return Number(m[2]);
  }
}
