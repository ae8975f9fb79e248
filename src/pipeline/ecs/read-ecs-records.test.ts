import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryEntry } from '../../../test/fixtures/archives/memory-entry.ts';
import type { OutboundEvent } from '../shipment/outbound-event.ts';
import { ecsRecordTime, shiftEcsRecord, shiftedEcsRecordTime } from './ecs-record.ts';
import { EcsTimeScratch } from './ecs-time.ts';
import { EcsTwoPassReader, readEcsDocuments, readEcsRecords, shiftedEcsEvents } from './read-ecs-records.ts';

async function texts(entry: ReturnType<typeof memoryEntry>): Promise<Array<[number, string]>> {
  const out: Array<[number, string]> = [];
  for await (const r of readEcsRecords(entry)) out.push([r.line, r.text]);
  return out;
}

describe('readEcsRecords', () => {
  it('reads one object per NDJSON line, ignoring blank lines, with CRLF and no final newline', async () => {
    const entry = memoryEntry('logs/a.ndjson', '{"a":1}\r\n\r\n  \n{"b":"é"}\r\n{"c":3}', 3);
    expect(await texts(entry)).toEqual([
      [1, '{"a":1}'],
      [4, '{"b":"é"}'],
      [5, '{"c":3}'],
    ]);
  });

  it('names the entry and line of a bad NDJSON line', async () => {
    const entry = memoryEntry('logs/a.ndjson', '{"a":1}\n\n{"b":2,}\n');
    await expect(texts(entry)).rejects.toMatchObject({
      code: 'archive_invalid',
      details: { entry: 'logs/a.ndjson', line: 3 },
      message:
        'line 3 of archive entry "logs/a.ndjson" is not a JSON object: expected a property name at character 8',
    });
  });

  it('refuses an NDJSON line holding an array or a scalar', async () => {
    await expect(texts(memoryEntry('a.ndjson', '[{"a":1}]\n'))).rejects.toMatchObject({
      details: { line: 1 },
    });
    await expect(texts(memoryEntry('a.ndjson', '{"a":1}\n42\n'))).rejects.toMatchObject({
      details: { line: 2 },
    });
  });

  it('reads a .json array and a .json object', async () => {
    expect(await texts(memoryEntry('a.JSON', '[\n {"a": 1},\n {"b": 2}\n]'))).toEqual([
      [2, '{"a":1}'],
      [3, '{"b":2}'],
    ]);
    expect(await texts(memoryEntry('b.json', '{\n "@timestamp": "2024-05-01T00:00:00Z"\n}\n'))).toEqual([
      [1, '{"@timestamp":"2024-05-01T00:00:00Z"}'],
    ]);
  });

  it('names the entry and line of a bad document inside a .json array', async () => {
    await expect(texts(memoryEntry('a.json', '[\n{"a":1},\n{"b":tru}\n]'))).rejects.toMatchObject({
      code: 'archive_invalid',
      details: { entry: 'a.json', line: 3 },
    });
  });

  it('gives objects through readEcsDocuments', async () => {
    const docs: unknown[] = [];
    for await (const d of readEcsDocuments(memoryEntry('a.ndjson', '{"a":{"b":[1]}}\n'))) docs.push(d);
    expect(docs).toEqual([{ a: { b: [1] } }]);
  });
});

