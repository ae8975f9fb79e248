import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { buildZip } from '../../../test/fixtures/archives/zip-builder.ts';
import { testTempDir } from '../../../test/helpers/test-app.ts';
import { isAppError } from '../../errors.ts';
import type { ArchiveInput } from './archive-input.ts';
import type { ArchiveLimits } from './archive-limits.ts';
import { selectForFormat } from './entry-path.ts';
import { openArchive } from './open-archive.ts';
import { INFLATE_CHUNK_BYTES } from './zip-archive.ts';

const dir = testTempDir('zip-file-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** The archive written to a file of its own, as a spilled download is. */
function onDisk(data: Buffer): ArchiveInput {
  const file = path.join(dir, `a${files++}.zip`);
  writeFileSync(file, data);
  return { path: file, size: data.length };
}

/** Every entry's path and bytes (hashed) over two passes, or the error's code and message. */
async function outcome(input: ArchiveInput, limits: Partial<ArchiveLimits>): Promise<unknown> {
  try {
    const archive = await openArchive(input, { kind: 'zip', select: selectForFormat('any'), limits });
    const passes: string[][] = [];
    for (let pass = 0; pass < 2; pass++) {
      const seen: string[] = [];
      for await (const entry of archive.entries()) {
        const hash = createHash('sha256');
        let bytes = 0;
        for await (const chunk of entry.bytes()) {
          hash.update(chunk);
          bytes += chunk.length;
        }
        seen.push(`${entry.path} ${bytes} ${hash.digest('hex')}`);
      }
      passes.push(seen);
    }
    return { files: archive.files, skipped: archive.skipped, passes };
  } catch (err) {
    if (!isAppError(err)) throw err;
    return { code: err.code, message: err.message, details: err.details };
  }
}

const text = (n: number, seed: number) =>
  Array.from(
    { length: n },
    (_, i) => `LEEF:1.0|V|P|1|E|src=10.0.${seed}.${i % 250}\tdevTime=${1e12 + i}`,
  ).join('\n');

const entry = fc.record({
  name: fc.constantFrom('a.log', 'b/c.txt', 'd.ndjson', 'e/', '__MACOSX/._a.log', '.hidden.log', 'f.LOG'),
  data: fc.oneof(
    fc.integer({ min: 0, max: 3000 }).map((n) => text(n, n % 7)),
    fc.string({ unit: 'binary', maxLength: 200 }),
  ),
  method: fc.constantFrom(0, 8),
});
const mutation = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('flip', 'truncate', 'zero'),
  bit: fc.nat(7),
});

function mutate(data: Buffer, mutations: readonly { at: number; kind: string; bit: number }[]): Buffer {
  let out = Buffer.from(data);
  for (const m of mutations) {
    const at = out.length === 0 ? 0 : m.at % out.length;
    if (m.kind === 'flip') out[at] = (out[at] ?? 0) ^ (1 << m.bit);
    else if (m.kind === 'zero' && at + 4 <= out.length) out.writeUInt32LE(0, at);
    else if (m.kind === 'truncate') out = out.subarray(0, at);
  }
  return out;
}

describe('a zip read from a file', () => {
  it('gives the entries, bytes and errors of the same zip read from memory, intact or damaged', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(entry, { selector: (e) => e.name.toLowerCase(), maxLength: 5 }),
        fc.array(mutation, { maxLength: 3 }),
        fc.constantFrom<Partial<ArchiveLimits>>({}, { retainBytes: 20_000 }, { maxEntryBytes: 50_000 }),
        async (entries, mutations, limits) => {
          const data = mutate(buildZip(entries), mutations);
          expect(await outcome(onDisk(data), limits)).toEqual(await outcome(data, limits));
        },
      ),
      { numRuns: 400 },
    );
  }, 120_000);

  it('inflates an entry of several chunks, stored or deflated, twice', async () => {
    const big = text(60_000, 1);
    expect(big.length).toBeGreaterThan(3 * INFLATE_CHUNK_BYTES);
    const data = buildZip([
      { name: 'big.log', data: big },
      { name: 'stored.log', data: big, method: 0 },
    ]);
    const fromFile = await outcome(onDisk(data), {});
    expect(fromFile).toEqual(await outcome(data, {}));
    expect(fromFile).toMatchObject({ files: 2 });
  });
});
