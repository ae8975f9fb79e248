import { randomBytes, timingSafeEqual } from 'node:crypto';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import type { Clock } from '../../clock.ts';
import { AppError, invalidInput, notFound } from '../../errors.ts';
import type { Logger } from '../../logger.ts';

const MIB = 1024 * 1024;
const DEFAULT_SECONDS = 600;
const MAX_SECONDS = 3600;
/** The hard ceiling on what one listener keeps: the whole archive is held in memory until forgotten. */
const MAX_BYTES = 64 * MIB;
const DEFAULT_MAX_OPEN = 8;
/** A sender that connects but never names its token must not hold a connection slot for long. */
const TOKEN_WAIT_MS = 10_000;
/** Longer lines are not events a lab archive should carry, and would let one sender buffer without bound. */
const MAX_LINE_BYTES = 64 * 1024;
const MAX_CONNECTIONS = 16;
/**
 * Expired intakes stay readable this long so an author who was slow to finish still gets the data,
 * and finished ones this long so a finish whose storing failed can be tried again.
 */
const FORGET_AFTER_MS = 10 * 60 * 1000;
const TOKEN_BYTES = 32;
const LF = 0x0a;
const CR = 0x0d;
const FIRST_BLOCK = 16 * 1024;
const MAX_BLOCK = 1 * MIB;
const NEWLINE = Buffer.from('\n');

/** What an author may ask of one listener. */
export interface IntakeOptions {
  /** How long the listener accepts connections: 1..3600, default 600. */
  maxSeconds?: number;
  /** Bytes of kept lines (separators not counted) before intake stops: 1..ceiling, default the ceiling. */
  maxBytes?: number;
}

/** Where and how to send: connect to host:port and send `token` as the first line. */
export interface IntakeTicket {
  host: string;
  port: number;
  token: string;
  expires_at: string;
}

/** What arrived so far; `connections` counts accepted ones, `rejected` refused or dropped ones. */
export interface IntakeStatus {
  lines: number;
  bytes: number;
  connections: number;
  rejected: number;
  expires_at: string;
  state: 'open' | 'full' | 'expired' | 'finished';
}

/** Starts `callback` after `ms` and returns its cancel; injected so tests need not wait real seconds. */
export type SetTimer = (callback: () => void, ms: number) => () => void;

/** What IntakeListeners is built from. */
export interface IntakeListenersDeps {
  /** The address listeners bind to and tickets name (INTAKE_HOST). */
  host: string;
  clock: Clock;
  log: Logger;
  /** The configured cap on maxBytes (at most 64 MiB). */
  maxBytesCeiling?: number;
  /** Intakes held at once, expired ones included (each may hold maxBytes of memory). */
  maxOpen?: number;
  setTimer?: SetTimer;
}

