import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EcsPatches, ecsByteDocument } from './ecs-byte-document.ts';
import { type EcsRecord, shiftEcsRecord, shiftedEcsRecordTime } from './ecs-record.ts';
import { EcsTimeScratch } from './ecs-time.ts';
import { scanEcsJson } from './scan-ecs-json.ts';

const HOUR = 3_600_000;

function record(text: string): EcsRecord {
  const scan = scanEcsJson(text);
  if (!scan.ok) throw new Error(scan.error);
  return { entry: 'a.ndjson', line: 1, text, times: scan.spans };
}

/** The document as pass 2 makes it from bytes: `text` placed inside a larger chunk, as inflated. */
function fromBytes(text: string, shiftMs: number, scratch = new EcsTimeScratch()) {
  const buf = Buffer.from(`{"before":1}\n${text}\n{"after":2}`, 'latin1');
  const start = 13;
  return ecsByteDocument(buf, start, start + text.length, record(text).times, shiftMs, scratch);
}

/** What the string path gives, and what the byte document gives: text, bytes written, event time. */
function bothPaths(text: string, shiftMs: number) {
  const doc = fromBytes(text, shiftMs);
  const out = Buffer.alloc(doc.jsonBytes + 8, 0x2a);
  const end = doc.writeJson(out, 4);
  return {
    strings: {
      json: shiftEcsRecord(record(text), shiftMs),
      time: shiftedEcsRecordTime(record(text), shiftMs),
    },
    bytes: { json: doc.json, time: doc.time },
    written: out.toString('latin1', 4, end),
    around: out.toString('latin1', 0, 4) + out.toString('latin1', end),
    jsonBytes: doc.jsonBytes,
  };
}

