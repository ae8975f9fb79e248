import { backoffDelay, type RetryPolicy, type Wait } from '../shared/backoff.ts';
import type { ShipLedger } from '../shared/ship-ledger.ts';
import { type Failure, failure } from '../siem-failure.ts';
import type { ConnectOutcome, SyslogConnection } from './syslog-connection.ts';

/** Frames of several events, encoded once and kept until the receiver confirmed them. */
export interface Chunk {
  readonly data: Buffer;
  readonly events: number;
  /** Written at least once: writing it again is a retry (and may duplicate its events). */
  sent: boolean;
}

/** When a window is confirmed by a graceful close (whichever limit is reached first). */
export interface ConfirmLimits {
  /** Bytes written on one connection: the most that can be duplicated after a drop. */
  readonly bytes: number;
  /** Age of the oldest unconfirmed chunk, checked when a chunk is added (progress on slow input). */
  readonly ms: number;
}

/** 4 MiB or 5 s per connection. */
export const DEFAULT_CONFIRM_LIMITS: ConfirmLimits = { bytes: 4 << 20, ms: 5_000 };

/** What a window needs from the driver. */
export interface DeliveryWindowContext {
  readonly ledger: ShipLedger;
  readonly signal: AbortSignal;
  readonly policy: RetryPolicy;
  readonly wait: Wait;
  readonly random: () => number;
  readonly limits: ConfirmLimits;
  readonly connect: (signal: AbortSignal) => Promise<ConnectOutcome>;
  /** Turns a cause into a message naming the SIEM and the endpoint. */
  readonly describe: (cause: string) => string;
  /** Called before each retry, for the log. */
  readonly onRetry?: (attempt: number, cause: string, delayMs: number) => void;
  readonly now?: () => number;
}

/**
 * At-least-once delivery over plain TCP, which has no acknowledgement of its own.
 *
 * Chunks are written to a connection and kept. They count as shipped only when that connection
 * closes gracefully (SyslogConnection.finish): the receiver then read every byte before our FIN.
 * A write callback proves nothing — the bytes may still sit in the kernel's buffers when the
 * receiver goes away. The connection is therefore closed and a new one opened every
 * `limits.bytes` (or `limits.ms`), which bounds both the memory held for re-sending and the
 * unconfirmed zone.
 *
 * When a connection fails (error, reset, early close by the receiver, stall, failed close), the
 * whole unconfirmed window is written again on a new connection after a jittered backoff: every
 * re-written event is counted in `retried`, because the receiver may already hold it (a possible
 * duplicate, never a silent loss). After `policy.attempts` failures in a row without a
 * confirmation, or at once for a certificate problem, the window and everything after it are
 * counted failed and the shipment stops.
 */
export class DeliveryWindow {
  readonly #ctx: DeliveryWindowContext;
  readonly #now: () => number;
  #chunks: Chunk[] = [];
  #bytes = 0;
  #events = 0;
  #openedAt = 0;
  #connection: SyslogConnection | undefined;
  /** Chunks of the window written on the current connection. */
  #written = 0;
  /** Failed connects and dropped connections since the last confirmation. */
  #failures = 0;
  #lastCause = '';

  constructor(ctx: DeliveryWindowContext) {
    this.#ctx = ctx;
    this.#now = ctx.now ?? Date.now;
  }

