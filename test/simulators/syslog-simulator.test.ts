import { once } from 'node:events';
import net from 'node:net';
import tls from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { sharedTlsFixtures } from '../helpers/tls-fixtures.ts';
import {
  type SyslogSimulator,
  type SyslogSimulatorOptions,
  startSyslogSimulator,
} from './syslog-simulator.ts';

let sims: SyslogSimulator[] = [];
const clients: net.Socket[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  await Promise.all(sims.map((s) => s.close()));
  sims = [];
});

async function start(options: SyslogSimulatorOptions): Promise<SyslogSimulator> {
  const sim = await startSyslogSimulator(options);
  sims.push(sim);
  return sim;
}

async function connect(sim: SyslogSimulator): Promise<net.Socket> {
  const socket = net.connect({ host: sim.host, port: sim.port });
  clients.push(socket);
  await once(socket, 'connect');
  return socket;
}

/** How a client connection ended: an error code, or 'closed' for an orderly close. */
function ending(socket: net.Socket): Promise<string> {
  socket.resume();
  return new Promise((resolve) => {
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
    socket.once('close', () => resolve('closed'));
  });
}

const octet = (msg: string) => `${Buffer.byteLength(msg)} ${msg}`;

describe('syslog simulator', () => {
  it('stores LF-framed messages byte for byte and keeps an unterminated rest as partial', async () => {
    const sim = await start({ framing: 'lf' });
    const socket = await connect(sim);
    socket.end(
      '<134>Mar  1 12:00:00 ws1 app: LEEF:2.0|a|b|1|x|\n<134>Mar  1 12:00:01 ws1 app: two\n<134>tail',
    );
    await sim.until((s) => s.open === 0 && s.connections === 1);
    expect(sim.store.texts()).toEqual([
      '<134>Mar  1 12:00:00 ws1 app: LEEF:2.0|a|b|1|x|',
      '<134>Mar  1 12:00:01 ws1 app: two',
    ]);
    expect(sim.store.messages.map((m) => [m.framing, m.connection])).toEqual([
      ['lf', 1],
      ['lf', 1],
    ]);
    expect(sim.store.partials).toEqual([{ connection: 1, bytes: Buffer.from('<134>tail') }]);
  });

  it('keeps embedded newlines inside octet-counted messages split across writes', async () => {
    const sim = await start({ framing: 'octet_counting' });
    const socket = await connect(sim);
    const first = '<14>1 2026-03-01T12:00:00.000Z ws1 app - - - line one\nline two';
    const wire = octet(first) + octet('<14>1 - ws1 app - - - héllo');
    socket.write(wire.slice(0, 7));
    socket.write(wire.slice(7, 40));
    socket.end(wire.slice(40));
    await sim.waitForMessages(2);
    expect(sim.store.texts()).toEqual([first, '<14>1 - ws1 app - - - héllo']);
    expect(sim.store.messages[1]?.bytes).toEqual(Buffer.from('<14>1 - ws1 app - - - héllo'));
  });

  it('detects octet counting per frame in auto mode', async () => {
    const sim = await start({ framing: 'auto' });
    const socket = await connect(sim);
    socket.end(`${octet('<14>a\nb')}<14>plain\n`);
    await sim.waitForMessages(2);
    expect(sim.store.messages.map((m) => [m.framing, m.text])).toEqual([
      ['octet_counting', '<14>a\nb'],
      ['lf', '<14>plain'],
    ]);
  });

  it('closes the connection on a framing error: LF frames sent to an octet-counting receiver', async () => {
    const sim = await start({ framing: 'octet_counting' });
    const socket = await connect(sim);
    const end = ending(socket);
    socket.write('<14>not counted\n');
    expect(['closed', 'ECONNRESET']).toContain(await end);
    expect(sim.store.framingErrors).toEqual([
      { connection: 1, reason: 'expected an octet count, found byte 0x3c' },
    ]);
    expect(sim.store.messages).toEqual([]);
  });

  it('drops a connection after N messages and accepts the reconnection', async () => {
    const sim = await start({ framing: 'lf' });
    sim.faults.dropAfterMessages(2);
    const socket = await connect(sim);
    const end = ending(socket);
    socket.write('m1\nm2\nm3\nm4\n');
    expect(['closed', 'ECONNRESET']).toContain(await end);
    expect(sim.store.texts()).toEqual(['m1', 'm2']);
    const again = await connect(sim);
    again.end('m3\nm4\n');
    await sim.waitForMessages(4);
    expect(sim.store.messages.map((m) => [m.connection, m.text])).toEqual([
      [1, 'm1'],
      [1, 'm2'],
      [2, 'm3'],
      [2, 'm4'],
    ]);
  });

  it('resets a connection after N bytes, keeping the frames completed before the cut', async () => {
    const sim = await start({ framing: 'lf' });
    sim.faults.dropAfterBytes(6, { reset: true });
    const socket = await connect(sim);
    const end = ending(socket);
    socket.write('abc\ndef\nghi\n');
    expect(await end).toBe('ECONNRESET');
    expect(sim.store.texts()).toEqual(['abc']);
    expect(sim.store.bytesReceived).toBe(6);
    expect(sim.store.partials).toEqual([{ connection: 1, bytes: Buffer.from('de') }]);
  });

  it('stops reading while stalled so the sender sees back-pressure, then delivers everything', async () => {
    const sim = await start({ framing: 'lf' });
    sim.faults.stallReads = true;
    const socket = await connect(sim);
    const line = `${'x'.repeat(1023)}\n`;
    const chunk = line.repeat(64);
    let sent = 0;
    while (socket.write(chunk)) {
      sent += 64;
      if (sent > 256 * 1024) throw new Error('no back-pressure after 256 MiB');
    }
    sent += 64;
    expect(sim.store.bytesReceived).toBe(0);
    sim.faults.stallReads = false;
    await once(socket, 'drain');
    socket.end();
    await sim.waitForMessages(sent);
    expect(sim.store.messages.length).toBe(sent);
    expect(sim.store.bytesReceived).toBe(sent * 1024);
  });

  it('refuses connections while refusing, and resets them when asked', async () => {
    const sim = await start({ framing: 'lf' });
    await sim.faults.refuse();
    const refused = net.connect({ host: sim.host, port: sim.port });
    const [err] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
    expect(err.code).toBe('ECONNREFUSED');
    await sim.faults.accept();
    sim.faults.resetConnections = true;
    const socket = net.connect({ host: sim.host, port: sim.port });
    clients.push(socket);
    // The RST may arrive before or after the client saw its connect completing.
    expect(await ending(socket)).toBe('ECONNRESET');
    expect(sim.store.connections).toBe(0);
  });

  it('serves TLS with the fixture CA and counts handshakes refused by an untrusting client', async () => {
    const fixtures = sharedTlsFixtures();
    const sim = await start({
      framing: 'octet_counting',
      tls: { cert: fixtures.serverCert, key: fixtures.serverKey },
    });
    const trusted = tls.connect({
      host: sim.host,
      port: sim.port,
      ca: fixtures.caCert,
      servername: 'localhost',
    });
    clients.push(trusted);
    await once(trusted, 'secureConnect');
    trusted.end(octet('<14>over tls'));
    await sim.waitForMessages(1);
    expect(sim.store.texts()).toEqual(['<14>over tls']);
    const untrusted = tls.connect({
      host: sim.host,
      port: sim.port,
      ca: fixtures.otherCaCert,
      servername: 'localhost',
    });
    clients.push(untrusted);
    const [error] = (await once(untrusted, 'error')) as [NodeJS.ErrnoException];
    expect(error.code).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    await sim.until((s) => s.tlsFailures === 1);
    expect(sim.store.connections).toBe(1);
  });
});
