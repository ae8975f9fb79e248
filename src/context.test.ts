import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { login, testConfig } from '../test/helpers/test-app.ts';
import { openTestDatabase } from '../test/helpers/test-db.ts';
import { type AppContext, createContext } from './context.ts';
import { buildApp } from './http/build-app.ts';

describe('createContext', () => {
  let ctx: AppContext | undefined;
  afterEach(async () => {
    await ctx?.close();
    ctx = undefined;
  });

  it('removes at start the archive spill files a killed process left, at once with the embedded database', async () => {
    const config = testConfig();
    const tmp = path.join(config.dataDir, 'tmp');
    mkdirSync(tmp, { recursive: true });
    const left = path.join(tmp, 'archive-left-by-a-killed-start.zip');
    const other = path.join(tmp, 'notes.txt');
    writeFileSync(left, 'PK');
    writeFileSync(other, 'not ours');
    const database = await openTestDatabase();
    ctx = await createContext(config, { log: pino({ level: 'silent' }), database });
    // A fresh file is an earlier process's only when no other instance can share DATA_DIR.
    expect(existsSync(left)).toBe(database.kind === 'postgres');
    expect(existsSync(other)).toBe(true);
  });

  it("starts with the operator's weak ADMIN_PASSWORD and short DISPATCH_TOKEN, warning about both", async () => {
    const lines: Array<{ level: number; msg: string }> = [];
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    ctx = await createContext(
      testConfig({ ADMIN_EMAIL: 'admin@lab.test', ADMIN_PASSWORD: 'admin', DISPATCH_TOKEN: 'test-token' }),
      { log, database: await openTestDatabase(), platformStatus: { siemChecks: false } },
    );
    const app = await buildApp(ctx);
    try {
      await app.ready();
      expect(await login(app, 'admin@lab.test', 'admin')).toMatch(/socdrill_session=/);
      const run = await app.inject({
        method: 'POST',
        url: '/api/noise/run',
        headers: { authorization: 'Bearer test-token' },
        payload: {},
      });
      // The token is accepted: the empty body fails validation, not authentication.
      expect(run.statusCode).toBe(400);
    } finally {
      await app.close();
    }
    const warnings = lines.filter((l) => l.level === 40).map((l) => l.msg);
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringContaining('DISPATCH_TOKEN is shorter than 16 characters'),
        expect.stringContaining('ADMIN_PASSWORD must be at least'),
      ]),
    );
    expect(JSON.stringify(lines)).not.toContain('test-token');
  });
});
