/// <reference types="node" />
// End-to-end harness: the real service (bin/socdrill.js serve, embedded PGlite) as a child process,
// the protocol simulators in this process, and Debian's chromium driven by playwright-core.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { type LabSiems, startLabSiems } from '../../test/simulators/lab-siems.ts';

/** Debian's chromium; never a downloaded browser. */
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const VIEWPORT = { width: 1280, height: 800 } as const;

export const ROOT = path.resolve(import.meta.dirname, '../..');
/** Full-page screenshots of every page a journey visits (not committed). */
export const SCREENSHOTS = path.join(ROOT, 'test-output', 'screenshots');
/** The README's screenshots (committed; 1280×800). */
export const DOCS_SCREENSHOTS = path.join(ROOT, 'docs', 'screenshots');

export const ADMIN = { email: 'admin@example.test', password: 'e2e admin password' } as const;

/**
 * Why the journeys cannot run here, or undefined when they can. Callers fail with it under CI
 * (CI=true must not pass by skipping) and skip with it printed otherwise.
 */
export function chromiumMissing(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  return `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) to run the console journeys`;
}

/** Whether this run is CI's (a missing browser is then a failure, not a skip). */
export const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

/** A running service, simulators and browser, with helpers for journeys. */
export interface ConsoleRig {
  readonly baseUrl: string;
  readonly siems: LabSiems;
  readonly browser: Browser;
  readonly context: BrowserContext;
  readonly page: Page;
  /** A folder of this run under .tmp (files for uploads), removed by close(). */
  readonly tmpDir: string;
  /** Service output so far (stdout and stderr), for failure messages. */
  serviceLog(): string;
  /** Opens a console path (e.g. `/noise`) and waits for the page's heading. */
  goto(pathname: string): Promise<void>;
  /** Signs in through the sign-in form (the page must show it, or `goto('/sign-in')` first). */
  signIn(email: string, password: string): Promise<void>;
  /**
   * Full-page screenshot to test-output/screenshots/<name>.png; with `docs` and
   * E2E_UPDATE_DOCS_SCREENSHOTS=1, also a 1280×800 copy of the viewport to docs/screenshots/<name>.png
   * for the README.
   */
  shot(name: string, options?: { docs?: boolean }): Promise<void>;
  /**
   * An API call with the browser's cookies (the signed-in user's session): a Buffer body is sent raw
   * as application/zip, anything else as JSON.
   */
  api(method: string, pathname: string, body?: unknown): Promise<{ status: number; json: unknown }>;
  close(): Promise<void>;
}

/** Builds the console (web/dist) when a source is newer than it; a no-op otherwise. */
export function buildConsoleIfStale(): void {
  const node = path.join(ROOT, 'node_modules', '.bin', 'node');
  const result = spawnSync(node, ['scripts/build-console.ts', '--if-stale'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    throw new Error(`Building the console failed:\n${result.stdout}\n${result.stderr}`);
  }
}

/** A port free on 127.0.0.1 right now. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `/api/health` answers 200, the child exits, or the time runs out. */
async function waitForHealth(
  baseUrl: string,
  child: ChildProcess,
  log: () => string,
  ms: number,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `The service exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${log()}`,
      );
    }
    try {
      const res = await fetch(`${baseUrl}/api/health`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await sleep(250);
  }
  throw new Error(`The service did not answer /api/health within ${ms / 1000} s:\n${log()}`);
}

