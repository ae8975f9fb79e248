import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors.ts';

/** A held lock on DATA_DIR; release() removes it. */
export interface DataDirLock {
  readonly file: string;
  release(): void;
}

/**
 * Takes the exclusive lock that keeps a second process off the embedded database: two processes
 * on one PGlite folder lose writes silently. A lock left by a process that no longer runs is taken over.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, 'socdrill.lock');
  if (heldHere.has(file)) throw inUse(dataDir, file, process.pid);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      let released = false;
      heldHere.add(file);
      return {
        file,
        release() {
          if (released) return;
          released = true;
          heldHere.delete(file);
          rmSync(file, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number.parseInt(readFileSafe(file), 10);
      // Our own pid in a lock this process does not hold is a leftover of an earlier run that had
      // the same pid (containers always start as pid 1), so it is stale too.
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
        throw inUse(dataDir, file, holder);
      }
      // Stale lock (holder gone, or unreadable): remove it and try once more.
      rmSync(file, { force: true });
    }
  }
  throw new AppError('unavailable', `Could not lock ${dataDir}`);
}

/** Lock files held by this process (a second open from the same process is refused too). */
const heldHere = new Set<string>();

function inUse(dataDir: string, file: string, pid: number): AppError {
  return new AppError(
    'unavailable',
    `The embedded database in ${dataDir} is in use by another Socdrill process (pid ${pid}). ` +
      'The embedded database serves one process; to run several instances, set DATABASE_URL to a PostgreSQL server. ' +
      `If no Socdrill process is running, delete ${file}.`,
    { details: { dataDir, pid } },
  );
}

function readFileSafe(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
