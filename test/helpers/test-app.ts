import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';
import { type ManualClock, manualClock } from '../../src/clock.ts';
import { type Config, type Env, loadConfig } from '../../src/config.ts';
import { type AppContext, type ContextOverrides, createContext } from '../../src/context.ts';
import { type App, buildApp } from '../../src/http/build-app.ts';
import { createLogger } from '../../src/logger.ts';
import { drainServing } from '../../src/main.ts';
import { createUser, type UserView } from '../../src/users/user-service.ts';
import { openTestDatabase } from './test-db.ts';

/** Default test time: a fixed instant so rebasing and sessions are reproducible. */
export const TEST_NOW = Date.parse('2026-03-01T12:00:00.000Z');

export const TEST_SECRET_KEY = Buffer.alloc(32, 7).toString('base64');

/** A private temporary folder under the project's .tmp (never the shared /tmp). */
export function testTempDir(prefix = 'test-'): string {
  return mkdtempSync(path.join(inject('tmpDir'), prefix));
}

/** Builds a Config for tests from a few overrides of the environment. */
export function testConfig(env: Env = {}): Config {
  return loadConfig({
    DATA_DIR: testTempDir('data-'),
    SECRET_KEY: TEST_SECRET_KEY,
    PUBLIC_URL: 'http://socdrill.test',
    LOG_LEVEL: 'silent',
    SCHEDULER: 'off',
    RELEASE_TICK: 'off',
    ...env,
  });
}

export interface TestApp {
  app: App;
  ctx: AppContext;
  clock: ManualClock;
  /** Stops serving as a shutdown does (requests refused, background work stopped), the database still open. */
  drain(): Promise<void>;
  close(): Promise<void>;
}

/** Choices of a test app: environment, start time, and context overrides (kinds, dispatcher, timing). */
export interface TestAppOptions {
  env?: Env;
  now?: number;
  overrides?: Omit<ContextOverrides, 'clock' | 'log' | 'database'>;
}

/**
 * A fresh database, context and app (not listening), started as main.ts starts one. Close it in
 * afterAll/afterEach.
 */
export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const clock = manualClock(options.now ?? TEST_NOW);
  const config = testConfig(options.env);
  const ctx = await createContext(config, {
    clock,
    log: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    database: await openTestDatabase(),
    ...options.overrides,
    // Background SIEM checks would add requests to the simulators tests count on; the
    // platform-status tests build their own app with them on.
    platformStatus: { siemChecks: false, ...options.overrides?.platformStatus },
  });
  const app = await buildApp(ctx);
  await app.ready();
  ctx.start();
  return { app, ctx, clock, ...shutdownOf(app, ctx) };
}

/**
 * drain() (stop answering and running, the database still open) and close() (all of it) of a
 * test's app, as main.ts stops a serving instance. Both idempotent: a test may drain or close
 * early, and its afterEach closes again.
 */
export function shutdownOf(app: App, ctx: AppContext): { drain(): Promise<void>; close(): Promise<void> } {
  let draining: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  const drain = () => {
    draining ??= drainServing(app, ctx);
    return draining;
  };
  return {
    drain,
    close: () => {
      closing ??= (async () => {
        await drain();
        await ctx.close();
      })();
      return closing;
    },
  };
}

let userSeq = 0;

/** Creates a user with the given roles; returns it with its password. */
export async function createTestUser(
  ctx: AppContext,
  roles: string[],
  overrides: { email?: string; password?: string } = {},
): Promise<UserView & { password: string }> {
  userSeq += 1;
  const password = overrides.password ?? `pw-${userSeq}-long-enough`;
  const user = await createUser(ctx.db, {
    email: overrides.email ?? `user${userSeq}-${Date.now()}@example.test`,
    password,
    roles,
  });
  return { ...user, password };
}

/** Signs in through the real route and returns the Cookie header to send. */
export async function login(app: App, email: string, password: string): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/login', payload: { email, password } });
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  const cookie = res.cookies.find((c) => c.name.endsWith('socdrill_session'));
  if (!cookie) throw new Error('no session cookie');
  return `${cookie.name}=${cookie.value}`;
}

/** Creates a user holding `roles` and returns a signed-in Cookie header for it. */
export async function signedInAs(t: TestApp, roles: string[]): Promise<{ cookie: string; user: UserView }> {
  const user = await createTestUser(t.ctx, roles);
  return { cookie: await login(t.app, user.email, user.password), user };
}
