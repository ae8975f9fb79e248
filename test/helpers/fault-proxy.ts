import { EventEmitter, once } from 'node:events';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** Which way a toxic acts: `upstream` is client → target, `downstream` is target → client. */
export type ToxicStream = 'upstream' | 'downstream';

/** A network fault, named after Toxiproxy's toxics of the same behaviour. */
export type Toxic =
  /** Every chunk is forwarded `ms` after it arrived (pipelined, order kept). */
  | { readonly type: 'latency'; readonly ms: number }
  /** Forwarding is throttled to about `bytesPerSecond`. */
  | { readonly type: 'bandwidth'; readonly bytesPerSecond: number }
  /** Nothing is forwarded while the toxic exists; held data flows once it is removed. */
  | { readonly type: 'stall' }
  /** After `bytes` have passed in this direction (per connection) both sides are closed (FIN). */
  | { readonly type: 'limit_data'; readonly bytes: number }
  /** After `afterBytes` (default 0: on the first data) the client gets a TCP RST and the target is dropped. */
  | { readonly type: 'reset_peer'; readonly afterBytes?: number }
  /** Chunks are cut into `sliceBytes` pieces written `delayMs` apart. */
  | { readonly type: 'slicer'; readonly sliceBytes: number; readonly delayMs?: number };

/** A toxic plus where it acts; `stream` defaults to `downstream` like Toxiproxy. */
export type ToxicSpec = Toxic & { readonly name?: string; readonly stream?: ToxicStream };

/** Byte and connection counters of a proxy (totals over all connections). */
export interface FaultProxyStats {
  /** Connections accepted so far. */
  connections: number;
  /** Connections currently open on the client side. */
  open: number;
  /** Bytes read from clients / written to the target. */
  upstreamIn: number;
  upstreamOut: number;
  /** Bytes read from the target / written to clients. */
  downstreamIn: number;
  downstreamOut: number;
  /** Client connections ended by a toxic with a RST. */
  resets: number;
}

/** A running TCP fault proxy. */
export interface FaultProxy {
  readonly host: string;
  readonly port: number;
  readonly target: { readonly host: string; readonly port: number };
  /** `scheme://host:port` of the proxy, handy for HTTP clients. */
  url(scheme?: string): string;
  /** Adds a toxic that applies at once, also to open connections; returns its name. */
  addToxic(spec: ToxicSpec): string;
  removeToxic(name: string): void;
  clearToxics(): void;
  /** The active toxics with their resolved names and streams. */
  toxics(): ReadonlyArray<ToxicSpec & { name: string; stream: ToxicStream }>;
  /** Stops listening so new connections get ECONNREFUSED; open connections carry on. */
  refuse(): Promise<void>;
  /** Listens again on the same port after {@link FaultProxy.refuse}. */
  accept(): Promise<void>;
  /** Sends a RST to every open client connection and drops their target connections. */
  resetAll(): void;
  readonly stats: Readonly<FaultProxyStats>;
  /** Resolves once `predicate(stats)` holds (checked after every byte movement), for race-free tests. */
  until(predicate: (stats: Readonly<FaultProxyStats>) => boolean): Promise<void>;
  close(): Promise<void>;
}

/** Options of {@link startFaultProxy}. */
export interface FaultProxyOptions {
  readonly target: { readonly host?: string; readonly port: number };
  readonly host?: string;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  readonly toxics?: readonly ToxicSpec[];
}

/** Chunks waiting in a direction before the source is paused (back-pressure towards the sender). */
const HIGH_WATER = 1 << 20;

/**
 * Starts a TCP proxy in front of `target` whose faults (latency, bandwidth, stall, limit_data,
 * reset_peer, slicer) can be switched at runtime. Used where Toxiproxy and tc netem are unavailable.
 */
