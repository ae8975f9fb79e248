import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryEntry } from '../../../test/fixtures/archives/memory-entry.ts';
import { ecsRecordTime } from './ecs-record.ts';
import { EcsScanPool } from './ecs-scan-pool.ts';
import { EcsTimeScratch } from './ecs-time.ts';
import { EcsTwoPassReader } from './read-ecs-records.ts';

/** What a first pass over `content` ends with: documents, newest time, unreadable ones, the memo; or the error. */
async function outcome(
  content: string,
  chunk: number,
  pass: 'firstPass' | 'timesPass',
  options: {
    pool?: EcsScanPool;
    memoSlots?: number;
    path?: string;
    onBatch?: () => Promise<void>;
    maxLineLength?: number;
  } = {},
) {
  const path = options.path ?? 'a.ndjson';
  const entry = () => memoryEntry(path, content, chunk, options.maxLineLength);
  const reader = new EcsTwoPassReader(options.memoSlots, options.pool ?? null);
  const scratch = new EcsTimeScratch();
  let documents = 0;
  let latest: number | null = null;
  let unreadable = 0;
  const seen = (time: number | null) => {
    if (time === null) unreadable++;
    else if (latest === null || time > latest) latest = time;
  };
  try {
    if (pass === 'firstPass') {
      for await (const batch of reader.firstPass(entry())) {
        documents += batch.length;
        for (const record of batch) seen(ecsRecordTime(record, scratch));
      }
    } else {
      for await (const times of reader.timesPass(entry(), scratch)) {
        documents += times.documents;
        unreadable += times.unreadable;
        if (times.latest !== null) seen(times.latest);
        await options.onBatch?.();
      }
    }
  } catch (err) {
    const { code, message, details } = err as { code?: string; message: string; details?: unknown };
    return { code, message, details };
  }
  const spans = reader.spans(path);
  const memo: unknown[] = [];
  for (let k = 0; k < documents; k++) memo.push(spans.next());
  return { documents, latest, unreadable, memo };
}

const DOC = (i: number) =>
  `{"@timestamp":"2024-05-01T12:${String(i % 60).padStart(2, '0')}:00.000Z","event":{"created":${1714564800000 + i}},"n":${i}}`;

// Mostly documents, so that chunks of 8-16 KiB are ASCII and hold enough lines for the worker.
const line = fc.oneof(
  { weight: 300, arbitrary: fc.integer({ min: 0, max: 999 }).map(DOC) },
  { weight: 6, arbitrary: fc.constantFrom('', '  ', '{"@tim\\u0065stamp":"2030-01-01T00:00:00Z"}') },
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      '{"n":1}',
      '{"@timestamp":"soon"}',
      '{"event.start":"2024-05-01T00:00:00+01:00"}',
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom('{"message":"caf\u00e9","@timestamp":1}', '{"m":"\u00e9"}') },
  { weight: 1, arbitrary: fc.constantFrom('{"a":1,}', '[1]', '{"a":"\t"}', '{"@timestamp":tru}') },
);

