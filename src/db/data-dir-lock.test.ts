import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testTempDir } from '../../test/helpers/test-app.ts';
import { lockDataDir } from './data-dir-lock.ts';

describe(lockDataDir.name, () => {
  it('writes the pid and removes the lock on release', () => {
    const dir = testTempDir('lock-');
    const lock = lockDataDir(dir);
    expect(readFileSync(lock.file, 'utf8').trim()).toBe(String(process.pid));
    lock.release();
    expect(existsSync(lock.file)).toBe(false);
  });

  it('refuses a second lock on the same folder from this process', () => {
    const dir = testTempDir('lock-');
    const lock = lockDataDir(dir);
    expect(() => lockDataDir(dir)).toThrow(/in use by another Socdrill process.*DATABASE_URL/);
    lock.release();
    lockDataDir(dir).release();
  });

  it('refuses while another live process holds the lock', async () => {
    const dir = testTempDir('lock-');
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      writeFileSync(path.join(dir, 'socdrill.lock'), `${child.pid}\n`);
      expect(() => lockDataDir(dir)).toThrow(new RegExp(`pid ${child.pid}`));
    } finally {
      child.kill();
    }
  });

  it('takes over a lock left by a process that is gone', () => {
    const dir = testTempDir('lock-');
    // Pid 2^22 + 1 is above Linux's pid_max default, so no process has it.
    writeFileSync(path.join(dir, 'socdrill.lock'), '4194305\n');
    const lock = lockDataDir(dir);
    expect(readFileSync(lock.file, 'utf8').trim()).toBe(String(process.pid));
    lock.release();
  });
});