/** A real timer that never keeps the process alive on its own. */
const realTimer: SetTimer = (callback, ms) => {
  const timer = setTimeout(callback, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

/**
 * Live TCP intakes for exercise authoring, one per key (an exercise section): an author's log
 * forwarder sends the ticket's token then lines, and finish() hands back what arrived as one buffer.
 */
export class IntakeListeners {
  private readonly host: string;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly ceiling: number;
  private readonly maxOpen: number;
  private readonly setTimer: SetTimer;
  private readonly intakes = new Map<string, Intake>();
  /** Intakes replaced, finished or cancelled whose sockets may still be closing; close() awaits them. */
  private readonly closing = new Set<Promise<void>>();
  private closed = false;

  constructor(deps: IntakeListenersDeps) {
    const ceiling = deps.maxBytesCeiling ?? MAX_BYTES;
    if (!Number.isInteger(ceiling) || ceiling < 1 || ceiling > MAX_BYTES) {
      throw new RangeError(`maxBytesCeiling must be an integer from 1 to ${MAX_BYTES}`);
    }
    const maxOpen = deps.maxOpen ?? DEFAULT_MAX_OPEN;
    if (!Number.isInteger(maxOpen) || maxOpen < 1) throw new RangeError('maxOpen must be a positive integer');
    this.host = deps.host;
    this.clock = deps.clock;
    this.log = deps.log;
    this.ceiling = ceiling;
    this.maxOpen = maxOpen;
    this.setTimer = deps.setTimer ?? realTimer;
  }

  /** Starts a listener for `key` on an ephemeral port, replacing (and discarding) any earlier one. */
  async open(key: string, options: IntakeOptions): Promise<IntakeTicket> {
    const maxSeconds = options.maxSeconds ?? DEFAULT_SECONDS;
    const maxBytes = options.maxBytes ?? this.ceiling;
    const problems: Record<string, string> = {};
    if (!Number.isInteger(maxSeconds) || maxSeconds < 1 || maxSeconds > MAX_SECONDS) {
      problems.maxSeconds = `must be an integer from 1 to ${MAX_SECONDS}`;
    }
    if (!Number.isInteger(maxBytes) || maxBytes < 1 || maxBytes > this.ceiling) {
      problems.maxBytes = `must be an integer from 1 to ${this.ceiling}`;
    }
    if (Object.keys(problems).length > 0) throw invalidInput('Invalid intake options', problems);
    // Checked before binding so a busy process does not open a port only to close it again.
    this.ensureRoom(key);

    const token = randomBytes(TOKEN_BYTES).toString('base64url');
    const expiresAt = this.clock.now() + maxSeconds * 1000;
    const intake = new Intake({
      token,
      expiresAt,
      maxBytes,
      log: this.log.child({ intake: key }),
      setTimer: this.setTimer,
      onForget: (forgotten) => {
        if (this.intakes.get(key) === forgotten) this.intakes.delete(key);
      },
    });
    try {
      await intake.listen(this.host);
    } catch (err) {
      throw new AppError('unavailable', 'The intake listener could not start', { cause: err });
    }
    // Checked again: other opens or close() may have run while this one was binding.
    try {
      if (this.closed) throw new AppError('unavailable', 'The service is shutting down');
      this.ensureRoom(key);
    } catch (err) {
      void this.track(intake.dispose());
      throw err;
    }
    const previous = this.intakes.get(key);
    if (previous) {
      void this.track(previous.dispose());
      this.log.info({ intake: key }, 'intake listener replaced');
    }
    this.intakes.set(key, intake);
    intake.startExpiry(maxSeconds * 1000);
    const ticket: IntakeTicket = {
      host: this.host,
      port: intake.port,
      token,
      expires_at: new Date(expiresAt).toISOString(),
    };
    this.log.info(
      { intake: key, port: ticket.port, expires_at: ticket.expires_at, maxBytes },
      'intake listener opened',
    );
    return ticket;
  }

  /** What the listener for `key` has received; 404 when there is none (or it was forgotten). */
  status(key: string): IntakeStatus {
    return this.get(key).status();
  }

  /**
   * Closes the listener for `key` (and its connections) and returns its lines joined with '\n'. The
   * data stays held, state 'finished', until forget(): a caller whose storing fails can finish again
   * and gets the same data. Unconfirmed, it is forgotten 10 minutes later like an expired intake.
   * With no lines yet it throws 400 and leaves the listener as it was, so the author can still send
   * and finish again.
   */
  async finish(key: string): Promise<Buffer> {
    const intake = this.get(key);
    if (intake.lineCount === 0) throw new AppError('invalid_input', 'no lines arrived');
    const first = !intake.finished;
    await this.track(intake.finish());
    if (first) {
      const status = intake.status();
      this.log.info(
        {
          intake: key,
          lines: status.lines,
          bytes: status.bytes,
          connections: status.connections,
          rejected: status.rejected,
        },
        'intake finished',
      );
    }
    return intake.content();
  }

  /**
   * Drops the data of the finished intake for `key`, once the caller has kept it. Nothing to do when
   * there is none or it is not finished: an intake opened again meanwhile is left alone.
   */
  async forget(key: string): Promise<void> {
    const intake = this.intakes.get(key);
    if (!intake?.finished) return;
    this.intakes.delete(key);
    await this.track(intake.dispose());
    this.log.info({ intake: key }, 'intake forgotten');
  }

  /** Closes the listener for `key` and drops what it received; nothing to do when there is none. */
  async cancel(key: string): Promise<void> {
    const intake = this.intakes.get(key);
    if (!intake) return;
    this.intakes.delete(key);
    await this.track(intake.dispose());
    this.log.info({ intake: key }, 'intake cancelled');
  }

  /** Stops every listener and connection (service shutdown); later opens get 503. */
  async close(): Promise<void> {
    this.closed = true;
    for (const intake of this.intakes.values()) void this.track(intake.dispose());
    this.intakes.clear();
    await Promise.all(this.closing);
  }

  private get(key: string): Intake {
    const intake = this.intakes.get(key);
    if (!intake) throw notFound('intake', key);
    return intake;
  }

  /** 503 when a new intake for `key` would pass maxOpen; the one it replaces does not count. */
  private ensureRoom(key: string): void {
    if (this.closed) throw new AppError('unavailable', 'The service is shutting down');
    const held = this.intakes.size - (this.intakes.has(key) ? 1 : 0);
    if (held >= this.maxOpen) {
      throw new AppError('unavailable', `At most ${this.maxOpen} intake listeners may be open at once`);
    }
  }

  /** Remembers a closing listener until it has closed, so close() can wait for it. */
  private track(closing: Promise<void>): Promise<void> {
    this.closing.add(closing);
    void closing.finally(() => this.closing.delete(closing));
    return closing;
  }
}

interface IntakeInit {
  token: string;
  expiresAt: number;
  maxBytes: number;
  log: Logger;
  setTimer: SetTimer;
  onForget: (intake: Intake) => void;
}

/** One connection's reading state. */
interface Connection {
  socket: Socket;
  accepted: boolean;
  /** Set once the connection is refused, so it is counted once. */
  refused: boolean;
  /** Bytes of the line not yet ended by LF. */
  parts: Buffer[];
  size: number;
  cancelTokenWait: () => void;
}

/** One listener: its server, connections, kept lines and timers. */
class Intake {
  port = 0;
  private state: IntakeStatus['state'] = 'open';
  private connections = 0;
  private rejected = 0;
  private readonly server: Server;
  private readonly sockets = new Set<Connection>();
  private readonly store = new LineStore();
  private readonly token: Buffer;
  private cancelExpiry: () => void = () => {};
  private cancelForget: () => void = () => {};
  private forgetting = false;
  /** The lines joined once at finish, handed to every later finish. */
  private finishedContent: Buffer | undefined;
  private stopping: Promise<void> | undefined;
  private readonly init: IntakeInit;

  constructor(init: IntakeInit) {
    this.init = init;
    this.token = Buffer.from(init.token, 'ascii');
    this.server = createServer((socket) => this.attach(socket));
    this.server.on('error', (err: NodeJS.ErrnoException) => {
      init.log.warn({ code: err.code }, 'intake listener error');
    });
  }

  get lineCount(): number {
    return this.store.lines;
  }

  get finished(): boolean {
    return this.state === 'finished';
  }

  async listen(host: string): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen({ port: 0, host }, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  startExpiry(ms: number): void {
    this.cancelExpiry = this.init.setTimer(() => this.expire(), ms);
  }

  status(): IntakeStatus {
    return {
      lines: this.store.lines,
      bytes: this.store.bytes,
      connections: this.connections,
      rejected: this.rejected,
      expires_at: new Date(this.init.expiresAt).toISOString(),
      state: this.state,
    };
  }

  content(): Buffer {
    return this.finishedContent ?? this.store.toBuffer();
  }

  /**
   * Stops accepting, joins the lines once and keeps them until forgotten; resolves once the server
   * has closed. Again on a finished intake it only waits for that.
   */
  finish(): Promise<void> {
    if (this.state !== 'finished') {
      this.state = 'finished';
      this.cancelExpiry();
      this.finishedContent = this.store.toBuffer();
      this.store.release();
      this.forgetLater();
    }
    return this.stop();
  }

  /** Stops listening and every timer; what was kept stays readable. */
  dispose(): Promise<void> {
    this.cancelExpiry();
    this.cancelForget();
    return this.stop();
  }

  /** Closes the server and destroys every connection; resolves once the server has fully closed. */
  private stop(): Promise<void> {
    this.stopping ??= new Promise<void>((resolve) => {
      // The callback runs once the last connection is gone (or at once, with an error, when not listening).
      this.server.close(() => resolve());
      for (const conn of this.sockets) conn.socket.destroy();
    });
    return this.stopping;
  }

  private expire(): void {
    // A full intake keeps saying so: that it hit maxBytes matters more to the author than the time.
    if (this.state === 'open') this.state = 'expired';
    this.init.log.info(this.counts(), 'intake listener expired');
    void this.stop();
    this.forgetLater();
  }

  /** Forgets this intake FORGET_AFTER_MS from now, unless that is already due. */
  private forgetLater(): void {
    if (this.forgetting) return;
    this.forgetting = true;
    this.cancelForget = this.init.setTimer(() => this.init.onForget(this), FORGET_AFTER_MS);
  }

  private fill(): void {
    this.state = 'full';
    this.init.log.info(this.counts(), 'intake full');
    void this.stop();
  }

  private counts() {
    return {
      lines: this.store.lines,
      bytes: this.store.bytes,
      connections: this.connections,
      rejected: this.rejected,
    };
  }

  private attach(socket: Socket): void {
    socket.on('error', (err: NodeJS.ErrnoException) => {
      this.init.log.debug({ code: err.code }, 'intake connection error');
    });
    if (this.state !== 'open') {
      socket.destroy();
      return;
    }
    if (this.sockets.size >= MAX_CONNECTIONS) {
      this.rejected++;
      this.init.log.info({ reason: 'too_many_connections' }, 'intake connection refused');
      socket.destroy();
      return;
    }
    const conn: Connection = {
      socket,
      accepted: false,
      refused: false,
      parts: [],
      size: 0,
      cancelTokenWait: () => {},
    };
    this.sockets.add(conn);
    conn.cancelTokenWait = this.init.setTimer(() => this.refuse(conn, 'token_timeout'), TOKEN_WAIT_MS);
    socket.on('data', (chunk: Buffer) => this.read(conn, chunk));
    socket.on('end', () => this.end(conn));
    socket.on('close', () => {
      conn.cancelTokenWait();
      this.sockets.delete(conn);
      // A sender that left without naming the token is refused too, unless intake had already stopped.
      if (!conn.accepted && !conn.refused && this.state === 'open' && !this.stopping) {
        this.refuse(conn, 'no_token');
      }
    });
  }

  private read(conn: Connection, chunk: Buffer): void {
    let start = 0;
    while (this.live(conn)) {
      const lf = chunk.indexOf(LF, start);
      if (lf === -1) {
        const rest = chunk.subarray(start);
        if (rest.length === 0) return;
        // Copied: a view would pin the whole chunk for as long as the line stays unfinished.
        conn.parts.push(Buffer.from(rest));
        conn.size += rest.length;
        // +1: the CR of a CRLF ending may be waiting in the buffer.
        const limit = conn.accepted ? MAX_LINE_BYTES : this.token.length;
        if (conn.size > limit + 1) this.refuse(conn, conn.accepted ? 'line_too_long' : 'wrong_token');
        return;
      }
      const piece = chunk.subarray(start, lf);
      start = lf + 1;
      this.take(conn, this.takePending(conn, piece));
    }
  }

  /** The peer closed its side: an unfinished last line still counts as a line. */
  private end(conn: Connection): void {
    if (!this.live(conn) || conn.size === 0) return;
    const line = this.takePending(conn, Buffer.alloc(0));
    if (conn.accepted) this.take(conn, line);
    else this.refuse(conn, 'wrong_token');
  }

  private takePending(conn: Connection, piece: Buffer): Buffer {
    if (conn.parts.length === 0) return piece;
    const line = Buffer.concat([...conn.parts, piece]);
    conn.parts = [];
    conn.size = 0;
    return line;
  }

  /** One complete line of `conn` (without its LF). */
  private take(conn: Connection, raw: Buffer): void {
    const line = raw.length > 0 && raw[raw.length - 1] === CR ? raw.subarray(0, -1) : raw;
    if (!conn.accepted) {
      if (this.tokenMatches(line)) {
        conn.accepted = true;
        conn.cancelTokenWait();
        this.connections++;
      } else {
        this.refuse(conn, 'wrong_token');
      }
      return;
    }
    if (line.length === 0) return;
    if (line.length > MAX_LINE_BYTES) {
      this.refuse(conn, 'line_too_long');
      return;
    }
    if (this.store.bytes + line.length > this.init.maxBytes) {
      this.fill();
      return;
    }
    this.store.add(line);
  }

  /** Timing-safe: a wrong candidate of any length costs one full-length comparison. */
  private tokenMatches(candidate: Buffer): boolean {
    const padded = Buffer.alloc(this.token.length);
    candidate.copy(padded, 0, 0, this.token.length);
    const same = timingSafeEqual(padded, this.token);
    return same && candidate.length === this.token.length;
  }

  private refuse(conn: Connection, reason: string): void {
    if (conn.refused) return;
    conn.refused = true;
    conn.cancelTokenWait();
    this.rejected++;
    this.init.log.info({ reason, rejected: this.rejected }, 'intake connection refused');
    conn.socket.destroy();
  }

  private live(conn: Connection): boolean {
    return this.state === 'open' && !this.stopping && !conn.refused && !conn.socket.destroyed;
  }
}

/**
 * Kept lines already joined with '\n', in blocks that grow to 1 MiB: memory follows the bytes kept
 * instead of paying an object per line, and finish() is one concatenation.
 */
class LineStore {
  lines = 0;
  /** Bytes of the lines, separators not counted (what maxBytes limits). */
  bytes = 0;
  private readonly blocks: Buffer[] = [];
  private size = 0;
  private used = 0;

  add(line: Buffer): void {
    if (this.lines > 0) this.write(NEWLINE);
    this.write(line);
    this.lines++;
    this.bytes += line.length;
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.blocks, this.size);
  }

  /** Lets the blocks go once their content lives elsewhere; the counts stay. */
  release(): void {
    this.blocks.length = 0;
    this.size = 0;
    this.used = 0;
  }

  private write(source: Buffer): void {
    let offset = 0;
    while (offset < source.length) {
      let block = this.blocks.at(-1);
      if (!block || this.used === block.length) {
        block = Buffer.allocUnsafe(Math.min(MAX_BLOCK, FIRST_BLOCK * 2 ** this.blocks.length));
        this.blocks.push(block);
        this.used = 0;
      }
      const copied = source.copy(block, this.used, offset);
      this.used += copied;
      this.size += copied;
      offset += copied;
    }
  }
}
