import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../clock.ts';
import { AppError } from '../../errors.ts';
import { createLogger, type Logger } from '../../logger.ts';
import { IntakeListeners, type SetTimer } from './intake-listeners.ts';

const HOST = '127.0.0.1';
const NOW = Date.UTC(2026, 10, 22, 18, 0, 0);
const TOKEN_WAIT_MS = 10_000;
const FORGET_AFTER_MS = 10 * 60 * 1000;

/** Timers that run only when a test fires them, by their delay. */
function manualTimers() {
  const pending = new Set<{ callback: () => void; ms: number }>();
  const setTimer: SetTimer = (callback, ms) => {
    const timer = { callback, ms };
    pending.add(timer);
    return () => {
      pending.delete(timer);
    };
  };
  const fire = (ms: number) => {
    const due = [...pending].filter((t) => t.ms === ms);
    for (const t of due) {
      pending.delete(t);
      t.callback();
    }
    return due.length;
  };
  return { setTimer, fire, pending };
}

/** A logger whose JSON lines the test can read. */
function capturingLogger(): { log: Logger; text: () => string } {
  const lines: string[] = [];
  return {
    log: createLogger('debug', { write: (s: string) => void lines.push(s) }),
    text: () => lines.join(''),
  };
}

const made: IntakeListeners[] = [];
const sockets: Socket[] = [];

function listeners(over: Partial<ConstructorParameters<typeof IntakeListeners>[0]> = {}) {
  const l = new IntakeListeners({
    host: HOST,
    clock: manualClock(NOW),
    log: createLogger('silent'),
    ...over,
  });
  made.push(l);
  return l;
}

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(made.splice(0).map((l) => l.close()));
});

/** A connected client; `closed` resolves when the server (or the test) has closed it. */
async function client(port: number): Promise<{ socket: Socket; closed: Promise<void> }> {
  const socket = connect({ host: HOST, port });
  sockets.push(socket);
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, closed };
}

/** Sends `chunks` one write at a time, half-closes and waits until the connection is gone. */
async function send(port: number, ...chunks: (string | Buffer)[]): Promise<void> {
  const { socket, closed } = await client(port);
  for (const chunk of chunks) socket.write(chunk);
  socket.end();
  await closed;
}

/** Resolves once the connection to `port` is refused (the listener no longer listens). */
function refused(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host: HOST, port });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code));
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
  });
}

