// Runs every benchmark script (bench/*.bench.ts) one after another, each in its own process so
// peak RSS figures are per benchmark, with the service's V8 flags (src/node-flags.ts) so the
// figures are the service's. `npm run bench -- leef syslog` runs only matching ones.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { missingServiceFlags } from '../src/node-flags.ts';

const dir = path.dirname(new URL(import.meta.url).pathname);
const filters = process.argv.slice(2);
const scripts = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();

if (scripts.length === 0) {
  process.stderr.write(`No benchmark matches ${filters.join(', ')}\n`);
  process.exit(2);
}
// Benchmarks keep their scratch files under .tmp/ (ignored by git); a fresh clone has none yet.
mkdirSync(path.resolve('.tmp'), { recursive: true });
let failed = 0;
for (const script of scripts) {
  process.stdout.write(`\n### ${script}\n`);
  const res = spawnSync(
    process.execPath,
    [
      '--expose-gc',
      ...missingServiceFlags(process.execArgv, process.env.NODE_OPTIONS ?? ''),
      path.join(dir, script),
    ],
    {
      stdio: 'inherit',
    },
  );
  if (res.status !== 0) {
    failed++;
    process.stdout.write(`!!! ${script} exited with ${res.status ?? res.signal}\n`);
  }
}
process.exit(failed === 0 ? 0 : 1);
