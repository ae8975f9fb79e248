import net from 'node:net';
import tls from 'node:tls';
import { classifyNetworkError } from '../shared/network-failure.ts';
import type { TlsSettings } from '../shared/tls-options.ts';
import { tlsConnectOptions } from '../shared/tls-options.ts';

/** Where and how to connect. */
export interface SyslogTarget extends TlsSettings {
  readonly host: string;
  readonly port: number;
  readonly tls: boolean;
}

/** Time limits of one connection, ms. */
export interface SyslogTimeouts {
  /** TCP connect plus, with TLS, the handshake. */
  readonly connectMs: number;
  /**
   * Longest time the receiver may take no data: a write waiting for 'drain', or the wait for the
   * receiver's close after ours. A stalled receiver then counts as a dropped connection.
   */
  readonly idleMs: number;
}

/** Connect 10 s; a receiver that reads nothing for 30 s is treated as gone. */
export const DEFAULT_SYSLOG_TIMEOUTS: SyslogTimeouts = { connectMs: 10_000, idleMs: 30_000 };

/** Outcome of openSyslogConnection. */
export type ConnectOutcome =
  | { readonly ok: true; readonly connection: SyslogConnection; readonly ms: number }
  /** `fatal`: retrying cannot help (certificate problem, cancelled); `reason`: the failure's kind. */
  | {
      readonly ok: false;
      readonly cause: string;
      readonly fatal: boolean;
      readonly reason: 'unreachable' | 'tls' | 'cancelled';
    };

/** `tcp://host:port` or `tls://host:port` (IPv6 in brackets), for messages. */
export function syslogEndpointLabel(target: Pick<SyslogTarget, 'host' | 'port' | 'tls'>): string {
  const host = target.host.includes(':') && !target.host.startsWith('[') ? `[${target.host}]` : target.host;
  return `${target.tls ? 'tls' : 'tcp'}://${host}:${target.port}`;
}

/**
 * Opens a TCP or TLS connection. TLS verifies the certificate unless `tls_verify` is false,
 * trusts `ca_pem` besides the public CAs, and sends SNI for host names (not for IP addresses,
 * which SNI does not allow). Never throws.
 */