describe('EcsTwoPassReader', () => {
  const ndjson = Array.from(
    { length: 50 },
    (_, i) =>
      `{"@timestamp":"2024-05-01T12:00:${String(i).padStart(2, '0')}.000Z","event":{"created":${1714564800000 + i}},"n":${i}}`,
  ).join('\n');

  async function rebase(reader: EcsTwoPassReader, text: string, path = 'a.ndjson'): Promise<string[]> {
    let newest = Number.NEGATIVE_INFINITY;
    for await (const batch of reader.firstPass(memoryEntry(path, text, 64))) {
      for (const r of batch) newest = Math.max(newest, ecsRecordTime(r) ?? newest);
    }
    const out: string[] = [];
    for await (const batch of reader.secondPass(memoryEntry(path, text, 64))) {
      for (const r of batch) out.push(shiftEcsRecord(r, Date.UTC(2030, 0, 1) - newest));
    }
    return out;
  }

  it('shifts in the second pass exactly as a validating read would', async () => {
    const expected: string[] = [];
    for await (const r of readEcsRecords(memoryEntry('a.ndjson', ndjson))) {
      expected.push(shiftEcsRecord(r, Date.UTC(2030, 0, 1) - Date.UTC(2024, 4, 1, 12, 0, 49)));
    }
    expect(await rebase(new EcsTwoPassReader(), ndjson)).toEqual(expected);
    expect(expected[49]).toBe(
      '{"@timestamp":"2030-01-01T00:00:00.000Z","event":{"created":1893455951049},"n":49}',
    );
  });

  it('locates times again for documents beyond its memory budget, with the same result', async () => {
    expect(await rebase(new EcsTwoPassReader(20), ndjson)).toEqual(
      await rebase(new EcsTwoPassReader(), ndjson),
    );
  });

  /** What reading `content` ends with: the records' texts and spans, or the error it threw. */
  async function outcome(read: () => AsyncIterable<Array<{ text: string; times: readonly unknown[] }>>) {
    const records: Array<[string, unknown]> = [];
    try {
      for await (const batch of read()) for (const r of batch) records.push([r.text, r.times]);
      return { records };
    } catch (err) {
      const { code, message, details } = err as { code?: string; message: string; details?: unknown };
      return { code, message, details };
    }
  }

  it('validates a first pass as readEcsRecords does: same records, same error and line, however cut', async () => {
    const line = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...ndjson.split('\n').slice(0, 5)) },
      fc.constantFrom('', '  ', '\r', '{"message":"caf\u00e9","@timestamp":1}', '{"m":"\u00e9"}'),
      fc.constantFrom('{"a":1,}', '[1]', '{"a":"\t"}', '{"message":"é",}', '{"@timestamp":tru}'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 30 }),
        fc.constantFrom('\n', '\r\n'),
        fc.integer({ min: 1, max: 300 }),
        async (lines, eol, chunk) => {
          const content = lines.join(eol);
          const byRecords = await outcome(async function* () {
            for await (const r of readEcsRecords(memoryEntry('a.ndjson', content, chunk))) yield [r];
          });
          const reader = new EcsTwoPassReader();
          expect(await outcome(() => reader.firstPass(memoryEntry('a.ndjson', content, chunk)))).toEqual(
            byRecords,
          );
        },
      ),
      { numRuns: 400 },
    );
  });

  it('refuses a second pass over an entry whose first pass did not complete', async () => {
    const reader = new EcsTwoPassReader();
    for await (const _ of reader.firstPass(memoryEntry('a.ndjson', ndjson))) break;
    const second = reader.secondPass(memoryEntry('a.ndjson', ndjson));
    await expect(second.next()).rejects.toThrow('before a complete first pass');
  });

  /** The events shiftedEcsEvents gives after a first pass, as text, time and how they came. */
  async function shipped(reader: EcsTwoPassReader, content: string | Buffer, path: string, chunk: number) {
    for await (const _ of reader.firstPass(memoryEntry(path, content, chunk))) {
      // pass 1 only validates and remembers here
    }
    const out: Array<{ json: string | undefined; time: number | null; bytes: boolean }> = [];
    const held: OutboundEvent[] = [];
    const scratch = new EcsTimeScratch();
    for await (const batch of shiftedEcsEvents(reader, memoryEntry(path, content, chunk), HOURS_5, scratch)) {
      for (const e of batch) {
        held.push(e);
        out.push({ json: e.json, time: e.time, bytes: e.writeJson !== undefined });
      }
    }
    // Documents held as bytes still write their text once the pass is over (no chunk was reused).
    held.forEach((e, k) => {
      if (e.writeJson === undefined) return;
      const buf = Buffer.alloc(e.jsonBytes as number);
      expect(e.writeJson(buf, 0)).toBe(buf.length);
      expect(buf.toString('latin1')).toBe(out[k]?.json);
    });
    return out;
  }
  const HOURS_5 = 5 * 3_600_000;

  it('ships each document as the record path shifts it: ASCII lines from their bytes, others as text', async () => {
    const content = `\uFEFF${ndjson.split('\n').slice(0, 3).join('\r\n')}\n\n  \n{"@timestamp":"2024-05-01T12:00:00Z","m":"café"}\n${ndjson.split('\n').slice(3).join('\n')}`;
    const expected: Array<{ json: string; time: number | null }> = [];
    for await (const r of readEcsRecords(memoryEntry('a.ndjson', content))) {
      expected.push({ json: shiftEcsRecord(r, HOURS_5), time: shiftedEcsRecordTime(r, HOURS_5) });
    }
    for (const chunk of [7, 64, 1 << 16]) {
      const got = await shipped(new EcsTwoPassReader(), content, 'a.ndjson', chunk);
      expect(got.map(({ json, time }) => ({ json, time }))).toEqual(expected);
      // The line with "é" is not ASCII: it goes as text (the byte order mark is dropped before).
      expect(got.filter((e) => !e.bytes).map((e) => e.json)).toEqual([expected[3]?.json]);
    }
  });

  it('ships documents beyond the memory budget and .json documents the same way', async () => {
    const whole = await shipped(new EcsTwoPassReader(), ndjson, 'a.ndjson', 64);
    const beyond = await shipped(new EcsTwoPassReader(20), ndjson, 'a.ndjson', 64);
    expect(beyond.map(({ json, time }) => ({ json, time }))).toEqual(
      whole.map(({ json, time }) => ({ json, time })),
    );
    // 20 slots hold the spans of the first four documents (1 + 2 × 2 each); the rest are located again.
    expect(beyond.filter((e) => e.bytes).length).toBe(4);
    const asJson = await shipped(new EcsTwoPassReader(), `[${ndjson.split('\n').join(',\n')}]`, 'a.json', 64);
    expect(asJson.map(({ json, time }) => ({ json, time }))).toEqual(
      whole.map(({ json, time }) => ({ json, time })),
    );
    expect(whole[49]).toEqual({
      json: '{"@timestamp":"2024-05-01T17:00:49.000Z","event":{"created":1714582800049},"n":49}',
      time: Date.UTC(2024, 4, 1, 17, 0, 49),
      bytes: true,
    });
  });
});
