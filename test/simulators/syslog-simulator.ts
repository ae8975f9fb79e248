import { EventEmitter } from 'node:events';
import net from 'node:net';
import tls from 'node:tls';
import type { SimTls } from './sim-http-server.ts';
import { SyslogDeframer, type SyslogFraming } from './syslog-framing.ts';

/** One received syslog message. */
export interface SyslogMessage {
  /** The message as UTF-8 text (no trailer, no octet-count prefix). */
  readonly text: string;
  /** The message bytes exactly as received. */
  readonly bytes: Buffer;
  /** How this frame was delimited (`auto` decides per frame). */
  readonly framing: 'lf' | 'octet_counting';
  /** 1, 2, 3 … in accept order. */
  readonly connection: number;
  readonly receivedAt: number;
}

/** What the syslog simulator keeps for tests. */
export interface SyslogStore {
  readonly messages: SyslogMessage[];
  /** Message texts in arrival order. */
  texts(): string[];
  /** Framing violations; the connection was closed right after each. */
  readonly framingErrors: Array<{ readonly connection: number; readonly reason: string }>;
  /** Bytes left after the last complete frame when a connection closed. */
  readonly partials: Array<{ readonly connection: number; readonly bytes: Buffer }>;
  /** Connections accepted (after the TLS handshake when TLS is on). */
  readonly connections: number;
  readonly open: number;
  /** TLS handshakes that failed (e.g. the client did not trust the certificate). */
  readonly tlsFailures: number;
  readonly bytesReceived: number;
  /** Forgets messages, errors and counters. */
  clear(): void;
}

/** Fault switches of the syslog receiver. */
export interface SyslogFaults {
  /** Drops the next `connections` (default 1) connections that send data once `bytes` more have arrived. */
  dropAfterBytes(bytes: number, options?: { reset?: boolean; connections?: number }): void;
  /** Drops the next connection(s) right after `messages` more complete messages (the rest of that read is lost). */
  dropAfterMessages(messages: number, options?: { reset?: boolean; connections?: number }): void;
  /** Stop reading from every connection, new ones included: the sender's writes back up. */
  stallReads: boolean;
  /** Reset every new connection as soon as it is accepted. */
  resetConnections: boolean;
  /** Stops listening (ECONNREFUSED for new connections); open connections carry on. */
  refuse(): Promise<void>;
  /** Listens again on the same port. */
  accept(): Promise<void>;
  /** Resets every open connection now. */
  resetAll(): void;
  /** Forgets armed drops and switches everything back to normal. */
  clear(): void;
}

/** Options of {@link startSyslogSimulator}. */
export interface SyslogSimulatorOptions {
  readonly framing: SyslogFraming;
  readonly host?: string;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** Serve syslog over TLS (RFC 5425) with this certificate. */
  readonly tls?: SimTls;
  /** Largest message accepted (default 65 536 bytes); a larger frame is a framing error. */
  readonly maxMessageBytes?: number;
  readonly now?: () => number;
}

/** A running syslog TCP/TLS receiver. */
export interface SyslogSimulator {
  readonly host: string;
  readonly port: number;
  readonly framing: SyslogFraming;
  readonly tls: boolean;
  readonly store: SyslogStore;
  readonly faults: SyslogFaults;
  /** Resolves once at least `count` messages were stored. */
  waitForMessages(count: number): Promise<void>;
  /** Resolves once `predicate(store)` holds (checked after every received chunk and close). */
  until(predicate: (store: SyslogStore) => boolean): Promise<void>;
  close(): Promise<void>;
}

interface ArmedDrop {
  readonly kind: 'bytes' | 'messages';
  readonly amount: number;
  readonly reset: boolean;
  left: number;
}

/**
 * Starts a syslog receiver on TCP or TLS that stores every message with its exact bytes, counts
 * connections and can drop, stall, reset or refuse them. A simulator, not a SIEM: it parses no
 * syslog header and forwards nothing.
 */
