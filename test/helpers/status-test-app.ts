import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { manualClock } from '../../src/clock.ts';
import type { Env } from '../../src/config.ts';
import { type ContextOverrides, createContext } from '../../src/context.ts';
import { buildApp } from '../../src/http/build-app.ts';
import { createLogger } from '../../src/logger.ts';
import type { PlatformStatusOptions } from '../../src/platform-status/create-platform-status.ts';
import { shutdownOf, TEST_NOW, type TestApp, testConfig } from './test-app.ts';
import { openTestDatabase } from './test-db.ts';

/** An app with platform-status options, listening on a random port. */
export interface StatusTestApp extends TestApp {
  /** `http://127.0.0.1:PORT` when listening, else empty. */
  url: string;
}

/** Like buildTestApp, with platform-status options and (by default) a real listening server. */
export async function buildStatusTestApp(
  options: {
    env?: Env;
    platformStatus?: PlatformStatusOptions;
    listen?: boolean;
    overrides?: Omit<ContextOverrides, 'clock' | 'log' | 'database' | 'platformStatus'>;
  } = {},
): Promise<StatusTestApp> {
  const clock = manualClock(TEST_NOW);
  const ctx = await createContext(testConfig(options.env), {
    clock,
    log: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    database: await openTestDatabase(),
    ...options.overrides,
    ...(options.platformStatus ? { platformStatus: options.platformStatus } : {}),
  });
  const app = await buildApp(ctx);
  let url = '';
  if (options.listen !== false) {
    await app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  } else {
    await app.ready();
  }
  ctx.start();
  return { app, ctx, clock, url, ...shutdownOf(app, ctx) };
}

/** One parsed event of a stream. */
export interface ReceivedEvent {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

/** A streaming client reading a response as it arrives. */
export interface SseTestClient {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  /** Everything received so far. */
  text(): string;
  /** Events received so far (comments and retry-only blocks excluded). */
  events(): ReceivedEvent[];
  /** Comment lines received so far, without the leading colon. */
  comments(): string[];
  /** True once the server ended or cut the response. */
  ended(): boolean;
  /** Waits until `predicate` holds, failing with `what` after `timeoutMs`. */
  waitFor(what: string, predicate: () => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Opens a GET and resolves when the response headers arrive. */
export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseTestClient> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers }, agent: false });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      let ended = false;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      const markEnded = () => {
        ended = true;
      };
      res.on('end', markEnded);
      res.on('close', markEnded);
      res.on('error', markEnded);
      const blocks = () => text.split('\n\n').slice(0, -1);
      const client: SseTestClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        text: () => text,
        events: () =>
          blocks()
            .map((block) => {
              const e: ReceivedEvent = { id: undefined, event: undefined, data: '' };
              let hasData = false;
              for (const line of block.split('\n')) {
                const at = line.indexOf(': ');
                const field = at === -1 ? line : line.slice(0, at);
                const value = at === -1 ? '' : line.slice(at + 2);
                if (field === 'id') e.id = value;
                else if (field === 'event') e.event = value;
                else if (field === 'data') {
                  e.data = hasData ? `${e.data}\n${value}` : value;
                  hasData = true;
                }
              }
              return hasData ? e : null;
            })
            .filter((e): e is ReceivedEvent => e !== null),
        comments: () =>
          blocks()
            .filter((b) => b.startsWith(':'))
            .map((b) => b.slice(1).trim()),
        ended: () => ended,
        waitFor: (what, predicate, timeoutMs = 5_000) => waitUntil(what, predicate, timeoutMs),
        close: () => {
          req.destroy();
        },
      };
      resolve(client);
    });
    req.end();
  });
}

/** Polls a condition every few milliseconds until it holds or the deadline passes. */
export async function waitUntil(what: string, predicate: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
