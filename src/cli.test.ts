import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testTempDir } from '../test/helpers/test-app.ts';
import { SERVICE_NODE_FLAGS } from './node-flags.ts';

const BIN = path.resolve('bin/socdrill.js');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

function run(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.exitCode === null) {
      c.kill('SIGTERM');
      await once(c, 'exit');
    }
  }
});

async function startServer(env: Record<string, string>): Promise<{ base: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const base = `http://127.0.0.1:${port}`;
  // Up to 60 s: a first start on a fresh data folder creates the embedded database, which took
  // over 20 s on a slow host with both cores busy.
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${base}/api/health`);
      if (res.ok) return { base, child };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not start');
}

/** A memory figure of a running process from /proc (VmRSS: now, VmHWM: its peak), in MiB. */
function memoryMiB(pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]) / 1024;
}

async function stop(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  await once(child, 'exit');
}

describe('socdrill command', () => {
  it('serves on the embedded database, keeps data across restarts and refuses a second instance', async () => {
    const dataDir = testTempDir('cli-');
    const env = { DATA_DIR: dataDir, ADMIN_EMAIL: 'admin@lab.test', ADMIN_PASSWORD: 'bootstrap password 1' };
    const first = await startServer(env);
    // `serve` replaced itself with a process started with the service's V8 flags (same PID).
    const cmdline = readFileSync(`/proc/${first.child.pid}/cmdline`, 'utf8').split('\0');
    for (const flag of SERVICE_NODE_FLAGS) expect(cmdline).toContain(flag);
    // The embedded database's memory (docs/performance.md, "Memory"): a first start on a new data
    // dir peaked at 229-230 MiB (its initdb runs in a child process), a restart idled at 240.
    expect(memoryMiB(first.child.pid, 'VmHWM')).toBeLessThanOrEqual(400);
    const login = await fetch(`${first.base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@lab.test', password: 'bootstrap password 1' }),
    });
    expect(login.status).toBe(200);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const created = await fetch(`${first.base}/api/destinations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ name: 'syslog-lab', driver: 'syslog_tcp', host: '127.0.0.1', port: 5514 }),
    });
    expect(created.status).toBe(201);

    const second = await run(['serve'], { ...env, PORT: String(await freePort()) });
    expect(second.code).toBe(1);
    expect(second.err).toContain('in use by another Socdrill process');

    await stop(first.child);
    const again = await startServer({ ...env, ADMIN_PASSWORD: 'a different password' });
    // The embedded default's idle goal (docs/performance.md "Memory"): the start-up's memory is
    // given back before the service listens.
    expect(memoryMiB(again.child.pid, 'VmRSS')).toBeLessThanOrEqual(250);
    // Sessions, users and destinations persisted; the bootstrap never changes an existing admin.
    const me = await fetch(`${again.base}/api/me`, { headers: { cookie } });
    expect(me.status).toBe(200);
    const list = await fetch(`${again.base}/api/destinations`, { headers: { cookie } });
    expect(((await list.json()) as Array<{ name: string }>).map((d) => d.name)).toEqual(['syslog-lab']);
    const oldPw = await fetch(`${again.base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@lab.test', password: 'bootstrap password 1' }),
    });
    expect(oldPw.status).toBe(200);
  }, 180_000);

  it('migrates and creates users from the command line', async () => {
    const dataDir = testTempDir('cli-');
    const migrate = await run(['migrate'], { DATA_DIR: dataDir });
    expect(migrate.code, migrate.err).toBe(0);
    expect(migrate.out).toContain('0001-foundation');
    const again = await run(['migrate'], { DATA_DIR: dataDir });
    expect(again.out).toContain('up to date');

    const ok = await run(
      [
        'user',
        'create',
        '--email',
        'ops@lab.test',
        '--password',
        'ops password 123',
        '--role',
        'noise_operator',
        '--role',
        'author',
      ],
      {
        DATA_DIR: dataDir,
      },
    );
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toMatch(/Created user ops@lab.test .* with roles: author, noise_operator/);

    const bad = await run(
      ['user', 'create', '--email', 'x@lab.test', '--password', 'short', '--role', 'wizard'],
      {
        DATA_DIR: dataDir,
      },
    );
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('password must be at least 8 characters; roles unknown role: wizard');

    const usage = await run(['frobnicate'], { DATA_DIR: dataDir });
    expect(usage.code).toBe(2);
    expect(usage.err).toContain('Usage: socdrill');
  }, 90_000);

  it('refuses to start with an invalid configuration and says which variable is wrong', async () => {
    const res = await run(['serve'], { DATA_DIR: testTempDir('cli-'), PORT: 'eighty' });
    expect(res.code).toBe(1);
    expect(res.err).toContain('PORT');
  });
  it('validates bundles without a database: both examples pass, broken ones list their problems', async () => {
    const env = { DATA_DIR: testTempDir('cli-') };
    for (const folder of ['phishing-to-lateral-movement', 'ssh-brute-force']) {
      const res = await run(['exercise', 'validate', path.join('examples/exercises', folder)], env);
      expect(res.code, res.err).toBe(0);
      expect(res.out).toMatch(/^Valid bundle ".+": \d+ steps, \d+ sections, \d+ artifacts, \d+ archives\n$/);
    }

    const broken = testTempDir('bundle-');
    mkdirSync(path.join(broken, 'archives'));
    writeFileSync(
      path.join(broken, 'exercise.yaml'),
      [
        'schema_version: 1',
        'title: Broken',
        'artifacts:',
        '  - { ref: ip, name: IP, kind: ip, values: [10.0.0.1], section: nowhere }',
        'sections:',
        '  - ref: one',
        '    name: One',
        '    position: 1',
        '    archives: [{ format: ecs, file: archives/bad.ndjson, filename: bad.ndjson }]',
      ].join('\n'),
    );
    writeFileSync(path.join(broken, 'archives/bad.ndjson'), 'neither LEEF nor ECS\n');
    const refs = await run(['exercise', 'validate', broken], env);
    expect(refs.code).toBe(1);
    expect(refs.err).toContain('exercise.yaml /artifacts/0/section: refers to unknown section "nowhere"');

    writeFileSync(
      path.join(broken, 'exercise.yaml'),
      readFileSync(path.join(broken, 'exercise.yaml'), 'utf8').replace('section: nowhere', 'section: one'),
    );
    const archive = await run(['exercise', 'validate', broken], env);
    expect(archive.code).toBe(1);
    expect(archive.err).toContain('archives/bad.ndjson: "bad.ndjson" is neither LEEF nor ECS');
  }, 60_000);

  it('imports a bundle folder and exports the exercise again from the command line', async () => {
    const env = { DATA_DIR: testTempDir('cli-') };
    const imported = await run(['exercise', 'import', 'examples/exercises/ssh-brute-force'], env);
    expect(imported.code, imported.err).toBe(0);
    const id = /as draft exercise ([0-9a-f-]{36})/.exec(imported.out)?.[1] ?? '';
    expect(id).not.toBe('');

    const out = path.join(testTempDir('export-'), 'ssh.zip');
    const exported = await run(['exercise', 'export', id, '--out', out], env);
    expect(exported.code, exported.err).toBe(0);
    expect(exported.out).toContain(out);
    const zip = readFileSync(out);
    expect(zip.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');

    const valid = await run(['exercise', 'validate', out], env);
    expect(valid.code, valid.err).toBe(0);
    expect(valid.out).toContain(
      'Valid bundle "SSH brute force on the bastion host": 3 steps, 2 sections, 4 artifacts, 2 archives',
    );

    const unknown = await run(['exercise', 'import', out, '--destination', 'ghost'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('"ghost"');
  }, 180_000);
});
