// `npm start` runs this first: with --if-stale it builds the console (web/dist) only when it is
// missing or older than a file of web/ (sources, index.html, config), so the README's two commands
// still give a working console on a fresh clone and a restart costs nothing.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const WEB = path.resolve(import.meta.dirname, '../web');
const INDEX = path.join(WEB, 'dist', 'index.html');

/** Newest modification time (ms) of the console's sources. */
export function newestSource(dir = WEB): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    // dist is the output; e2e holds the browser journeys, which are not part of the console.
    if (['dist', 'e2e', 'node_modules'].includes(entry.name) || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/** Whether web/dist needs building. */
export function consoleIsStale(): boolean {
  return !existsSync(INDEX) || statSync(INDEX).mtimeMs < newestSource();
}

if (import.meta.main) {
  if (process.argv.includes('--if-stale') && !consoleIsStale()) process.exit(0);
  process.stdout.write('Building the console (web/dist)…\n');
  const vite = path.resolve(import.meta.dirname, '../node_modules/.bin/vite');
  const result = spawnSync(
    vite,
    ['build', '--config', path.join(WEB, 'vite.config.ts'), '--logLevel', 'warn'],
    {
      stdio: 'inherit',
    },
  );
  process.exit(result.status ?? 1);
}
