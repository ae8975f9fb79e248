// A zip whose entries are runs of empty lines (the "newline bomb" of the hardening issue): pass 1
// of a LEEF shipment reads it to `400 no_events`. Prints CPU seconds per run and MiB/s by CPU.
// Environment: BENCH_BLANK_MIB (inflated MiB, default 200), BENCH_BLANK_RUNS (default 3),
// BENCH_BLANK_EOL (`lf` default, `crlf`, `mixed`: LF and CR LF alternating, `spaces`: space, tab,
// LF), BENCH_BLANK_LEAD (`1`: each entry starts with one LEEF line, so pass 1 reads it as LEEF
// bytes, not as text), BENCH_BLANK_ROOT (a copy of the tree to take the pipeline from, e.g.
// `git archive HEAD src | tar -x -C .tmp/old`: the old code, for alternated comparisons in one
// sitting). Limits: the defaults but for the ratio (deflate level 9 packs empty lines about 1030:1).
import path from 'node:path';
import { buildZip } from '../test/fixtures/archives/zip-builder.ts';

const mib = Number(process.env.BENCH_BLANK_MIB ?? 200);
const runs = Number(process.env.BENCH_BLANK_RUNS ?? 3);
const eol = process.env.BENCH_BLANK_EOL ?? 'lf';
const lead = process.env.BENCH_BLANK_LEAD === '1' ? 'LEEF:1.0|V|P|1|E|devTime=1700000000000\n' : '';
const root = path.resolve(process.env.BENCH_BLANK_ROOT ?? path.join(import.meta.dirname, '..'));

const { prepareShipment } = (await import(
  path.join(root, 'src/pipeline/shipment/prepare-shipment.ts')
)) as typeof import('../src/pipeline/shipment/prepare-shipment.ts');

const unit = { crlf: '\r\n', mixed: '\n\r\n', spaces: ' \t\n' }[eol] ?? '\n';
// Entries of at most 100 MiB (one entry's ratio stays under 1000:1 for deflate).
const entryBytes = 100 * 1024 * 1024;
const entries = [];
for (let left = mib * 1024 * 1024, i = 0; left > 0; left -= entryBytes, i++) {
  const size = Math.min(left, entryBytes);
  const data = Buffer.from(lead + unit.repeat(Math.ceil(size / unit.length)).slice(0, size), 'latin1');
  entries.push({ name: `blank-${i}.log`, data });
}
const zip = buildZip(entries);
process.stdout.write(
  `root ${root}\n${mib} MiB of ${eol} empty lines${lead ? ' after a LEEF line' : ''} in ${entries.length} entries, zip ${(zip.length / 1024 / 1024).toFixed(1)} MiB\n`,
);

for (let r = 0; r < runs; r++) {
  const before = process.cpuUsage();
  const wall = performance.now();
  let code = 'ok';
  try {
    await prepareShipment([{ data: zip, kind: 'zip', label: 'blank.zip' }], {
      format: 'leef',
      now: Date.now(),
      limits: { maxTotalBytes: 8 * 1024 ** 3, maxEntryBytes: 2 * 1024 ** 3, maxRatio: 5000 },
    });
  } catch (err) {
    code = (err as { code?: string }).code ?? String(err);
  }
  const cpu = process.cpuUsage(before);
  const seconds = (cpu.user + cpu.system) / 1e6;
  process.stdout.write(
    `run ${r + 1}: ${code}, CPU ${seconds.toFixed(2)} s, wall ${((performance.now() - wall) / 1000).toFixed(2)} s, ${(mib / seconds).toFixed(0)} MiB/s by CPU\n`,
  );
}