export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const target = { host: options.target.host ?? '127.0.0.1', port: options.target.port };
  const host = options.host ?? '127.0.0.1';
  const active = new Map<string, ToxicSpec & { name: string; stream: ToxicStream }>();
  const changed = new EventEmitter();
  changed.setMaxListeners(0);
  const stats: FaultProxyStats = {
    connections: 0,
    open: 0,
    upstreamIn: 0,
    upstreamOut: 0,
    downstreamIn: 0,
    downstreamOut: 0,
    resets: 0,
  };
  const clients = new Set<{ client: net.Socket; upstream: net.Socket }>();
  let counter = 0;
  const notify = () => changed.emit('change');

  const toxicsFor = (stream: ToxicStream) => [...active.values()].filter((t) => t.stream === stream);

  const server = net.createServer({ allowHalfOpen: true, pauseOnConnect: true }, (client) => {
    stats.connections++;
    stats.open++;
    const upstream = net.connect({
      host: target.host,
      port: target.port,
      allowHalfOpen: true,
      noDelay: true,
    });
    const pair = { client, upstream };
    clients.add(pair);
    let finished = false;
    const finish = (how: 'reset' | 'end' | 'destroy') => {
      if (finished) return;
      finished = true;
      if (how === 'reset') {
        stats.resets++;
        if (!client.destroyed) client.resetAndDestroy();
        upstream.destroy();
      } else if (how === 'end') {
        client.end();
        upstream.end();
        // A peer that never closes its side must not keep the pair alive forever.
        client.once('finish', () => setImmediate(() => client.destroy()));
        upstream.once('finish', () => setImmediate(() => upstream.destroy()));
      } else {
        client.destroy();
        upstream.destroy();
      }
      notify();
    };
    client.on('close', () => {
      stats.open--;
      clients.delete(pair);
      upstream.destroy();
      notify();
    });
    client.on('error', () => finish('destroy'));
    // A target that refuses or resets shows up at the client as a reset, as with a real proxy hop.
    upstream.on('error', () => finish('reset'));
    upstream.once('connect', () => {
      pump({ from: client, to: upstream, stream: 'upstream', toxicsFor, stats, changed, finish, notify });
      pump({ from: upstream, to: client, stream: 'downstream', toxicsFor, stats, changed, finish, notify });
      client.resume();
    });
  });

  await listen(server, options.port ?? 0, host);
  const port = (server.address() as net.AddressInfo).port;

  const proxy: FaultProxy = {
    host,
    port,
    target,
    url: (scheme = 'http') => `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`,
    addToxic(spec) {
      const name = spec.name ?? `${spec.type}_${++counter}`;
      active.set(name, { ...spec, name, stream: spec.stream ?? 'downstream' });
      notify();
      return name;
    },
    removeToxic(name) {
      active.delete(name);
      notify();
    },
    clearToxics() {
      active.clear();
      notify();
    },
    toxics: () => [...active.values()],
    async refuse() {
      if (!server.listening) return;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // close() waits for open connections; resolve as soon as the listener is gone.
        setImmediate(resolve);
      });
    },
    async accept() {
      if (server.listening) return;
      await listen(server, port, host);
    },
    resetAll() {
      for (const { client, upstream } of clients) {
        stats.resets++;
        client.resetAndDestroy();
        upstream.destroy();
      }
      notify();
    },
    stats,
    until(predicate) {
      if (predicate(stats)) return Promise.resolve();
      return new Promise((resolve) => {
        const check = () => {
          if (!predicate(stats)) return;
          changed.off('change', check);
          resolve();
        };
        changed.on('change', check);
      });
    },
    async close() {
      for (const { client, upstream } of clients) {
        client.destroy();
        upstream.destroy();
      }
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  for (const t of options.toxics ?? []) proxy.addToxic(t);
  return proxy;
}

interface PumpContext {
  from: net.Socket;
  to: net.Socket;
  stream: ToxicStream;
  toxicsFor: (stream: ToxicStream) => Array<ToxicSpec & { name: string; stream: ToxicStream }>;
  stats: FaultProxyStats;
  changed: EventEmitter;
  finish: (how: 'reset' | 'end' | 'destroy') => void;
  notify: () => void;
}