async function eventually(check: () => void, timeoutMs = 3000): Promise<void> {
  const start = Date.now();
  for (;;) {
    try {
      check();
      return;
    } catch (err) {
      if (Date.now() - start > timeoutMs) throw err;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

async function appError(promise: Promise<unknown> | (() => unknown)): Promise<AppError> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

describe('IntakeListeners', () => {
  it('hands out a ticket and keeps the lines sent after the token', async () => {
    const intake = listeners();
    const ticket = await intake.open('ex1/s1', { maxSeconds: 60 });
    expect(ticket.host).toBe(HOST);
    expect(ticket.port).toBeGreaterThan(0);
    expect(ticket.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(ticket.expires_at).toBe(new Date(NOW + 60_000).toISOString());

    const leef = 'LEEF:2.0|A|B|1|x|^|a=1';
    const syslog = '<134>Mar  7 09:05:03 fw01 hello';
    await send(ticket.port, `${ticket.token}\n${leef}\n${syslog}\n`);
    expect(intake.status('ex1/s1')).toEqual({
      lines: 2,
      bytes: leef.length + syslog.length,
      connections: 1,
      rejected: 0,
      expires_at: ticket.expires_at,
      state: 'open',
    });
  });

  it('refuses a wrong token and keeps nothing from that connection', async () => {
    const intake = listeners();
    const ticket = await intake.open('k', {});
    await send(ticket.port, 'not-the-token\nsecret line\n');
    await send(ticket.port, `${ticket.token}x\nline\n`);
    await send(ticket.port, `${ticket.token.slice(0, -1)}\nline\n`);
    // The token without its line end is no first line either.
    await send(ticket.port, ticket.token);
    await send(ticket.port);
    expect(intake.status('k')).toMatchObject({
      lines: 0,
      bytes: 0,
      connections: 0,
      rejected: 5,
      state: 'open',
    });
  });

  it('refuses a junk first line as soon as it is longer than any token could be', async () => {
    const intake = listeners();
    const ticket = await intake.open('k', {});
    const { socket, closed } = await client(ticket.port);
    socket.write('x'.repeat(200));
    await closed;
    expect(intake.status('k')).toMatchObject({ connections: 0, rejected: 1 });
  });

  it('closes a connection that names no token within 10 s', async () => {
    const timers = manualTimers();
    const intake = listeners({ setTimer: timers.setTimer });
    const ticket = await intake.open('k', {});
    const idle = await client(ticket.port);
    const good = await client(ticket.port);
    good.socket.write(`${ticket.token}\n`);
    await eventually(() => expect(intake.status('k').connections).toBe(1));
    expect(timers.fire(TOKEN_WAIT_MS)).toBe(1); // the accepted connection's wait was cancelled
    await idle.closed;
    good.socket.end('late line\n');
    await good.closed;
    expect(intake.status('k')).toMatchObject({ lines: 1, connections: 1, rejected: 1 });
  });

  it('takes lines from several connections at once', async () => {
    const intake = listeners();
    const ticket = await intake.open('k', {});
    const clients = await Promise.all([1, 2, 3].map(() => client(ticket.port)));
    clients.forEach((c, i) => {
      c.socket.write(`${ticket.token}\n`);
      c.socket.write(`conn${i} line1\nconn${i} `);
    });
    // Every connection's second line is finished only now, after the others have written theirs.
    for (const c of clients) c.socket.end('line2\n');
    await Promise.all(clients.map((c) => c.closed));
    expect(intake.status('k')).toMatchObject({ lines: 6, connections: 3, rejected: 0 });
    const lines = (await intake.finish('k')).toString().split('\n').sort();
    expect(lines).toEqual([
      'conn0 line1',
      'conn0 line2',
      'conn1 line1',
      'conn1 line2',
      'conn2 line1',
      'conn2 line2',
    ]);
  });

  it('strips CR of CRLF endings (the token line too), drops empty lines, keeps the bytes as sent', async () => {
    const intake = listeners();
    const ticket = await intake.open('k', {});
    const binary = Buffer.from([0x61, 0xff, 0xfe, 0x62]);
    await send(
      ticket.port,
      `${ticket.token}\r\n`,
      'a\r\n\r\n\nb\r',
      '\n',
      '\r\n',
      binary,
      Buffer.from('\r\nc\rd\n'),
    );
    expect(intake.status('k')).toMatchObject({ lines: 4, bytes: 1 + 1 + 4 + 3 });
    expect(await intake.finish('k')).toEqual(
      Buffer.concat([Buffer.from('a\nb\n'), binary, Buffer.from('\nc\rd')]),
    );
  });

  it('keeps the unfinished last line of a connection that closes, and lines split across writes', async () => {
    const intake = listeners();
    const ticket = await intake.open('k', {});
    await send(ticket.port, ticket.token.slice(0, 10), `${ticket.token.slice(10)}\nfir`, 'st\nsecond\nlast');
    expect((await intake.finish('k')).toString()).toBe('first\nsecond\nlast');
  });

  it('refuses a connection sending a line over 64 KiB and keeps what came before', async () => {
    const intake = listeners();
    const ticket = await intake.open('k', {});
    const max = 'm'.repeat(64 * 1024);
    await send(ticket.port, `${ticket.token}\nbefore\n${max}\r\n`, `${'x'.repeat(64 * 1024 + 1)}\nafter\n`);
    // Refused before its end arrives: a line can not grow past the cap in memory.
    const { socket, closed } = await client(ticket.port);
    socket.write(`${ticket.token}\nok\n`);
    socket.write('y'.repeat(70 * 1024));
    await closed;
    expect(intake.status('k')).toMatchObject({
      lines: 3,
      bytes: 6 + max.length + 2,
      connections: 2,
      rejected: 2,
    });
  });

  it('stops at maxBytes: full, every connection closed, later ones refused, counts exact', async () => {
    const intake = listeners();
    const ticket = await intake.open('k', { maxBytes: 10 });
    const idle = await client(ticket.port);
    idle.socket.write(`${ticket.token}\nzz`);
    await eventually(() => expect(intake.status('k').connections).toBe(1));
    // 4 + 4 = 8 kept; "cccc" would make 12 > 10; "d" after it would fit but intake has stopped.
    await send(ticket.port, `${ticket.token}\naaaa\nbbbb\ncccc\nd\n`);
    await idle.closed;
    expect(await refused(ticket.port)).toBe('ECONNREFUSED');
    expect(intake.status('k')).toEqual({
      lines: 2,
      bytes: 8,
      connections: 2,
      rejected: 0,
      expires_at: ticket.expires_at,
      state: 'full',
    });
    expect((await intake.finish('k')).toString()).toBe('aaaa\nbbbb');
  });

  it('accepts lines up to exactly maxBytes', async () => {
    const intake = listeners();
    const ticket = await intake.open('k', { maxBytes: 8 });
    await send(ticket.port, `${ticket.token}\naaaa\nbbbb\n`);
    expect(intake.status('k')).toMatchObject({ lines: 2, bytes: 8, state: 'open' });
  });

  it('expires: closes at expires_at, keeps what arrived for finish, forgets 10 min later (finished or not)', async () => {
    const timers = manualTimers();
    const intake = listeners({ setTimer: timers.setTimer });
    const ticket = await intake.open('a', { maxSeconds: 5 });
    await intake.open('b', { maxSeconds: 5 });
    const live = await client(ticket.port);
    live.socket.write(`${ticket.token}\none\ntwo\nunfinished`);
    await eventually(() => expect(intake.status('a').lines).toBe(2));
    expect(timers.fire(5000)).toBe(2);
    await live.closed;
    expect(await refused(ticket.port)).toBe('ECONNREFUSED');
    expect(intake.status('a')).toMatchObject({ lines: 2, connections: 1, state: 'expired' });
    expect((await intake.finish('a')).toString()).toBe('one\ntwo');
    expect(intake.status('a')).toMatchObject({ lines: 2, state: 'finished' });
    // Finished but never confirmed, or not finished: visible until 10 minutes after expiry, then forgotten.
    expect(intake.status('b').state).toBe('expired');
    expect(timers.fire(FORGET_AFTER_MS)).toBe(2);
    expect((await appError(() => intake.status('a'))).code).toBe('not_found');
    expect((await appError(() => intake.status('b'))).code).toBe('not_found');
  });

  it('expires on a real timer', async () => {
    const intake = listeners();
    const ticket = await intake.open('k', { maxSeconds: 1 });
    await send(ticket.port, `${ticket.token}\nline\n`);
    await eventually(() => expect(intake.status('k').state).toBe('expired'), 3000);
    expect(await refused(ticket.port)).toBe('ECONNREFUSED');
    expect((await intake.finish('k')).toString()).toBe('line');
  });

  it('finish: 404 without a listener, 400 with no lines (the listener stays), then closed', async () => {
    const intake = listeners();
    expect(await appError(intake.finish('none'))).toMatchObject({ code: 'not_found', status: 404 });
    const ticket = await intake.open('k', {});
    await send(ticket.port, `${ticket.token}\n\r\n\n`);
    expect(await appError(intake.finish('k'))).toMatchObject({
      code: 'invalid_input',
      status: 400,
      message: 'no lines arrived',
    });
    await send(ticket.port, `${ticket.token}\nnow one\n`);
    expect((await intake.finish('k')).toString()).toBe('now one');
    expect(await refused(ticket.port)).toBe('ECONNREFUSED');
    expect(intake.status('k')).toMatchObject({ lines: 1, state: 'finished' });
  });

  it('finish keeps the data until forget: a second finish returns the same lines', async () => {
    const timers = manualTimers();
    const intake = listeners({ setTimer: timers.setTimer });
    const ticket = await intake.open('k', { maxSeconds: 60 });
    const live = await client(ticket.port);
    live.socket.write(`${ticket.token}
one
two
`);
    await eventually(() => expect(intake.status('k').lines).toBe(2));

    const first = await intake.finish('k');
    expect(first.toString()).toBe('one\ntwo');
    // The listener and its connections are closed; nothing more is taken.
    await live.closed;
    expect(await refused(ticket.port)).toBe('ECONNREFUSED');
    expect(intake.status('k')).toMatchObject({ lines: 2, bytes: 6, connections: 1, state: 'finished' });
    // The expiry no longer applies; only the forget timer is left.
    expect(timers.fire(60_000)).toBe(0);
    expect((await intake.finish('k')).toString()).toBe('one\ntwo');
    expect(await intake.finish('k')).toEqual(first);

    await intake.forget('k');
    expect((await appError(() => intake.status('k'))).status).toBe(404);
    expect((await appError(intake.finish('k'))).status).toBe(404);
    await intake.forget('k');
  });

  it('forget leaves an open intake alone; an unconfirmed finish is forgotten 10 min later', async () => {
    const timers = manualTimers();
    const intake = listeners({ setTimer: timers.setTimer });
    const open = await intake.open('open', { maxSeconds: 60 });
    await send(
      open.port,
      `${open.token}
still open
`,
    );
    await intake.forget('open');
    expect(intake.status('open')).toMatchObject({ lines: 1, state: 'open' });

    const done = await intake.open('done', { maxSeconds: 60 });
    await send(
      done.port,
      `${done.token}
line
`,
    );
    await intake.finish('done');
    expect(timers.fire(FORGET_AFTER_MS)).toBe(1);
    expect((await appError(() => intake.status('done'))).code).toBe('not_found');
    expect(intake.status('open').state).toBe('open');
  });

  it('opening the same key again replaces the listener and discards its data', async () => {
    const intake = listeners();
    const first = await intake.open('k', {});
    await send(first.port, `${first.token}\nold\n`);
    const second = await intake.open('k', {});
    expect(second.token).not.toBe(first.token);
    expect(await refused(first.port)).toBe('ECONNREFUSED');
    expect(intake.status('k')).toMatchObject({ lines: 0, connections: 0 });
    await send(second.port, `${first.token}\nstale token\n`);
    await send(second.port, `${second.token}\nnew\n`);
    expect(intake.status('k')).toMatchObject({ lines: 1, connections: 1, rejected: 1 });
    expect((await intake.finish('k')).toString()).toBe('new');
  });

  it('cancel closes the listener and drops its data; nothing to do when none', async () => {
    const intake = listeners();
    const ticket = await intake.open('k', {});
    await send(ticket.port, `${ticket.token}\nline\n`);
    await intake.cancel('k');
    await intake.cancel('k');
    expect(await refused(ticket.port)).toBe('ECONNREFUSED');
    expect((await appError(() => intake.status('k'))).code).toBe('not_found');
  });

  it('503 beyond maxOpen; reopening a held key and opening after a finish still work', async () => {
    const intake = listeners({ maxOpen: 2 });
    const a = await intake.open('a', {});
    await intake.open('b', {});
    expect(await appError(intake.open('c', {}))).toMatchObject({ code: 'unavailable', status: 503 });
    const again = await intake.open('a', {});
    expect(again.port).not.toBe(a.port);
    await intake.cancel('b');
    await intake.open('c', {});
  });

  it('refuses connections beyond 16 at once', async () => {
    const intake = listeners();
    const ticket = await intake.open('k', {});
    const held = await Promise.all(Array.from({ length: 16 }, () => client(ticket.port)));
    for (const c of held) c.socket.write(`${ticket.token}\n`);
    await eventually(() => expect(intake.status('k').connections).toBe(16));
    const extra = await client(ticket.port);
    await extra.closed;
    expect(intake.status('k')).toMatchObject({ connections: 16, rejected: 1 });
    held[0]!.socket.end();
    await held[0]!.closed;
    await send(ticket.port, `${ticket.token}\nline\n`);
    expect(intake.status('k')).toMatchObject({ lines: 1, connections: 17, rejected: 1 });
  });

  it('checks its options', async () => {
    const intake = listeners({ maxBytesCeiling: 1000 });
    for (const options of [
      { maxSeconds: 0 },
      { maxSeconds: 3601 },
      { maxSeconds: 1.5 },
      { maxBytes: 0 },
      { maxBytes: 1001 },
    ]) {
      expect(await appError(intake.open('k', options))).toMatchObject({ code: 'invalid_input', status: 400 });
    }
    await intake.open('k', { maxSeconds: 3600, maxBytes: 1000 });
    expect(() => listeners({ maxBytesCeiling: 64 * 1024 * 1024 + 1 })).toThrow(RangeError);
  });

  it('close() stops every listener and connection, leaves no handles, and refuses later opens', async () => {
    const handles = () =>
      process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap' || r === 'TCPSocketWrap').length;
    const before = handles();
    const intake = listeners();
    const tickets = await Promise.all(['a', 'b', 'c'].map((k) => intake.open(k, {})));
    const clients = await Promise.all(tickets.map((t) => client(t.port)));
    clients[0]!.socket.write(`${tickets[0]!.token}\nline\n`);
    await eventually(() => expect(intake.status('a').lines).toBe(1));
    await intake.close();
    await Promise.all(clients.map((c) => c.closed));
    for (const t of tickets) expect(await refused(t.port)).toBe('ECONNREFUSED');
    await eventually(() => expect(handles()).toBeLessThanOrEqual(before));
    expect(await appError(intake.open('d', {}))).toMatchObject({ code: 'unavailable', status: 503 });
  });

  it('never logs the token or line contents', async () => {
    const { log, text } = capturingLogger();
    const intake = listeners({ log });
    const ticket = await intake.open('k', { maxBytes: 20 });
    await send(ticket.port, 'wrong-token-value\n');
    await send(ticket.port, `${ticket.token}\nsecret-line-one\nsecret-line-two\n`);
    await intake.finish('k');
    const logged = text();
    expect(logged).toContain('intake finished');
    expect(logged).not.toContain(ticket.token);
    expect(logged).not.toContain('secret-line');
    expect(logged).not.toContain('wrong-token-value');
  });
});