  /** Adds a chunk and writes it (waiting while the receiver is slow); confirms when a limit is reached. */
  async push(chunk: Chunk): Promise<void> {
    if (this.#ctx.ledger.stopped !== undefined) {
      this.#ctx.ledger.fail(chunk.events, this.#ctx.ledger.stopped);
      return;
    }
    if (this.#chunks.length === 0) this.#openedAt = this.#now();
    this.#chunks.push(chunk);
    this.#bytes += chunk.data.length;
    this.#events += chunk.events;
    if (!(await this.#writeAll())) return;
    const { limits } = this.#ctx;
    if (this.#bytes >= limits.bytes || this.#now() - this.#openedAt >= limits.ms) await this.#confirm();
  }

  /** Confirms what is left; the shipment's counters are final afterwards. */
  async finish(): Promise<void> {
    if (this.#chunks.length > 0) await this.#confirm();
    this.#connection?.destroy();
    this.#connection = undefined;
  }

  /** Writes every chunk of the window not yet on the current connection, reconnecting as needed; false when given up. */
  async #writeAll(): Promise<boolean> {
    const { ledger, signal } = this.#ctx;
    for (;;) {
      if (signal.aborted) return this.#abandon(failure('cancelled', this.#ctx.describe('cancelled')));
      if (ledger.stopped !== undefined) return this.#abandon(ledger.stopped);
      if (this.#connection === undefined && !(await this.#reconnect())) continue;
      const connection = this.#connection as SyslogConnection;
      while (this.#written < this.#chunks.length) {
        const chunk = this.#chunks[this.#written] as Chunk;
        if (chunk.sent) ledger.retry(chunk.events);
        chunk.sent = true;
        if (!(await connection.write(chunk.data))) break;
        this.#written++;
      }
      if (this.#written === this.#chunks.length) return true;
      this.#dropped(connection.failure ?? 'the connection failed');
    }
  }

  /** One connection attempt after the backoff its failure count asks for; false when it did not open. */
  async #reconnect(): Promise<boolean> {
    const ctx = this.#ctx;
    if (this.#failures > 0) {
      if (this.#failures >= ctx.policy.attempts) {
        this.#abandon(
          failure(
            'unreachable',
            ctx.describe(`${this.#lastCause}; gave up after ${this.#failures} attempts`),
          ),
          true,
        );
        return false;
      }
      const delay = backoffDelay(this.#failures, ctx.policy, ctx.random);
      ctx.onRetry?.(this.#failures, this.#lastCause, delay);
      if (!(await ctx.wait(delay, ctx.signal))) return false;
    }
    const opened = await ctx.connect(ctx.signal);
    if (!opened.ok) {
      this.#lastCause = opened.cause;
      if (opened.fatal) this.#abandon(failure(opened.reason, ctx.describe(opened.cause)), true);
      else this.#failures++;
      return false;
    }
    this.#connection = opened.connection;
    this.#written = 0;
    return true;
  }

  /** Closes the connection gracefully and counts the window shipped; retries the window on failure. */
  async #confirm(): Promise<void> {
    while (this.#chunks.length > 0) {
      if (!(await this.#writeAll())) return;
      const connection = this.#connection as SyslogConnection;
      this.#connection = undefined;
      const failure = await connection.finish();
      if (failure !== undefined) {
        this.#dropped(failure);
        continue;
      }
      this.#ctx.ledger.accept(this.#events, this.#bytes);
      this.#chunks = [];
      this.#bytes = 0;
      this.#events = 0;
      this.#failures = 0;
      this.#ctx.ledger.progress();
    }
  }

  #dropped(cause: string): void {
    this.#connection?.destroy();
    this.#connection = undefined;
    this.#lastCause = cause;
    this.#failures++;
  }

  /**
   * Counts the window failed with `why` (stopping the shipment when `stop`); notes how many of
   * those events were written and may still have reached the receiver. Returns false.
   */
  #abandon(why: Failure, stop = false): false {
    const { ledger } = this.#ctx;
    if (stop) ledger.stop(why);
    let written = 0;
    for (const chunk of this.#chunks) if (chunk.sent) written += chunk.events;
    ledger.fail(this.#events, why);
    if (written > 0) {
      ledger.note(
        this.#ctx.describe(
          `${written} of the failed events had been written and may have reached the receiver`,
        ),
      );
    }
    this.#connection?.destroy();
    this.#connection = undefined;
    this.#chunks = [];
    this.#bytes = 0;
    this.#events = 0;
    return false;
  }
}