describe('EcsTwoPassReader.timesPass', () => {
  const pool = new EcsScanPool();
  afterAll(() => pool.close());

  it('finds what firstPass finds — documents, newest time, memo, the same error — alone and beside its worker', async () => {
    expect(await pool.ready()).toBe(true);
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 2000, size: 'max' }),
        fc.constantFrom('\n', '\r\n'),
        fc.constantFrom(7, 300, 8192, 16_384, 1 << 16),
        async (lines, eol, chunk) => {
          const content = lines.join(eol);
          const expected = await outcome(content, chunk, 'firstPass');
          expect(await outcome(content, chunk, 'timesPass')).toEqual(expected);
          expect(await outcome(content, chunk, 'timesPass', { pool })).toEqual(expected);
        },
      ),
      { numRuns: 100 },
    );
    // Chunks of 64 lines or more went half to the worker.
    expect(pool.linesScanned).toBeGreaterThan(1000);
  });

  it('remembers as firstPass does past the memo budget, and reads .json entries the same way', async () => {
    const ndjson = Array.from({ length: 1000 }, (_, i) => DOC(i)).join('\n');
    // Five slots a document: the budget runs out at document 401, in the worker's half of the chunk.
    const before = pool.linesScanned;
    expect(await outcome(ndjson, 1 << 16, 'timesPass', { pool, memoSlots: 2003 })).toEqual(
      await outcome(ndjson, 1 << 16, 'firstPass', { memoSlots: 2003 }),
    );
    expect(pool.linesScanned).toBeGreaterThan(before);
    const json = `[${ndjson.split('\n').join(',\n')}]`;
    expect(await outcome(json, 4096, 'timesPass', { pool, path: 'a.json' })).toEqual(
      await outcome(json, 4096, 'firstPass', { path: 'a.json' }),
    );
  });

  it('reports a bad document before a failure to read on in the next chunk, as firstPass does', async () => {
    // Chunks of 8 KiB hold about 85 of these lines: line 160 is in the worker's half of the second.
    const lines = Array.from({ length: 300 }, (_, i) => DOC(i));
    lines[159] = '{"a":1,}';
    const content = `${lines.join('\n')}\n{"m":"${'x'.repeat(300)}"}\n`;
    const expected = await outcome(content, 8192, 'firstPass', { maxLineLength: 200 });
    expect(expected).toMatchObject({ code: 'archive_invalid', details: { line: 160 } });
    expect(await outcome(content, 8192, 'timesPass', { maxLineLength: 200 })).toEqual(expected);
    const before = pool.linesScanned;
    expect(await outcome(content, 8192, 'timesPass', { pool, maxLineLength: 200 })).toEqual(expected);
    expect(pool.linesScanned).toBeGreaterThan(before);
  });

  it('scans on its own thread when the worker crashes with a job out, and says so once', async () => {
    const failures: Error[] = [];
    const crashing = new EcsScanPool({
      workerUrl: new URL('../../../test/fixtures/ecs/scan-worker-that-exits.ts', import.meta.url),
      onFailure: (err) => failures.push(err),
    });
    try {
      expect(await crashing.ready()).toBe(true);
      const ndjson = Array.from({ length: 3000 }, (_, i) => DOC(i)).join('\n');
      expect(await outcome(ndjson, 8192, 'timesPass', { pool: crashing })).toEqual(
        await outcome(ndjson, 8192, 'firstPass'),
      );
      expect(crashing.linesScanned).toBeGreaterThan(0);
      expect(failures.map((err) => err.message)).toEqual(['the ECS scan worker exited with code 3']);
      expect(crashing.available()).toBe(false);
    } finally {
      await crashing.close();
    }
  });

  it('stops a worker that does not answer and scans on its own thread, with the same result', async () => {
    const failures: Error[] = [];
    const hung = new EcsScanPool({
      workerUrl: new URL('../../../test/fixtures/ecs/scan-worker-that-hangs.ts', import.meta.url),
      answerTimeoutMs: 200,
      onFailure: (err) => failures.push(err),
    });
    try {
      expect(await hung.ready()).toBe(true);
      const ndjson = Array.from({ length: 3000 }, (_, i) => DOC(i)).join('\n');
      expect(await outcome(ndjson, 8192, 'timesPass', { pool: hung })).toEqual(
        await outcome(ndjson, 8192, 'firstPass'),
      );
      expect(hung.linesScanned).toBe(0);
      expect(failures.map((err) => err.message)).toEqual(['the ECS scan worker did not answer within 0.2 s']);
      expect(hung.available()).toBe(false);
    } finally {
      await hung.close();
    }
  });

  it('scans on its own thread when the worker goes away mid-pass', async () => {
    const own = new EcsScanPool();
    expect(await own.ready()).toBe(true);
    const ndjson = Array.from({ length: 3000 }, (_, i) => DOC(i)).join('\n');
    const got = await outcome(ndjson, 8192, 'timesPass', {
      pool: own,
      // Closed after the first batch, with the next chunk's job already handed over.
      onBatch: () => own.close(),
    });
    expect(got).toEqual(await outcome(ndjson, 8192, 'firstPass'));
    expect(own.linesScanned).toBeGreaterThan(0);
    expect(own.linesScanned).toBeLessThan(3000 / 2);
  });
});
