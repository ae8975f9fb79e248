import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryEntry } from '../../../test/fixtures/archives/memory-entry.ts';
import { isAppError } from '../../errors.ts';
import { detectEntryFormat } from './detect-format.ts';
import { ecsRecordTime, parseEcsRecord, shiftEcsRecord } from './ecs-record.ts';
import { EcsTwoPassReader } from './read-ecs-records.ts';

const sample = [
  '{"@timestamp":"2024-05-01T12:00:00.123456Z","event":{"created":1714564800000,"kind":"event"},"message":"a \\"q\\" é"}',
  '{"@timestamp":1714564800000,"event.start":"2024-05-01 14:00:00,5+02:00","source":{"ip":"10.0.0.1"}}',
  '',
  '{"@timestamp":"bad","nested":{"@timestamp":"2024-05-01T00:00:00Z"},"list":[1,{"a":[]}]}',
].join('\r\n');

/** Reads like a rebase: both passes, times, shifting, parsing; returns normally or throws. */
async function consume(path: string, content: string | Buffer, chunk: number): Promise<void> {
  await detectEntryFormat(memoryEntry(path, content, chunk, 4096));
  const reader = new EcsTwoPassReader(64);
  const times: Array<number | null> = [];
  for await (const batch of reader.firstPass(memoryEntry(path, content, chunk, 4096))) {
    for (const r of batch) {
      times.push(ecsRecordTime(r));
      expect(typeof parseEcsRecord(r)).toBe('object');
    }
  }
  let k = 0;
  for await (const batch of reader.secondPass(memoryEntry(path, content, chunk, 4096))) {
    for (const r of batch) {
      expect(ecsRecordTime(r)).toBe(times[k++]);
      const shifted = shiftEcsRecord(r, 86_400_123);
      // A shifted document is still JSON, whatever it held.
      expect(typeof JSON.parse(shifted)).toBe('object');
    }
  }
  expect(k).toBe(times.length);
}

async function endsWell(path: string, content: string | Buffer, chunk: number): Promise<string> {
  try {
    await consume(path, content, chunk);
    return 'ok';
  } catch (err) {
    if (isAppError(err)) return err.code;
    throw err;
  }
}

const edits = fc.array(
  fc.tuple(
    fc.nat(),
    fc.constantFrom('delete', 'insert', 'replace'),
    fc.constantFrom(...'{}[]":,\\\n\r 0-9eE.tfn@\u0000\u00e9'.split('')),
  ),
  { maxLength: 5 },
);

function edit(text: string, changes: ReadonlyArray<readonly [number, string, string]>): string {
  let out = text;
  for (const [at, kind, ch] of changes) {
    const i = out.length === 0 ? 0 : at % out.length;
    out =
      kind === 'delete'
        ? out.slice(0, i) + out.slice(i + 1)
        : kind === 'insert'
          ? out.slice(0, i) + ch + out.slice(i)
          : out.slice(0, i) + ch + out.slice(i + 1);
  }
  return out;
}

// FUZZ_SCALE=4 runs four times as many cases (CI: reliability-notes §8 asks for 10,000 archives).
const SCALE = Math.max(1, Number(process.env.FUZZ_SCALE ?? 1));

describe('ECS reader fuzzing', () => {
  it('reads the sample as NDJSON and as a JSON array', async () => {
    expect(await endsWell('a.ndjson', sample, 5)).toBe('ok');
    expect(await endsWell('a.json', `[${sample.split('\r\n').filter(Boolean).join(',')}]`, 5)).toBe('ok');
  });

  it('ends mutated NDJSON and JSON in success or an AppError (2,000 cases)', async () => {
    const outcomes = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(
        edits,
        fc.constantFrom('a.ndjson', 'a.json'),
        fc.integer({ min: 1, max: 64 }),
        async (changes, path, chunk) => {
          const base = path === 'a.json' ? `[${sample.split('\r\n').filter(Boolean).join(',\n')}]` : sample;
          const outcome = await endsWell(path, edit(base, changes), chunk);
          outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        },
      ),
      { numRuns: 2000 * SCALE },
    );
    expect(outcomes.get('ok')).toBeGreaterThan(100);
    expect(outcomes.get('archive_invalid')).toBeGreaterThan(100);
  }, 120_000);

  it('ends random text and bytes in success or an AppError', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ unit: fc.constantFrom(...'{}[]":,\\\n 01eE.-tfn@a'.split('')), maxLength: 200 }),
          fc.uint8Array({ maxLength: 200 }).map(Buffer.from),
        ),
        fc.constantFrom('a.ndjson', 'a.json'),
        async (content, path) => {
          await endsWell(path, content, 3);
        },
      ),
      { numRuns: 1000 * SCALE },
    );
  });
});
