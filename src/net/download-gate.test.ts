import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testTempDir } from '../../test/helpers/test-app.ts';
import { AppError } from '../errors.ts';
import { DownloadGate, RETRY_AFTER_SECONDS } from './download-gate.ts';

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected a refusal');
}

describe(DownloadGate.name, () => {
  it('admits maxConcurrent starts, refuses the next with 503 and retry_after_seconds, and admits again after a release', async () => {
    const gate = new DownloadGate({ maxConcurrent: 2, memoryBytes: 10, tempDir: testTempDir('gate-') });
    const a = gate.enter();
    gate.enter();
    const err = refusal(() => gate.enter());
    expect(err.status).toBe(503);
    expect(err.code).toBe('unavailable');
    expect(err.details).toEqual({ retry_after_seconds: RETRY_AFTER_SECONDS, max_concurrent: 2 });
    expect(err.message).toContain('ARCHIVE_MAX_CONCURRENT');
    await a.release();
    await a.release();
    expect(gate.active).toBe(1);
    gate.enter();
    expect(gate.active).toBe(2);
  });

  it("removes a slot's files on release, and every file left at close, then refuses starts", async () => {
    const tempDir = path.join(testTempDir('gate-'), 'tmp');
    const gate = new DownloadGate({ maxConcurrent: 2, memoryBytes: 10, tempDir });
    const a = gate.enter();
    const b = gate.enter();
    const fa = await a.createFile();
    const fb = await b.createFile();
    await fa.handle.close();
    await fb.handle.close();
    expect(statSync(tempDir).mode & 0o777).toBe(0o700);
    expect(statSync(fa.path).mode & 0o777).toBe(0o600);
    await a.release();
    expect(existsSync(fa.path)).toBe(false);
    expect(existsSync(fb.path)).toBe(true);
    await gate.close();
    expect(readdirSync(tempDir)).toEqual([]);
    expect(refusal(() => gate.enter()).status).toBe(503);
    await expect(b.createFile()).rejects.toThrow('released');
  });

  it('sweeps spill files an earlier process left, only old ones and only its own names', async () => {
    const tempDir = testTempDir('gate-');
    const old = path.join(tempDir, 'archive-0123.zip');
    const fresh = path.join(tempDir, 'archive-4567.zip');
    const other = path.join(tempDir, 'notes.txt');
    for (const f of [old, fresh, other]) writeFileSync(f, 'x');
    const dayAgo = (Date.now() - 25 * 3600_000) / 1000;
    utimesSync(old, dayAgo, dayAgo);
    utimesSync(other, dayAgo, dayAgo);
    const gate = new DownloadGate({ maxConcurrent: 1, memoryBytes: 10, tempDir });
    expect(await gate.sweep(Date.now(), 24 * 3600_000)).toBe(1);
    expect(readdirSync(tempDir).sort()).toEqual(['archive-4567.zip', 'notes.txt']);
  });
});