/** Stops the child: SIGTERM, then SIGKILL after `ms`. */
async function stopChild(child: ChildProcess, ms = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts everything a journey needs: builds the console if stale, starts the simulators, the
 * service on a free port with a fresh DATA_DIR under .tmp, and chromium at 1280×800.
 */
export async function startConsoleRig(): Promise<ConsoleRig> {
  const problem = chromiumMissing();
  if (problem) throw new Error(problem);
  buildConsoleIfStale();
  mkdirSync(SCREENSHOTS, { recursive: true });

  const tmp = path.join(ROOT, '.tmp');
  mkdirSync(tmp, { recursive: true });
  const runDir = mkdtempSync(path.join(tmp, 'e2e-'));
  const dataDir = path.join(runDir, 'data');
  const filesDir = path.join(runDir, 'files');
  mkdirSync(filesDir);
  const siems = await startLabSiems({
    LAB_HEC_PORT: '0',
    LAB_HEC_MANAGEMENT_PORT: '0',
    LAB_BULK_PORT: '0',
    LAB_SYSLOG_PORT: '0',
    LAB_SIEM_Q_PORT: '0',
  });

  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  // A small environment of its own: nothing of the test runner's (NODE_OPTIONS, DATABASE_URL…) leaks in.
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? tmp,
    TMPDIR: tmp,
    LANG: 'C.UTF-8',
    TZ: 'UTC',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: baseUrl,
    DATA_DIR: dataDir,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    SCHEDULER: 'off',
    ARCHIVE_ALLOW_HTTP: 'true',
    ARCHIVE_ALLOWED_HOSTS: '127.0.0.1,localhost',
    // Poll often, so the dashboard and destination states show the simulators within seconds.
    PLATFORM_STATUS_POLL_SECONDS: '2',
    LOG_LEVEL: 'info',
  };
  const logFile = path.join(ROOT, 'test-output', 'e2e-service.log');
  const logStream = createWriteStream(logFile);
  let output = '';
  const node = path.join(ROOT, 'node_modules', '.bin', 'node');
  const child = spawn(node, ['bin/socdrill.js', 'serve'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (output.length > 200_000) output = output.slice(-100_000);
    logStream.write(chunk);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const serviceLog = () => output.slice(-8000);

  let browser: Browser | undefined;
  try {
    await waitForHealth(baseUrl, child, serviceLog, 90_000);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
    // Fixed zone and locale: the screenshots show the same dates wherever they are taken.
    const context = await browser.newContext({
      viewport: VIEWPORT,
      baseURL: baseUrl,
      timezoneId: 'UTC',
      locale: 'en-GB',
    });
    // Generous: the journeys share two CPUs with the rest of the suite.
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    const rig: ConsoleRig = {
      baseUrl,
      siems,
      browser,
      context,
      page,
      tmpDir: filesDir,
      serviceLog,
      async goto(pathname) {
        await page.goto(pathname);
        await page.getByRole('heading', { level: 1 }).first().waitFor();
      },
      async signIn(email, password) {
        await page.getByLabel('E-mail').fill(email);
        await page.getByLabel('Password').fill(password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL((url) => !url.pathname.startsWith('/sign-in'));
        await page.getByRole('navigation', { name: 'Main' }).waitFor();
      },
      async shot(name, options = {}) {
        const file = path.join(SCREENSHOTS, `${name}.png`);
        await page.screenshot({ path: file, fullPage: true, animations: 'disabled' });
        // The README's images change only when asked (their clocks would rewrite them every run).
        if (options.docs && process.env.E2E_UPDATE_DOCS_SCREENSHOTS === '1') {
          mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
          const docs = path.join(SCREENSHOTS, `${name}.viewport.png`);
          await page.screenshot({ path: docs, fullPage: false, animations: 'disabled' });
          copyFileSync(docs, path.join(DOCS_SCREENSHOTS, `${name}.png`));
        }
      },
      async api(method, pathname, body) {
        const raw = Buffer.isBuffer(body);
        const res = await context.request.fetch(`${baseUrl}${pathname}`, {
          method,
          headers: {
            origin: baseUrl,
            ...(body === undefined ? {} : { 'content-type': raw ? 'application/zip' : 'application/json' }),
          },
          ...(body === undefined ? {} : { data: raw ? body : JSON.stringify(body) }),
          failOnStatusCode: false,
        });
        const text = await res.text();
        let json: unknown = text;
        try {
          json = text === '' ? null : JSON.parse(text);
        } catch {
          // Not JSON: the text as it is.
        }
        return { status: res.status(), json };
      },
      async close() {
        await browser?.close().catch(() => undefined);
        await stopChild(child);
        logStream.end();
        await siems.close();
        rmSync(runDir, { recursive: true, force: true });
      },
    };
    return rig;
  } catch (err) {
    await browser?.close().catch(() => undefined);
    await stopChild(child);
    logStream.end();
    await siems.close();
    rmSync(runDir, { recursive: true, force: true });
    throw err;
  }
}
