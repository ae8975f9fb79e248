import type { ServerResponse } from 'node:http';
import type { SessionEnded, SessionEvents } from '../auth/session-events.ts';
import type { Logger } from '../logger.ts';
import { type CloseReason, SseConnection } from './sse-connection.ts';
import { encodeSseComment, encodeSseEvent, encodeSseRetry } from './sse-frame.ts';
import type { StatusHub } from './status-hub.ts';

/** Timing and buffering of event streams. */
export interface StreamSettings {
  /** Interval of heartbeat comments and of the session re-check (default 14 s). */
  heartbeatMs: number;
  /** Unread data older than this drops the client (default 30 s). */
  stallTimeoutMs: number;
  /** Buffered bytes per client beyond which it is dropped (default 1 MiB). */
  maxBufferedBytes: number;
  /** Reconnection delay suggested to clients (default 5 s). */
  retryMs: number;
}

/** The defaults of docs/platform-status.md. */
export const DEFAULT_STREAM_SETTINGS: StreamSettings = {
  // 14 s: the contract says a heartbeat at least every 15 s, and timers fire a few ms late.
  heartbeatMs: 14_000,
  stallTimeoutMs: 30_000,
  maxBufferedBytes: 1024 * 1024,
  retryMs: 5_000,
};

/** Whose session a stream belongs to. */
export interface StreamOwner {
  readonly userId: string;
  readonly sessionHash: string;
}

/** What the stream set needs. */
export interface StatusStreamsDeps {
  hub: StatusHub;
  sessionEvents: SessionEvents;
  /** Which of these session hashes are still valid; asked at every heartbeat. */
  liveSessions: (hashes: string[]) => Promise<Set<string>>;
  log: Logger;
  settings: StreamSettings;
}

/** Counters for operators, tests and the benchmark. */
export interface StreamStats {
  open: number;
  /** Open streams whose client is not reading what was written. */
  stalled: number;
  opened: number;
  /** The most bytes held for one client, over every stream so far. */
  peakBufferedBytes: number;
  closed: Record<CloseReason, number>;
}

const HEARTBEAT = Buffer.from(encodeSseComment('heartbeat'));

/**
 * Every open platform-status stream of this instance. One timer writes the heartbeats and
 * re-checks all sessions in one query; one listener on the session events closes the streams of a
 * session (or user) the moment it ends.
 */
export class StatusStreams {
  readonly #deps: StatusStreamsDeps;
  readonly #streams = new Map<SseConnection, { owner: StreamOwner; unsubscribe: () => void }>();
  readonly #retry: Buffer;
  #timer: NodeJS.Timeout | undefined;
  #sweeping = false;
  #closed = false;
  readonly #stats: StreamStats = {
    open: 0,
    stalled: 0,
    opened: 0,
    peakBufferedBytes: 0,
    closed: {
      client_closed: 0,
      buffer_full: 0,
      stalled: 0,
      session_ended: 0,
      session_expired: 0,
      shutdown: 0,
    },
  };

  constructor(deps: StatusStreamsDeps) {
    this.#deps = deps;
    this.#retry = Buffer.from(encodeSseRetry(deps.settings.retryMs));
    deps.sessionEvents.on('ended', this.#onSessionEnded);
  }

  /** Number of open streams. */
  get size(): number {
    return this.#streams.size;
  }

  /** A copy of the counters. */
  stats(): StreamStats {
    let stalled = 0;
    let peak = this.#stats.peakBufferedBytes;
    for (const conn of this.#streams.keys()) {
      if (conn.stalled) stalled += 1;
      peak = Math.max(peak, conn.peakBufferedBytes);
    }
    return {
      ...this.#stats,
      open: this.#streams.size,
      stalled,
      peakBufferedBytes: peak,
      closed: { ...this.#stats.closed },
    };
  }

  /**
   * Takes over a response: sends the headers, the reconnection delay and either a snapshot or the
   * events missed since `lastEventId`, then every change until the stream ends.
   */
  open(res: ServerResponse, owner: StreamOwner, lastEventId: string | undefined): SseConnection {
    const conn = new SseConnection(res, {
      maxBufferedBytes: this.#deps.settings.maxBufferedBytes,
      stallTimeoutMs: this.#deps.settings.stallTimeoutMs,
      onClose: this.#onConnectionClose,
    });
    if (this.#closed) {
      conn.destroy('shutdown');
      return conn;
    }
    const sub = this.#deps.hub.subscribe((chunk) => conn.write(chunk), lastEventId);
    this.#streams.set(conn, { owner, unsubscribe: sub.unsubscribe });
    this.#stats.opened += 1;
    // The first frames are the state itself; the per-client cap applies to what piles up after.
    conn.open(Buffer.concat([this.#retry, sub.initial]));
    if (this.#timer === undefined && !conn.closed) {
      this.#timer = setInterval(() => void this.tick(), this.#deps.settings.heartbeatMs);
      this.#timer.unref();
    }
    return conn;
  }

  /** Writes a heartbeat to every stream and closes those whose session is no longer valid. */
  async tick(): Promise<void> {
    for (const conn of this.#streams.keys()) conn.write(HEARTBEAT);
    if (this.#sweeping || this.#streams.size === 0) return;
    this.#sweeping = true;
    try {
      const hashes = [...new Set([...this.#streams.values()].map((s) => s.owner.sessionHash))];
      const live = await this.#deps.liveSessions(hashes);
      for (const [conn, { owner }] of this.#streams) {
        if (!live.has(owner.sessionHash)) conn.end('session_expired', endFrame('session_expired'));
      }
    } catch (err) {
      this.#deps.log.warn({ err }, 'Platform status streams: session re-check failed.');
    } finally {
      this.#sweeping = false;
    }
  }

  /** Ends every stream (with an `end` event where the client keeps up) and stops accepting new ones. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#deps.sessionEvents.off('ended', this.#onSessionEnded);
    clearInterval(this.#timer);
    this.#timer = undefined;
    for (const conn of [...this.#streams.keys()]) conn.end('shutdown', endFrame('shutdown'));
  }

  #onSessionEnded = (what: SessionEnded): void => {
    for (const [conn, { owner }] of this.#streams) {
      const match =
        'sessionHash' in what ? owner.sessionHash === what.sessionHash : owner.userId === what.userId;
      if (match) conn.end('session_ended', endFrame('session_ended'));
    }
  };

  #onConnectionClose = (conn: SseConnection, reason: CloseReason): void => {
    this.#stats.closed[reason] += 1;
    this.#stats.peakBufferedBytes = Math.max(this.#stats.peakBufferedBytes, conn.peakBufferedBytes);
    const entry = this.#streams.get(conn);
    if (!entry) return;
    this.#streams.delete(conn);
    entry.unsubscribe();
    if (this.#streams.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
    this.#deps.log.debug({ reason, userId: entry.owner.userId }, 'Platform status stream closed.');
  };
}

/** The last event of a stream that the server ends on purpose. */
function endFrame(reason: CloseReason): string {
  return encodeSseEvent({ event: 'end', data: JSON.stringify({ reason }) });
}
