import { once } from 'node:events';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type FaultProxy, startFaultProxy } from './fault-proxy.ts';

/** A target that records every byte per connection; `echo` sends each chunk back. */
async function startTarget(echo = false) {
  const received: Buffer[][] = [];
  const ended: boolean[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    const index = received.push([]) - 1;
    ended.push(false);
    socket.on('data', (chunk) => {
      received[index]!.push(chunk);
      if (echo) socket.write(chunk);
    });
    socket.on('end', () => {
      ended[index] = true;
      socket.end();
    });
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    received,
    ended,
    bytes: (i = 0) => Buffer.concat(received[i] ?? []),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function connect(port: number): Promise<net.Socket> {
  const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  await once(socket, 'connect');
  return socket;
}

/** Reads until the peer ends or resets; reports what arrived and how it ended. */
async function drain(socket: net.Socket): Promise<{ data: Buffer; error?: string }> {
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.once('end', () => socket.end());
  return new Promise((resolve) => {
    socket.once('error', (err: NodeJS.ErrnoException) =>
      resolve({ data: Buffer.concat(chunks), error: err.code }),
    );
    socket.once('close', () => resolve({ data: Buffer.concat(chunks) }));
  });
}

const payload = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => 97 + (i % 26)));

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

async function setup(
  echo = false,
): Promise<{ proxy: FaultProxy; target: Awaited<ReturnType<typeof startTarget>> }> {
  const target = await startTarget(echo);
  const proxy = await startFaultProxy({ target: { port: target.port } });
  cleanups.push(target.close, proxy.close);
  return { proxy, target };
}

describe('startFaultProxy', () => {
  it('forwards bytes both ways unchanged when no toxic is set', async () => {
    const { proxy, target } = await setup(true);
    const client = await connect(proxy.port);
    const result = drain(client);
    client.end(payload(5000));
    const { data, error } = await result;
    expect(error).toBeUndefined();
    expect(data.equals(payload(5000))).toBe(true);
    expect(target.bytes().equals(payload(5000))).toBe(true);
    expect(proxy.stats.connections).toBe(1);
    expect(proxy.stats.upstreamOut).toBe(5000);
    expect(proxy.stats.downstreamOut).toBe(5000);
  });

  it('delays every chunk by the latency toxic', async () => {
    const { proxy } = await setup(true);
    proxy.addToxic({ type: 'latency', ms: 150, stream: 'upstream' });
    const client = await connect(proxy.port);
    const result = drain(client);
    const started = performance.now();
    client.end('ping');
    const { data } = await result;
    expect(data.toString()).toBe('ping');
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('throttles throughput with the bandwidth toxic', async () => {
    const { proxy, target } = await setup();
    proxy.addToxic({ type: 'bandwidth', bytesPerSecond: 40_000, stream: 'upstream' });
    const client = await connect(proxy.port);
    const started = performance.now();
    client.end(payload(20_000));
    await proxy.until((s) => s.upstreamOut === 20_000);
    // 20 000 bytes at 40 000 B/s take half a second; unthrottled loopback takes about 1 ms.
    expect(performance.now() - started).toBeGreaterThanOrEqual(450);
    expect(target.bytes().length).toBeLessThanOrEqual(20_000);
  });

  it('holds all data while stalled and delivers it intact once the stall is removed', async () => {
    const { proxy, target } = await setup();
    const stall = proxy.addToxic({ type: 'stall', stream: 'upstream' });
    const client = await connect(proxy.port);
    client.write(payload(3000));
    await proxy.until((s) => s.upstreamIn === 3000);
    expect(proxy.stats.upstreamOut).toBe(0);
    expect(target.bytes().length).toBe(0);
    proxy.removeToxic(stall);
    await proxy.until((s) => s.upstreamOut === 3000);
    client.end();
    await proxy.until((s) => s.open === 0);
    expect(target.bytes().equals(payload(3000))).toBe(true);
  });

  it('closes both sides after limit_data bytes passed', async () => {
    const { proxy, target } = await setup();
    proxy.addToxic({ type: 'limit_data', bytes: 100, stream: 'upstream' });
    const client = await connect(proxy.port);
    const result = drain(client);
    client.write(payload(1000));
    const { error } = await result;
    expect(error).toBeUndefined();
    await proxy.until((s) => s.open === 0);
    expect(target.bytes().equals(payload(100))).toBe(true);
  });

  it('resets the client connection after reset_peer afterBytes', async () => {
    const { proxy, target } = await setup();
    proxy.addToxic({ type: 'reset_peer', afterBytes: 64, stream: 'upstream' });
    const client = await connect(proxy.port);
    const result = drain(client);
    client.write(payload(500));
    const { error } = await result;
    expect(error).toBe('ECONNRESET');
    expect(proxy.stats.resets).toBe(1);
    expect(proxy.stats.upstreamOut).toBe(64);
    expect(target.bytes().subarray(0, 64).equals(payload(64))).toBe(true);
  });

  it('cuts data into slices with the slicer toxic without changing the bytes', async () => {
    const { proxy, target } = await setup();
    proxy.addToxic({ type: 'slicer', sliceBytes: 10, delayMs: 5, stream: 'upstream' });
    const client = await connect(proxy.port);
    client.end(payload(100));
    await proxy.until((s) => s.open === 0);
    expect(target.bytes().equals(payload(100))).toBe(true);
    expect(target.received[0]!.length).toBeGreaterThan(1);
  });

  it('answers ECONNREFUSED while refusing and accepts again afterwards', async () => {
    const { proxy } = await setup(true);
    await proxy.refuse();
    const refused = net.connect({ port: proxy.port, host: '127.0.0.1' });
    const [err] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
    expect(err.code).toBe('ECONNREFUSED');
    await proxy.accept();
    const client = await connect(proxy.port);
    const result = drain(client);
    client.end('again');
    expect((await result).data.toString()).toBe('again');
  });

  it('resets every open connection on resetAll', async () => {
    const { proxy } = await setup();
    const a = await connect(proxy.port);
    const b = await connect(proxy.port);
    const results = [drain(a), drain(b)];
    await proxy.until((s) => s.open === 2);
    proxy.resetAll();
    expect((await results[0]!).error).toBe('ECONNRESET');
    expect((await results[1]!).error).toBe('ECONNRESET');
  });

  it('resets the client when the target is down', async () => {
    const target = await startTarget();
    const port = target.port;
    await target.close();
    const proxy = await startFaultProxy({ target: { port } });
    cleanups.push(proxy.close);
    const client = await connect(proxy.port);
    expect((await drain(client)).error).toBe('ECONNRESET');
  });

  it('applies a toxic added in the middle of an open connection', async () => {
    const { proxy, target } = await setup();
    const client = await connect(proxy.port);
    client.write(payload(10));
    await proxy.until((s) => s.upstreamOut === 10);
    const name = proxy.addToxic({ type: 'stall', stream: 'upstream' });
    client.write(payload(20));
    await proxy.until((s) => s.upstreamIn === 30);
    expect(proxy.stats.upstreamOut).toBe(10);
    expect(proxy.toxics()).toEqual([{ type: 'stall', stream: 'upstream', name }]);
    proxy.clearToxics();
    client.end();
    await proxy.until((s) => s.open === 0);
    expect(target.bytes().equals(Buffer.concat([payload(10), payload(20)]))).toBe(true);
  });
});
