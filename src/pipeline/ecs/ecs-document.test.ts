import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readEcsTime, shiftEcsDocument } from './ecs-document.ts';
import { flattenEcs, getEcsField } from './ecs-fields.ts';
import { readEcsTimeValue } from './ecs-time.ts';

describe('readEcsTime', () => {
  it('reads @timestamp only', () => {
    expect(readEcsTime({ '@timestamp': '2024-05-01T00:00:00Z' })).toBe(Date.UTC(2024, 4, 1));
    expect(readEcsTime({ event: { created: '2024-05-01T00:00:00Z' } })).toBeNull();
  });
});

describe('shiftEcsDocument', () => {
  it('moves @timestamp and the event times, nested and dotted, in place', () => {
    const doc = {
      '@timestamp': '2024-05-01T12:00:00.000Z',
      event: { created: 1714564800000, start: '2024-05-01T14:00:00+02:00', kind: 'event', end: 'later' },
      'event.ingested': '2024-05-01 12:00:01,5',
      'event.end': '2024-05-01T12:00:02Z',
      process: { start: '2024-05-01T12:00:00Z' },
    };
    expect(shiftEcsDocument(doc, 60_000)).toBe(doc);
    expect(doc).toEqual({
      '@timestamp': '2024-05-01T12:01:00.000Z',
      event: { created: 1714564860000, start: '2024-05-01T14:01:00+02:00', kind: 'event', end: 'later' },
      'event.ingested': '2024-05-01 12:01:01,5',
      'event.end': '2024-05-01T12:01:02Z',
      process: { start: '2024-05-01T12:00:00Z' },
    });
  });

  it('leaves a document without a readable @timestamp unchanged', () => {
    const doc = { '@timestamp': 'soon', event: { created: 1714564800000 } };
    shiftEcsDocument(doc, 1000);
    expect(doc).toEqual({ '@timestamp': 'soon', event: { created: 1714564800000 } });
  });

  it('moves every readable time by the shift (property)', () => {
    const time = fc.oneof(
      fc.integer({ min: 946684800000, max: 1893456000000 }),
      fc.integer({ min: 946684800000, max: 1893456000000 }).map((t) => new Date(t).toISOString()),
    );
    fc.assert(
      fc.property(
        fc.record({
          '@timestamp': time,
          event: fc.record({ created: time, end: time }),
          'event.start': time,
        }),
        fc.integer({ min: -1e11, max: 1e11 }),
        (doc, shift) => {
          const before = structuredClone(doc);
          shiftEcsDocument(doc, shift);
          for (const path of ['@timestamp', 'event.created', 'event.end', 'event.start']) {
            const b = getEcsField(before, path);
            const a = getEcsField(doc, path);
            expect(typeof a).toBe(typeof b);
            expect(readEcsTimeValue(a)).toBe((readEcsTimeValue(b) as number) + shift);
          }
        },
      ),
    );
  });
});

describe('getEcsField and flattenEcs', () => {
  const doc = { source: { ip: '10.0.0.1', 'nat.ip': '192.0.2.1' }, 'destination.port': 443, 'a.b': { c: 1 } };

  it('finds a field however it is spelled', () => {
    expect(getEcsField(doc, 'source.ip')).toBe('10.0.0.1');
    expect(getEcsField(doc, 'source.nat.ip')).toBe('192.0.2.1');
    expect(getEcsField(doc, 'destination.port')).toBe(443);
    expect(getEcsField(doc, 'a.b.c')).toBe(1);
    expect(getEcsField(doc, 'source.port')).toBeUndefined();
  });

  it('lists leaf values by dotted path', () => {
    expect([...flattenEcs(doc)]).toEqual([
      ['source.ip', '10.0.0.1'],
      ['source.nat.ip', '192.0.2.1'],
      ['destination.port', 443],
      ['a.b.c', 1],
    ]);
  });
});