/** Moves bytes one way, applying the toxics of that direction as they are at each chunk. */
function pump(ctx: PumpContext): void {
  const { from, to, stream, stats } = ctx;
  const queue: Array<{ data: Buffer; at: number }> = [];
  let queued = 0;
  let ended = false;
  let running = false;
  let passed = 0;

  from.on('data', (data: Buffer) => {
    if (stream === 'upstream') stats.upstreamIn += data.length;
    else stats.downstreamIn += data.length;
    queue.push({ data, at: performance.now() });
    queued += data.length;
    if (queued > HIGH_WATER) from.pause();
    ctx.notify();
    void run();
  });
  from.on('end', () => {
    ended = true;
    void run();
  });

  /** Resolves on the next toxic change (or any byte movement), or after `ms` when given. */
  const changeOrTimeout = (ms?: number) =>
    new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        ctx.changed.off('change', done);
        if (timer) clearTimeout(timer);
        resolve();
      };
      ctx.changed.on('change', done);
      if (ms !== undefined) timer = setTimeout(done, ms);
    });

  const write = async (data: Buffer) => {
    if (to.destroyed || to.writableEnded) return;
    if (!to.write(data)) await Promise.race([once(to, 'drain'), once(to, 'close')]);
    passed += data.length;
    if (stream === 'upstream') stats.upstreamOut += data.length;
    else stats.downstreamOut += data.length;
    ctx.notify();
  };

  async function run(): Promise<void> {
    if (running) return;
    running = true;
    try {
      while (queue.length > 0) {
        if (to.destroyed || to.writableEnded) return;
        let toxics = ctx.toxicsFor(stream);
        if (toxics.some((t) => t.type === 'stall')) {
          await changeOrTimeout();
          continue;
        }
        const head = queue[0]!;
        const latency = toxics.find((t) => t.type === 'latency');
        if (latency) {
          const due = head.at + latency.ms - performance.now();
          if (due > 0) {
            await changeOrTimeout(due);
            continue; // toxics may have changed meanwhile
          }
        }
        queue.shift();
        queued -= head.data.length;
        if (queued <= HIGH_WATER && from.isPaused()) from.resume();
        toxics = ctx.toxicsFor(stream);
        let data = head.data;
        const reset = toxics.find((t) => t.type === 'reset_peer');
        if (reset) {
          const room = Math.max(0, (reset.afterBytes ?? 0) - passed);
          if (room < data.length) {
            if (room > 0) await write(data.subarray(0, room));
            ctx.finish('reset');
            return;
          }
        }
        const limit = toxics.find((t) => t.type === 'limit_data');
        let closeAfter = false;
        if (limit) {
          const room = Math.max(0, limit.bytes - passed);
          if (room <= data.length) {
            data = data.subarray(0, room);
            closeAfter = true;
          }
        }
        const slicer = toxics.find((t) => t.type === 'slicer');
        const bandwidth = toxics.find((t) => t.type === 'bandwidth');
        const pieceSize = Math.max(
          1,
          Math.min(
            slicer ? slicer.sliceBytes : data.length,
            bandwidth ? Math.max(1, Math.floor(bandwidth.bytesPerSecond / 20)) : data.length,
          ),
        );
        for (let off = 0; off < data.length; off += pieceSize) {
          const piece = data.subarray(off, off + pieceSize);
          // Waiting before the write makes the last byte leave no earlier than size / rate.
          if (bandwidth) await sleep((piece.length / bandwidth.bytesPerSecond) * 1000);
          if (slicer?.delayMs && off > 0) await sleep(slicer.delayMs);
          await write(piece);
        }
        if (closeAfter) {
          ctx.finish('end');
          return;
        }
      }
      if (ended && !to.destroyed && !to.writableEnded) to.end();
    } finally {
      running = false;
      if (queue.length > 0 && !to.destroyed) void run();
    }
  }
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
