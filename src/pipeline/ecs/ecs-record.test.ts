import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getEcsField } from './ecs-fields.ts';
import {
  type EcsRecord,
  ecsRecordTime,
  parseEcsRecord,
  shiftEcsRecord,
  shiftedEcsRecordTime,
} from './ecs-record.ts';
import { readEcsTimeValue } from './ecs-time.ts';
import { scanEcsJson } from './scan-ecs-json.ts';

function record(text: string): EcsRecord {
  const scan = scanEcsJson(text);
  if (!scan.ok) throw new Error(scan.error);
  return { entry: 'a.ndjson', line: 1, text, times: scan.spans };
}

const HOUR = 3_600_000;

describe('shiftEcsRecord', () => {
  it('rewrites only the time values, leaving every other byte as it was', () => {
    const text =
      '{"@timestamp":"2024-05-01T12:34:56.789123Z", "big": 12345678901234567890, "event":{"created":1714567890123,' +
      '"ingested":"2024-05-01T14:35:00+02:00","original":"x\\u00e9"},"event.start":"2024-05-01 12:00:00,5","n":1.50}';
    expect(shiftEcsRecord(record(text), 2 * HOUR)).toBe(
      '{"@timestamp":"2024-05-01T14:34:56.789123Z", "big": 12345678901234567890, "event":{"created":1714575090123,' +
        '"ingested":"2024-05-01T16:35:00+02:00","original":"x\\u00e9"},"event.start":"2024-05-01 14:00:00,5","n":1.50}',
    );
  });

  it('leaves a document without a readable @timestamp untouched, even its other times', () => {
    const text = '{"@timestamp":"yesterday","event":{"created":"2024-05-01T12:34:56Z"}}';
    expect(ecsRecordTime(record(text))).toBeNull();
    expect(shiftEcsRecord(record(text), HOUR)).toBe(text);
  });

  it('skips an unreadable secondary time and shifts the rest', () => {
    const text =
      '{"@timestamp":"2024-05-01T12:34:56Z","event":{"start":"soon","end":"2024-05-01T12:35:56Z"}}';
    expect(shiftEcsRecord(record(text), 1000)).toBe(
      '{"@timestamp":"2024-05-01T12:34:57Z","event":{"start":"soon","end":"2024-05-01T12:35:57Z"}}',
    );
  });

  it('reads and shifts a time written with escapes', () => {
    const text = '{"@timestamp":"2024-05-01T12:34:56\\u002e5Z"}';
    expect(ecsRecordTime(record(text))).toBe(Date.UTC(2024, 4, 1, 12, 34, 56, 500));
    expect(shiftEcsRecord(record(text), 100)).toBe('{"@timestamp":"2024-05-01T12:34:56.6Z"}');
  });

  it('uses the last @timestamp when the key repeats, as JSON.parse does', () => {
    expect(ecsRecordTime(record('{"@timestamp":1,"@timestamp":"2024-05-01T00:00:00Z"}'))).toBe(
      Date.UTC(2024, 4, 1),
    );
  });

  const zones = fc.constantFrom('Z', '+02:00', '-0530', '+09', '');
  const stamp = fc
    .tuple(
      fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2030, 0, 1) }),
      fc.integer({ min: 3, max: 9 }),
      zones,
    )
    .map(([t, digits, zone]) => {
      // Written in UTC then relabelled: a valid time in that zone, which is all the property needs.
      const iso = new Date(t).toISOString().slice(0, 19);
      return `${iso}.${String(t % 1000).padStart(3, '0')}${'7'.repeat(digits - 3)}${zone}`;
    });
  const timeValue = fc.oneof(stamp, fc.integer({ min: 946684800000, max: 1893456000000 }));
  const doc = fc.record(
    {
      '@timestamp': timeValue,
      event: fc.record(
        { created: timeValue, start: timeValue, kind: fc.constant('event') },
        { requiredKeys: ['kind'] },
      ),
      'event.end': timeValue,
      'event.ingested': timeValue,
      message: fc.string(),
    },
    { requiredKeys: ['@timestamp'] },
  );

  it('gives as event time the instant the written @timestamp denotes, moved or not (property)', () => {
    const value = fc.oneof(
      // ISO with 0-6 fraction digits and a zone, some years near the ends of 1000-9999.
      fc
        .tuple(
          fc.integer({ min: Date.UTC(1000, 0, 2), max: Date.UTC(9999, 11, 30) }),
          fc.integer({ min: 0, max: 6 }),
          fc.constantFrom('Z', '+02:00', '-05:30'),
        )
        .map(([ms, digits, zone]) => {
          const iso = new Date(ms).toISOString();
          const base = iso.slice(0, 19);
          const fraction = digits === 0 ? '' : `.${`${iso.slice(20, 23)}456`.slice(0, digits)}`;
          return JSON.stringify(`${base}${fraction}${zone}`);
        }),
      fc.integer({ min: 10_000, max: 4_102_444_800_000 }).map((ms) => JSON.stringify(String(ms))),
      fc.integer({ min: 0, max: 4_102_444_800_000 }).map(String),
    );
    const shift = fc.oneof(
      fc.integer({ min: -3_000 * 365 * 86_400_000, max: 3_000 * 365 * 86_400_000 }),
      fc.integer({ min: -100_000, max: 100_000 }),
    );
    fc.assert(
      fc.property(value, shift, (v, s) => {
        const r = record(`{"@timestamp":${v},"message":"m"}`);
        const written = record(shiftEcsRecord(r, s));
        expect(shiftedEcsRecordTime(r, s)).toBe(ecsRecordTime(written));
      }),
      { numRuns: 3_000 },
    );
  });

  it('moves every readable time by exactly the shift and keeps its notation (property)', () => {
    fc.assert(
      fc.property(doc, fc.integer({ min: -20 * 365 * 24 * HOUR, max: 20 * 365 * 24 * HOUR }), (d, shift) => {
        const text = JSON.stringify(d);
        const shifted = JSON.parse(shiftEcsRecord(record(text), shift)) as Record<string, unknown>;
        for (const path of ['@timestamp', 'event.created', 'event.start', 'event.end', 'event.ingested']) {
          const before = getEcsField(d, path);
          const after = getEcsField(shifted, path);
          if (before === undefined) {
            expect(after).toBeUndefined();
            continue;
          }
          expect(typeof after).toBe(typeof before);
          expect(readEcsTimeValue(after)).toBe((readEcsTimeValue(before) as number) + shift);
          if (typeof before === 'string') {
            // Same notation: same shape, and the sub-millisecond digits and zone are untouched.
            expect((after as string).replace(/\d/g, '0')).toBe(before.replace(/\d/g, '0'));
            expect((after as string).slice(23)).toBe(before.slice(23));
          }
        }
        expect(shifted.message).toBe(d.message);
      }),
      { numRuns: 2000 },
    );
  });

  it('lands the newest @timestamp at now + 2 h when shift = now + 2 h - newest (property)', () => {
    fc.assert(
      fc.property(
        fc.array(doc, { minLength: 1, maxLength: 20 }),
        fc.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2027, 0, 1) }),
        (docs, now) => {
          const records = docs.map((d) => record(JSON.stringify(d)));
          const newest = Math.max(...records.map((r) => ecsRecordTime(r) as number));
          const shift = now + 2 * HOUR - newest;
          const times = records.map((r) => ecsRecordTime(record(shiftEcsRecord(r, shift))) as number);
          expect(Math.max(...times)).toBe(now + 2 * HOUR);
          // Order and gaps are kept.
          records.forEach((r, k) => {
            expect(times[k]).toBe((ecsRecordTime(r) as number) + shift);
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('changes nothing when rebased again for the same moment (property)', () => {
    fc.assert(
      fc.property(
        fc.array(doc, { minLength: 1, maxLength: 10 }),
        fc.integer({ min: -1e11, max: 1e11 }),
        (docs, offset) => {
          const now = Date.UTC(2026, 0, 1) + offset;
          const rebase = (texts: string[]) => {
            const records = texts.map(record);
            const newest = Math.max(...records.map((r) => ecsRecordTime(r) as number));
            const shift = now + 2 * HOUR - newest;
            return { shift, texts: records.map((r) => shiftEcsRecord(r, shift)) };
          };
          const once = rebase(docs.map((d) => JSON.stringify(d)));
          const twice = rebase(once.texts);
          expect(twice.shift).toBe(0);
          expect(twice.texts).toEqual(once.texts);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('parses to the same object as the original apart from the time fields', () => {
    const text = '{"@timestamp":"2024-05-01T12:34:56Z","a":{"b":[1,2,{"c":null}]}}';
    const after = parseEcsRecord({ ...record(text), text: shiftEcsRecord(record(text), 1000) });
    expect(after).toEqual({ '@timestamp': '2024-05-01T12:34:57Z', a: { b: [1, 2, { c: null }] } });
  });
});
