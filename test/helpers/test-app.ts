import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';
import { type ManualClock, manualClock } from '../../src/clock.ts';
import { type Config, type Env, loadConfig } from '../../src/config.ts';
import { type AppContext, createContext } from '../../src/context.ts';
import { type App, buildApp } from '../../src/http/build-app.ts';
import { createLogger } from '../../src/logger.ts';
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
    ...env,
  });
}

export interface TestApp {
  app: App;
  ctx: AppContext;
  clock: ManualClock;
  close(): Promise<void>;
}

/** A fresh database, context and app (not listening). Close it in afterAll/afterEach. */
export async function buildTestApp(options: { env?: Env; now?: number } = {}): Promise<TestApp> {
  const clock = manualClock(options.now ?? TEST_NOW);
  const config = testConfig(options.env);
  const ctx = await createContext(config, {
    clock,
    log: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    database: await openTestDatabase(),
    // Background SIEM checks would add requests to the simulators tests count on; the
    // platform-status tests build their own app with them on.
    platformStatus: { driverFactory: () => undefined },
  });
  const app = await buildApp(ctx);
  await app.ready();
  return {
    app,
    ctx,
    clock,
    async close() {
      await app.close();
      await ctx.close();
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