export async function openSyslogConnection(
  target: SyslogTarget,
  timeouts: SyslogTimeouts,
  signal: AbortSignal,
): Promise<ConnectOutcome> {
  if (signal.aborted) return { ok: false, cause: 'cancelled', fatal: true, reason: 'cancelled' };
  const started = performance.now();
  const socket = target.tls
    ? tls.connect({
        host: target.host,
        port: target.port,
        ...(net.isIP(target.host) === 0 ? { servername: target.host } : {}),
        ...tlsConnectOptions(target),
      })
    : net.connect({ host: target.host, port: target.port });
  const ready = target.tls ? 'secureConnect' : 'connect';
  return new Promise<ConnectOutcome>((resolve) => {
    const settle = (outcome: ConnectOutcome) => {
      clearTimeout(timer);
      socket.off(ready, onReady);
      socket.off('error', onError);
      signal.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const onReady = () =>
      settle({
        ok: true,
        connection: new SyslogConnection(socket, timeouts.idleMs, signal),
        ms: performance.now() - started,
      });
    const onError = (err: Error) => {
      // A late second error from a destroyed TLS socket must not go unhandled.
      socket.on('error', () => {});
      socket.destroy();
      const failure = classifyNetworkError(err, signal);
      settle({
        ok: false,
        cause: failure.message,
        fatal: failure.tls || failure.cancelled,
        reason: failure.cancelled ? 'cancelled' : failure.tls ? 'tls' : 'unreachable',
      });
    };
    const onAbort = () => {
      socket.destroy();
      settle({ ok: false, cause: 'cancelled', fatal: true, reason: 'cancelled' });
    };
    const timer = setTimeout(() => {
      socket.destroy();
      const what = target.tls ? 'connect and TLS handshake' : 'connect';
      settle({
        ok: false,
        cause: `${what} timed out after ${timeouts.connectMs} ms`,
        fatal: false,
        reason: 'unreachable',
      });
    }, timeouts.connectMs);
    socket.once(ready, onReady);
    socket.on('error', onError);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Slowest reading speed (bytes/s) a receiver may have before waiting for its close counts as a
 * stall: the wait for the close grows by one second per 64 KiB the connection carried, so a
 * receiver behind a slow link gets the time to read a whole window (4 MiB: about a minute more).
 */
const SLOWEST_READER_BYTES_PER_S = 64 * 1024;

/**
 * One open connection to the receiver. Writes respect back-pressure: `write` resolves once Node
 * took the buffer and its queue is below the high-water mark, so at most one buffer waits in
 * user space. The first error, an early close by the receiver, a stall beyond `idleMs` or the
 * signal marks the connection failed (`failure`); it is never reused after that.
 */
export class SyslogConnection {
  readonly #socket: net.Socket;
  readonly #idleMs: number;
  #failure: string | undefined;
  #ending = false;
  #closed = false;
  /** Bytes handed to the socket. */
  #written = 0;
  /** Wakes a pending write or finish on drain, failure or close. */
  #wake: (() => void) | undefined;

  constructor(socket: net.Socket, idleMs: number, signal: AbortSignal) {
    this.#socket = socket;
    this.#idleMs = idleMs;
    socket.setNoDelay(true);
    socket.on('error', (err) => this.#fail(classifyNetworkError(err, signal).message));
    // The receiver never speaks, but its FIN only shows up while reading.
    socket.on('data', () => {});
    socket.on('end', () => {
      if (!this.#ending) this.#fail('the receiver closed the connection');
    });
    socket.on('drain', () => this.#wake?.());
    socket.on('close', () => {
      this.#closed = true;
      signal.removeEventListener('abort', this.#onAbort);
      this.#wake?.();
    });
    signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** Why the connection is unusable, or undefined while it is healthy. */
  get failure(): string | undefined {
    return this.#failure;
  }

  /**
   * Hands `data` to the socket; true when it was taken and the queue has room again, false when
   * the connection failed first (then the bytes may or may not have left).
   */
  async write(data: Buffer): Promise<boolean> {
    if (this.#failure !== undefined) return false;
    this.#written += data.length;
    if (this.#socket.write(data)) return true;
    await this.#waitFor(() => !this.#socket.writableNeedDrain, 'the receiver stopped reading', this.#idleMs);
    if (this.#closed) this.#fail('the connection closed');
    return this.#failure === undefined;
  }

  /**
   * Closes gracefully: sends FIN after the data and waits for the receiver to close its side.
   * Resolves undefined when that happened without an error, the only point where TCP tells a
   * sender that the receiver read everything (it sees our FIN only after the data, and a receiver
   * closing with unread data answers with a reset instead); else the failure. The wait is idleMs
   * plus the time a slow reader needs for what was written, or `waitMs` when given.
   */
  async finish(waitMs?: number): Promise<string | undefined> {
    // A close that came before ours (without an error or a FIN) confirms nothing.
    if (this.#closed && !this.#ending) this.#fail('the connection closed before it could be confirmed');
    if (this.#failure === undefined && !this.#closed) {
      waitMs ??= this.#idleMs + Math.ceil((this.#written / SLOWEST_READER_BYTES_PER_S) * 1000);
      this.#ending = true;
      this.#socket.end();
      await this.#waitFor(() => this.#closed, 'the receiver did not close the connection after ours', waitMs);
    }
    if (this.#failure === undefined && this.#socket.errored) this.#fail('the connection ended with an error');
    this.destroy();
    return this.#failure;
  }

  /** Drops the connection at once (a RST when data is still queued). */
  destroy(): void {
    if (!this.#socket.destroyed) this.#socket.destroy();
  }

  #onAbort = (): void => {
    this.#fail('cancelled');
  };

  #fail(reason: string): void {
    this.#failure ??= reason;
    this.destroy();
    this.#wake?.();
  }

  /** Waits until `done()`, a failure or a close; a wait longer than `ms` fails the connection. */
  async #waitFor(done: () => boolean, stalled: string, ms: number): Promise<void> {
    if (done() || this.#failure !== undefined) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.#fail(`${stalled} for ${ms} ms`), ms);
      this.#wake = () => {
        if (!done() && this.#failure === undefined && !this.#closed) return;
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
    });
  }
}
