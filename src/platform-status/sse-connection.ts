import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** Why a stream ended. */
export type CloseReason =
  | 'client_closed'
  | 'buffer_full'
  | 'stalled'
  | 'session_ended'
  | 'session_expired'
  | 'shutdown';

/** Limits of one connection. */
export interface SseConnectionOptions {
  /** Bytes Node may hold for this client before it is dropped (default 1 MiB). */
  maxBufferedBytes: number;
  /** How long a client may leave written data unread before it is dropped (default 30 s). */
  stallTimeoutMs: number;
  /** Called once when the connection ends, whatever the cause. */
  onClose: (connection: SseConnection, reason: CloseReason) => void;
}

/** Headers of every event stream: no caching, no proxy buffering, never compressed. */
export const SSE_HEADERS: OutgoingHttpHeaders = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
  'x-content-type-options': 'nosniff',
};

/**
 * One server-sent-event response with bounded buffering. A write never waits: when the socket
 * pushes back, the data stays in Node's buffer, a stall timer starts, and 'drain' clears it. A
 * client that lets more than `maxBufferedBytes` pile up is dropped at once, one that reads nothing
 * for `stallTimeoutMs` when the timer fires. Because no write waits on 'drain', nothing is left
 * hanging when the socket closes under backpressure, and nothing is written after close.
 */
export class SseConnection {
  readonly #res: ServerResponse;
  readonly #options: SseConnectionOptions;
  #stallTimer: NodeJS.Timeout | undefined;
  #closed = false;
  #peakBuffered = 0;

  constructor(res: ServerResponse, options: SseConnectionOptions) {
    this.#res = res;
    this.#options = options;
    res.on('drain', this.#onDrain);
    res.once('close', this.#onSocketClose);
    // Errors surface as 'close' too; without a listener an 'error' would crash the process.
    res.on('error', noop);
  }

  /** True once the connection ended (for any reason). */
  get closed(): boolean {
    return this.#closed;
  }

  /** True while written data waits for the client to read (the stall timer runs). */
  get stalled(): boolean {
    return this.#stallTimer !== undefined;
  }

  /** The most bytes Node held for this client at any time. */
  get peakBufferedBytes(): number {
    return this.#peakBuffered;
  }

  /**
   * Sends the status line, the SSE headers and the first frames. The first frames are the state
   * itself, so they are not held to `maxBufferedBytes`; the cap is for what piles up after them.
   */
  open(first: Buffer | string, headers: OutgoingHttpHeaders = {}): void {
    if (this.#closed) return;
    this.#res.writeHead(200, { ...SSE_HEADERS, ...headers });
    this.#send(first);
  }

  /** Queues bytes; returns false when the connection is (now) closed. */
  write(chunk: Buffer | string): boolean {
    if (this.#closed) return false;
    const size = typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    if (size === 0) return true;
    if (this.#res.writableLength + size > this.#options.maxBufferedBytes) {
      this.destroy('buffer_full');
      return false;
    }
    this.#send(chunk);
    return true;
  }

  /** Ends the stream after a last frame; a client with unread data is cut off instead. */
  end(reason: CloseReason, last?: Buffer | string): void {
    if (this.#closed) return;
    if (this.#res.writableLength > 0 || this.#stallTimer !== undefined) {
      this.destroy(reason);
      return;
    }
    this.#finish(reason);
    if (last === undefined) this.#res.end();
    else this.#res.end(last);
  }

  /** Cuts the connection without a goodbye. */
  destroy(reason: CloseReason): void {
    if (this.#closed) return;
    this.#finish(reason);
    this.#res.destroy();
  }

  #send(chunk: Buffer | string): void {
    const flowing = this.#res.write(chunk);
    this.#peakBuffered = Math.max(this.#peakBuffered, this.#res.writableLength);
    if (!flowing && this.#stallTimer === undefined) {
      this.#stallTimer = setTimeout(() => this.destroy('stalled'), this.#options.stallTimeoutMs);
      this.#stallTimer.unref();
    }
  }

  #onDrain = (): void => {
    clearTimeout(this.#stallTimer);
    this.#stallTimer = undefined;
  };

  #onSocketClose = (): void => {
    this.#finish('client_closed');
  };

  #finish(reason: CloseReason): void {
    clearTimeout(this.#stallTimer);
    this.#stallTimer = undefined;
    this.#res.off('drain', this.#onDrain);
    this.#res.off('close', this.#onSocketClose);
    if (this.#closed) return;
    this.#closed = true;
    this.#options.onClose(this, reason);
  }
}

function noop(): void {}
