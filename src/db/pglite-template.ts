import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { PGLITE_OPTIONS } from './pglite-options.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const INITDB_SCRIPT = path.join(import.meta.dirname, 'pglite-initdb.ts');

/**
 * Where the installation keeps a fresh, never opened data dir to copy for each new DATA_DIR:
 * named after PGlite's version and the options it is created with, so an upgrade or a changed
 * setting makes a new one instead of reusing a data dir another Postgres wrote.
 */
export function pgliteTemplateDir(root = ROOT): string {
  const pkg = JSON.parse(
    readFileSync(path.join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8'),
  ) as {
    version: string;
  };
  const options = createHash('sha256').update(JSON.stringify(PGLITE_OPTIONS)).digest('hex').slice(0, 12);
  return path.join(root, 'node_modules', '.cache', 'socdrill', `pglite-${pkg.version}-${options}`);
}

/**
 * Runs PGlite's initdb for a new data dir at `target` in a short-lived child process: initdb runs a
 * second Postgres instance beside the first, whose WebAssembly memory would otherwise stay in the
 * service until a full collection (a first start idled at 770 MiB against 240 on reopen). Written
 * next to `target` and renamed on success, so a killed run leaves no half-made data dir.
 */
export async function initdbInChild(target: string): Promise<void> {
  const partial = `${target}.initdb`;
  rmSync(partial, { recursive: true, force: true });
  // --liftoff-only: V8's optimising compiler held 450-500 MiB for a while compiling Postgres.
  await promisify(execFile)(process.execPath, ['--liftoff-only', INITDB_SCRIPT, partial]);
  renameSync(partial, target);
}

/**
 * Makes the installation's template data dir when it is missing (`npm start` does this before the
 * service starts): the one initdb of an installation then runs outside the service, whose first
 * start on a new DATA_DIR only copies files. Answers whether it made one.
 */
export async function ensurePgliteTemplate(root = ROOT): Promise<boolean> {
  const template = pgliteTemplateDir(root);
  if (existsSync(template)) return false;
  mkdirSync(path.dirname(template), { recursive: true });
  await initdbInChild(template);
  return true;
}

/**
 * A new data dir at `target`: a copy of the installation's template when there is one (no initdb
 * in or beside the service), else initdb in a child process. The copy is made next to `target`
 * and renamed, like initdb's.
 */
export async function createPgliteDataDir(target: string, root = ROOT): Promise<'template' | 'initdb'> {
  let template: string | undefined;
  try {
    template = pgliteTemplateDir(root);
  } catch {
    template = undefined;
  }
  if (template !== undefined && existsSync(template)) {
    const partial = `${target}.copy`;
    rmSync(partial, { recursive: true, force: true });
    try {
      cpSync(template, partial, { recursive: true });
      renameSync(partial, target);
      return 'template';
    } catch {
      rmSync(partial, { recursive: true, force: true });
    }
  }
  await initdbInChild(target);
  return 'initdb';
}
