import { afterEach, describe, expect, it } from 'vitest';
import { EcsScanPool } from './ecs-scan-pool.ts';
import { scanEcsLines } from './scan-ecs-lines.ts';
import { UNCERTAIN_DOCUMENT } from './span-memo.ts';

/** ASCII lines in one buffer, as the line splitter gives them. */
function linesOf(lines: readonly string[]) {
  const buf = Buffer.from(`${lines.join('\n')}\n`, 'latin1');
  const starts = new Int32Array(lines.length);
  const ends = new Int32Array(lines.length);
  let at = 0;
  lines.forEach((line, k) => {
    starts[k] = at;
    ends[k] = at + line.length;
    at += line.length + 1;
  });
  return { buf, starts, ends };
}

const LINES = [
  '{"@timestamp":"2024-05-01T12:00:00.000Z","event":{"created":1714564800000},"n":1}',
  '{"n":2}',
  '{"@timestamp":"not a date"}',
  '{"a":1,}',
  '{"@timestamp":"2024-05-01T13:00:00+02:00","event.ingested":"2024-05-01T13:00:01Z"}',
  '{"@tim\\u0065stamp":1714564900000}',
];

describe('EcsScanPool', () => {
  const pools: EcsScanPool[] = [];
  afterEach(async () => {
    for (const pool of pools.splice(0)) await pool.close();
  });
  const newPool = (options?: ConstructorParameters<typeof EcsScanPool>[0]) => {
    const pool = new EcsScanPool(options);
    pools.push(pool);
    return pool;
  };

  it('scans lines on its worker exactly as this thread does', async () => {
    const pool = newPool();
    expect(pool.available()).toBe(false);
    expect(await pool.ready()).toBe(true);
    expect(pool.available()).toBe(true);
    const { buf, starts, ends } = linesOf(LINES);
    const here = scanEcsLines(buf, starts, ends, 1, LINES.length);
    const there = await pool.scan(buf, starts, ends, 1, LINES.length);
    expect(there.lines).toBe(LINES.length - 1);
    expect([...there.packed.subarray(0, there.length)]).toEqual([...here.packed.subarray(0, here.length)]);
    expect({ latest: there.latest, unreadable: there.unreadable }).toEqual({
      latest: here.latest,
      unreadable: here.unreadable,
    });
    // The invalid line and the one spelling a time field's key with an escape go to the text scanner.
    expect([...there.packed.subarray(0, there.length)].filter((v) => v === UNCERTAIN_DOCUMENT)).toHaveLength(
      2,
    );
    expect(there.latest).toBe(Date.UTC(2024, 4, 1, 11, 0, 0));
    expect(pool.linesScanned).toBe(LINES.length - 1);
  });

  it('answers the jobs of several callers each with its own lines', async () => {
    const pool = newPool();
    await pool.ready();
    const jobs = LINES.map((_, k) => linesOf(LINES.slice(k)));
    const answers = await Promise.all(
      jobs.map((j) => pool.scan(j.buf, j.starts, j.ends, 0, j.starts.length)),
    );
    answers.forEach((answer, k) => {
      const j = jobs[k]!;
      const here = scanEcsLines(j.buf, j.starts, j.ends, 0, j.starts.length);
      expect([...answer.packed.subarray(0, answer.length)]).toEqual([
        ...here.packed.subarray(0, here.length),
      ]);
    });
  });

  it('rejects jobs still out when it closes, and takes none after', async () => {
    const pool = newPool();
    await pool.ready();
    const many = linesOf(Array.from({ length: 20_000 }, () => LINES[0]!));
    const out = expect(pool.scan(many.buf, many.starts, many.ends, 0, many.starts.length)).rejects.toThrow(
      'closed',
    );
    await pool.close();
    await out;
    expect(pool.available()).toBe(false);
    expect(await pool.ready()).toBe(false);
    await expect(pool.scan(many.buf, many.starts, many.ends, 0, 1)).rejects.toThrow('not running');
  });

  it('is started ahead without waiting, and is available once its worker has loaded', async () => {
    const pool = newPool();
    pool.start();
    expect(pool.available()).toBe(false);
    expect(await pool.ready()).toBe(true);
    expect(pool.available()).toBe(true);
    const { buf, starts, ends } = linesOf(LINES);
    expect((await pool.scan(buf, starts, ends, 0, 1)).lines).toBe(1);
  });

  it('hands no job over while its worker is still loading, though the thread is running', async () => {
    const pool = newPool({
      workerUrl: new URL('../../../test/fixtures/ecs/scan-worker-slow-to-load.ts', import.meta.url),
    });
    pool.start();
    // The thread runs within about 70 ms; its entry says it is ready only after 500.
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(pool.available()).toBe(false);
    expect(await pool.ready()).toBe(true);
    const { buf, starts, ends } = linesOf(LINES);
    expect((await pool.scan(buf, starts, ends, 0, 2)).lines).toBe(2);
  });

  it('stops a worker that leaves a job unanswered, rejects the job and takes none after', async () => {
    const failures: string[] = [];
    const pool = newPool({
      workerUrl: new URL('../../../test/fixtures/ecs/scan-worker-that-hangs.ts', import.meta.url),
      answerTimeoutMs: 100,
      onFailure: (err) => failures.push(err.message),
    });
    expect(await pool.ready()).toBe(true);
    const { buf, starts, ends } = linesOf(LINES);
    await expect(pool.scan(buf, starts, ends, 0, 2)).rejects.toThrow('did not answer within 0.1 s');
    expect(failures).toEqual(['the ECS scan worker did not answer within 0.1 s']);
    expect(pool.available()).toBe(false);
    expect(await pool.ready()).toBe(false);
    await expect(pool.scan(buf, starts, ends, 0, 1)).rejects.toThrow('not running');
  });

  it('takes no job before its worker is online', async () => {
    const pool = newPool();
    const { buf, starts, ends } = linesOf(LINES);
    await expect(pool.scan(buf, starts, ends, 0, 1)).rejects.toThrow('not running');
  });
});