describe('ecsByteDocument', () => {
  it('ships the shifted document from its bytes, every other byte as it was', () => {
    const text =
      '{"@timestamp":"2024-05-01T12:34:56.789123Z", "big": 12345678901234567890, "event":{"created":1714567890123,' +
      '"ingested":"2024-05-01T14:35:00+02:00"},"event.start":"2024-05-01 12:00:00,5","n":1.50}';
    const got = bothPaths(text, 2 * HOUR);
    expect(got.bytes.json).toBe(
      '{"@timestamp":"2024-05-01T14:34:56.789123Z", "big": 12345678901234567890, "event":{"created":1714575090123,' +
        '"ingested":"2024-05-01T16:35:00+02:00"},"event.start":"2024-05-01 14:00:00,5","n":1.50}',
    );
    expect(got.written).toBe(got.bytes.json);
    expect(got.around).toBe('********');
    expect(got.bytes.time).toBe(Date.UTC(2024, 4, 1, 14, 34, 56, 789));
  });

  it('writes a value whose length changes (an epoch number gaining a digit) around the rest', () => {
    const text = '{"@timestamp":99999,"event":{"created":"2024-05-01T12:00:00Z"},"m":"x"}';
    const got = bothPaths(text, 1);
    expect(got.bytes.json).toBe('{"@timestamp":100000,"event":{"created":"2024-05-01T12:00:00Z"},"m":"x"}');
    expect(got.written).toBe(got.bytes.json);
    expect(got.jsonBytes).toBe(text.length + 1);
  });

  it('leaves the document as it was without a readable @timestamp, and has no event time', () => {
    const text = '{"@timestamp":"yesterday","event":{"created":"2024-05-01T12:34:56Z"}}';
    const got = bothPaths(text, HOUR);
    expect(got.bytes).toEqual({ json: text, time: null });
    expect(got.written).toBe(text);
  });

  it('ships a document without time values unchanged', () => {
    const got = bothPaths('{"message":"no time here"}', HOUR);
    expect(got.bytes).toEqual({ json: '{"message":"no time here"}', time: null });
  });

  it('shifts a time value spelled with escapes as the string path does', () => {
    const got = bothPaths('{"@timestamp":"2024-05-01T12:34:56\\u002e5Z"}', 100);
    expect(got.bytes).toEqual(got.strings);
    expect(got.bytes.json).toBe('{"@timestamp":"2024-05-01T12:34:56.6Z"}');
  });

  const zones = fc.constantFrom('Z', '+02:00', '-0530', '+09', '', 'z');
  const iso = fc
    .tuple(
      fc.integer({ min: Date.UTC(1000, 0, 2), max: Date.UTC(9999, 11, 30) }),
      fc.integer({ min: 0, max: 9 }),
      zones,
      fc.constantFrom('T', ' ', 't'),
    )
    .map(([t, digits, zone, sep]) => {
      const at = new Date(t).toISOString();
      const fraction = digits === 0 ? '' : `.${`${at.slice(20, 23)}123456`.slice(0, digits)}`;
      return JSON.stringify(`${at.slice(0, 10)}${sep}${at.slice(11, 19)}${fraction}${zone}`);
    });
  const value = fc.oneof(
    iso,
    fc.integer({ min: 0, max: 4_102_444_800_000 }).map(String),
    fc.integer({ min: 10_000, max: 999_999_999_999_999 }).map((ms) => JSON.stringify(String(ms))),
    fc
      .integer({ min: Date.UTC(1000, 0, 2), max: Date.UTC(9999, 11, 30) })
      .map((ms) => JSON.stringify(new Date(ms).toISOString().slice(0, 10))),
    fc.constantFrom(
      '"soon"',
      'null',
      '"2024-13-01T00:00:00Z"',
      '1.5',
      '-3',
      '"2024-05-01T12:34:56\\u002e5Z"',
      '1e308',
      '5e-324',
      '-1.7976931348623157e+308',
    ),
  );
  const field = fc.constantFrom(
    '"@timestamp"',
    '"event.created"',
    '"event.start"',
    '"event.end"',
    '"event.ingested"',
    '"x"',
  );
  const member = fc.oneof(
    fc.tuple(field, value).map(([k, v]) => `${k}:${v}`),
    fc
      .array(fc.tuple(fc.constantFrom('"created"', '"start"', '"end"', '"ingested"', '"kind"'), value), {
        maxLength: 4,
      })
      .map((pairs) => `"event":{${pairs.map(([k, v]) => `${k}:${v}`).join(',')}}`),
    fc
      .string({ unit: fc.constantFrom('a', ' ', '"', '\\', 'z', '0') })
      .map((m) => `"message":${JSON.stringify(m)}`),
  );

  it('gives the text, bytes and event time of the string path for any ASCII document (property)', () => {
    const shift = fc.oneof(
      fc.integer({ min: -3_000 * 365 * 86_400_000, max: 3_000 * 365 * 86_400_000 }),
      fc.integer({ min: -100_000, max: 100_000 }),
    );
    fc.assert(
      fc.property(fc.array(member, { maxLength: 7 }), shift, (members, s) => {
        const text = `{${members.join(', ')}}`;
        const got = bothPaths(text, s);
        expect(got.bytes).toEqual(got.strings);
        expect(got.written).toBe(got.strings.json);
        expect(got.jsonBytes).toBe(got.strings.json.length);
        expect(got.around).toBe('********');
      }),
      { numRuns: 3_000 },
    );
  });

  it('documents of one batch share its patches and keep their values as the patches grow (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.array(member, { maxLength: 6 }), { minLength: 1, maxLength: 40 }), (docs) => {
        const scratch = new EcsTimeScratch();
        const patches = new EcsPatches(1);
        const texts = docs.map((members) => `{${members.join(',')}}`);
        const chunk = Buffer.from(texts.join('\n'), 'latin1');
        let start = 0;
        const made = texts.map((text) => {
          const doc = ecsByteDocument(
            chunk,
            start,
            start + text.length,
            record(text).times,
            HOUR,
            scratch,
            patches,
          );
          start += text.length + 1;
          return doc;
        });
        // Read only once the whole batch is made: the patches have grown by replacement meanwhile.
        made.forEach((doc, k) => {
          const want = shiftEcsRecord(record(texts[k]!), HOUR);
          const out = Buffer.alloc(doc.jsonBytes);
          expect(doc.writeJson(out, 0)).toBe(want.length);
          expect(out.toString('latin1')).toBe(want);
          expect(doc.json).toBe(want);
        });
      }),
      { numRuns: 500 },
    );
  });

  it('leaves room in the batch for values that grow (a small epoch number moved by an hour)', () => {
    const patches = new EcsPatches(1);
    const text = '{"@timestamp":1}';
    const chunk = Buffer.from(text.repeat(40), 'latin1');
    const docs = Array.from({ length: 40 }, (_, k) =>
      ecsByteDocument(
        chunk,
        k * text.length,
        (k + 1) * text.length,
        record(text).times,
        HOUR,
        new EcsTimeScratch(),
        patches,
      ),
    );
    for (const doc of docs) expect(doc.json).toBe('{"@timestamp":3600001}');
  });

  it('gives the same documents with one scratch for a whole pass as with a new one each (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.array(member, { maxLength: 5 }), { minLength: 2, maxLength: 20 }), (docs) => {
        const scratch = new EcsTimeScratch();
        for (const members of docs) {
          const text = `{${members.join(',')}}`;
          expect(fromBytes(text, 7 * HOUR, scratch).json).toBe(fromBytes(text, 7 * HOUR).json);
        }
      }),
      { numRuns: 300 },
    );
  });
});