export async function startSyslogSimulator(options: SyslogSimulatorOptions): Promise<SyslogSimulator> {
  const host = options.host ?? '127.0.0.1';
  const now = options.now ?? Date.now;
  const maxMessageBytes = options.maxMessageBytes ?? 65_536;
  const changed = new EventEmitter();
  changed.setMaxListeners(0);
  const messages: SyslogMessage[] = [];
  const framingErrors: Array<{ connection: number; reason: string }> = [];
  const partials: Array<{ connection: number; bytes: Buffer }> = [];
  const counters = { connections: 0, open: 0, tlsFailures: 0, bytesReceived: 0 };
  const sockets = new Set<net.Socket>();
  const armed: ArmedDrop[] = [];
  let stalled = false;
  let resetNew = false;

  const onConnection = (socket: net.Socket) => {
    if (resetNew) {
      socket.resetAndDestroy();
      return;
    }
    const connection = ++counters.connections;
    counters.open++;
    sockets.add(socket);
    const deframer = new SyslogDeframer(options.framing, maxMessageBytes);
    let drop: { kind: 'bytes' | 'messages'; left: number; reset: boolean } | undefined;
    socket.on('data', (chunk: Buffer) => {
      if (!drop) {
        const fault = armed.find((a) => a.left > 0);
        if (fault) {
          fault.left--;
          if (fault.left === 0) armed.splice(armed.indexOf(fault), 1);
          drop = { kind: fault.kind, left: fault.amount, reset: fault.reset };
        }
      }
      let data = chunk;
      let cut = false;
      if (drop?.kind === 'bytes') {
        if (data.length >= drop.left) {
          data = data.subarray(0, drop.left);
          cut = true;
        }
        drop.left -= data.length;
      }
      counters.bytesReceived += data.length;
      const { frames, error } = deframer.push(data);
      for (const frame of frames) {
        if (drop?.kind === 'messages') {
          if (drop.left === 0) {
            cut = true;
            break;
          }
          drop.left--;
        }
        messages.push({
          text: frame.bytes.toString('utf8'),
          bytes: frame.bytes,
          framing: frame.framing,
          connection,
          receivedAt: now(),
        });
      }
      if (drop?.kind === 'messages' && drop.left === 0) cut = true;
      if (error) {
        framingErrors.push({ connection, reason: error });
        socket.destroy();
      } else if (cut) {
        if (drop?.reset) socket.resetAndDestroy();
        else socket.destroy();
      }
      changed.emit('change');
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      const rest = deframer.rest();
      if (rest.length > 0) partials.push({ connection, bytes: Buffer.from(rest) });
      counters.open--;
      sockets.delete(socket);
      changed.emit('change');
    });
    if (!stalled) socket.resume();
    changed.emit('change');
  };

  const server: net.Server = options.tls
    ? // The handshake needs the raw socket flowing; stalling applies once it is done.
      tls.createServer({ cert: options.tls.cert, key: options.tls.key })
    : net.createServer({ pauseOnConnect: true });
  if (options.tls) {
    server.on('secureConnection', (socket: tls.TLSSocket) => {
      if (stalled) socket.pause();
      onConnection(socket);
    });
    server.on('tlsClientError', () => {
      counters.tlsFailures++;
      changed.emit('change');
    });
  } else {
    server.on('connection', onConnection);
  }
  let port = options.port ?? 0;
  await listen(server, port, host);
  port = (server.address() as net.AddressInfo).port;

  const store: SyslogStore = {
    messages,
    texts: () => messages.map((m) => m.text),
    framingErrors,
    partials,
    get connections() {
      return counters.connections;
    },
    get open() {
      return counters.open;
    },
    get tlsFailures() {
      return counters.tlsFailures;
    },
    get bytesReceived() {
      return counters.bytesReceived;
    },
    clear() {
      messages.length = 0;
      framingErrors.length = 0;
      partials.length = 0;
      counters.connections = 0;
      counters.tlsFailures = 0;
      counters.bytesReceived = 0;
    },
  };

  const faults: SyslogFaults = {
    dropAfterBytes(bytes, opts = {}) {
      armed.push({ kind: 'bytes', amount: bytes, reset: opts.reset ?? false, left: opts.connections ?? 1 });
    },
    dropAfterMessages(count, opts = {}) {
      armed.push({
        kind: 'messages',
        amount: count,
        reset: opts.reset ?? false,
        left: opts.connections ?? 1,
      });
    },
    get stallReads() {
      return stalled;
    },
    set stallReads(value: boolean) {
      stalled = value;
      for (const s of sockets) {
        if (value) s.pause();
        else s.resume();
      }
    },
    get resetConnections() {
      return resetNew;
    },
    set resetConnections(value: boolean) {
      resetNew = value;
    },
    async refuse() {
      if (server.listening) server.close();
    },
    async accept() {
      if (!server.listening) await listen(server, port, host);
    },
    resetAll() {
      for (const s of sockets) s.resetAndDestroy();
    },
    clear() {
      armed.length = 0;
      faults.stallReads = false;
      resetNew = false;
    },
  };

  const until = (predicate: (s: SyslogStore) => boolean) =>
    new Promise<void>((resolve) => {
      if (predicate(store)) return resolve();
      const check = () => {
        if (!predicate(store)) return;
        changed.off('change', check);
        resolve();
      };
      changed.on('change', check);
    });

  return {
    host,
    port,
    framing: options.framing,
    tls: options.tls !== undefined,
    store,
    faults,
    waitForMessages: (count) => until((s) => s.messages.length >= count),
    until,
    async close() {
      stalled = false;
      for (const s of sockets) s.destroy();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function listen(server: net.Server, port: number, host: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
