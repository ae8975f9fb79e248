import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leefLine } from '../../../test/fixtures/leef/leef-arbitraries.ts';
import { leefToEcsReference } from '../../../test/reference/leef-to-ecs-reference.ts';
import { parseLeef } from '../leef/parse-leef.ts';
import { LEEF_ECS_MAPPING } from './leef-ecs-mapping.ts';
import type { LeefRecord } from './leef-record.ts';
import { leefToEcs } from './leef-to-ecs.ts';

const record = (attributes: Array<[string, string]>, version = '2.0'): LeefRecord => ({
  version,
  vendor: 'Acme',
  product: 'Firewall',
  productVersion: '7.1',
  eventId: 'deny',
  delimiter: version === '1.0' ? '\t' : '^',
  attributes,
});

describe('leefToEcs', () => {
  it('maps header, time, addresses, ports, user, protocol, severity and category', () => {
    const raw = 'LEEF:2.0|Acme|Firewall|7.1|deny|^|src=10.0.0.1^dst=192.0.2.7^...';
    const doc = leefToEcs(
      record([
        ['devTime', '1714564800123'],
        ['src', '10.0.0.1'],
        ['dst', '192.0.2.7'],
        ['srcPort', '51515'],
        ['dstPort', '443'],
        ['usrName', 'alice'],
        ['proto', 'TCP'],
        ['sev', '7'],
        ['cat', 'firewall-deny'],
        ['srcMAC', '00:1a:2b:3c:4d:5e'],
        ['labIndex', 'lab-3'],
        ['vendorThing', 'x=y'],
      ]),
      { eventTimeMs: 1714564800123, rawLine: raw },
    );
    expect(doc).toEqual({
      '@timestamp': '2024-05-01T12:00:00.123Z',
      observer: { vendor: 'Acme', product: 'Firewall', version: '7.1' },
      event: { code: 'deny', severity: 7, action: 'firewall-deny', original: raw },
      source: { ip: '10.0.0.1', port: 51515, mac: '00-1A-2B-3C-4D-5E' },
      destination: { ip: '192.0.2.7', port: 443 },
      user: { name: 'alice' },
      network: { transport: 'tcp', iana_number: '6' },
      labels: { labIndex: 'lab-3' },
      related: { ip: ['10.0.0.1', '192.0.2.7'] },
      leef: {
        version: '2.0',
        delimiter: '^',
        devTime: '1714564800123',
        verbatim: { proto: 'TCP', srcMAC: '00:1a:2b:3c:4d:5e' },
        attributes: { vendorThing: 'x=y' },
      },
    });
  });

  it('keeps values that do not fit their ECS type as custom attributes', () => {
    const doc = leefToEcs(
      record([
        ['src', 'not-an-ip'],
        ['srcPort', '70000'],
        ['sev', 'high'],
        ['srcMAC', '00:1a'],
        ['proto', '!!'],
      ]),
      { eventTimeMs: null },
    );
    expect(doc.source).toBeUndefined();
    expect(doc['@timestamp']).toBeUndefined();
    expect(doc.leef).toMatchObject({
      attributes: { src: 'not-an-ip', srcPort: '70000', sev: 'high', srcMAC: '00:1a', proto: '!!' },
    });
  });

  it('uses a secondary key only when the primary one is absent, and records which', () => {
    const nat = leefToEcs(record([['srcPreNAT', '10.0.0.9']]), { eventTimeMs: null });
    expect(nat.source).toEqual({ ip: '10.0.0.9' });
    expect(nat.leef).toMatchObject({ aliases: { srcPreNAT: 'source.ip' } });
    const both = leefToEcs(
      record([
        ['srcPreNAT', '10.0.0.9'],
        ['src', '10.0.0.1'],
        ['act', 'block'],
        ['action', 'drop'],
      ]),
      { eventTimeMs: null },
    );
    expect(both.source).toEqual({ ip: '10.0.0.1' });
    expect(both.event).toMatchObject({ action: 'block' });
    expect(both.leef).toMatchObject({
      aliases: { act: 'event.action' },
      attributes: { srcPreNAT: '10.0.0.9', action: 'drop' },
    });
  });

  it('maps a numeric protocol to its keyword and the lab index option over the attribute', () => {
    const doc = leefToEcs(
      record([
        ['proto', '17'],
        ['labIndex', 'a'],
      ]),
      { eventTimeMs: null, index: 'lab-9' },
    );
    expect(doc.network).toEqual({ transport: 'udp', iana_number: '17' });
    expect(doc.labels).toEqual({ labIndex: 'lab-9' });
  });

  it('keeps devTime and devTimeFormat raw and lets the last repeated key win', () => {
    const doc = leefToEcs(
      record(
        [
          ['devTime', 'May 01 2024 12:00:00'],
          ['devTimeFormat', 'MMM dd yyyy HH:mm:ss'],
          ['x', '1'],
          ['x', '2'],
        ],
        '1.0',
      ),
      { eventTimeMs: Date.UTC(2024, 4, 1, 12) },
    );
    expect(doc['@timestamp']).toBe('2024-05-01T12:00:00.000Z');
    expect(doc.leef).toEqual({
      version: '1.0',
      delimiter: '\t',
      devTime: 'May 01 2024 12:00:00',
      devTimeFormat: 'MMM dd yyyy HH:mm:ss',
      attributes: { x: '2' },
    });
  });
});

describe('leefToEcs against its first implementation', () => {
  // Keys of every kind the converter treats apart: mapped, secondary (alias) keys and their
  // primaries, devTime, the lab index, keys no row has, and names that are also Object.prototype's.
  const keys = fc.constantFrom(
    ...LEEF_ECS_MAPPING.map((row) => row.leef),
    'devTime',
    'devTimeFormat',
    'labIndex',
    'custom1',
    'x',
    '',
    '__proto__',
    'constructor',
    'toString',
  );
  const values = fc.oneof(
    fc.constantFrom('10.0.0.1', '10.0.0.1', '192.168.1.300', '::1', 'fe80::1%eth0', '01.2.3.4', '0.0.0.0'),
    fc.constantFrom('443', '65536', '007', '-3', 'TCP', 'udp', '6', '300', 'icmp', 'x y'),
    fc.constantFrom('00:1A:2b:3C:4d:5E', '00-1a-2b-3c-4d-5e', 'allow', '', ' ', 'a,b'),
    fc.string({ maxLength: 12 }),
  );
  const records = fc.record({
    version: fc.constantFrom('1.0', '2.0'),
    vendor: fc.constantFrom('', 'Acme'),
    product: fc.constantFrom('', 'FW'),
    productVersion: fc.constantFrom('', '7.1'),
    eventId: fc.constantFrom('', 'deny'),
    delimiter: fc.constantFrom('\t', '^', '|'),
    attributes: fc.array(fc.tuple(keys, values), { maxLength: 14 }),
  });
  const options = fc.record(
    {
      eventTimeMs: fc.oneof(fc.constant(null), fc.integer({ min: -1e15, max: 1e15 }), fc.constant(9e15)),
      rawLine: fc.string({ maxLength: 20 }),
      index: fc.oneof(fc.string({ maxLength: 8 }), fc.integer()),
    },
    { requiredKeys: ['eventTimeMs'] },
  );

  it('gives the same document, key order included', () => {
    fc.assert(
      fc.property(records, options, (r, o) => {
        const got = leefToEcs(r, o);
        const want = leefToEcsReference(r, o);
        expect(JSON.stringify(got)).toBe(JSON.stringify(want));
        expect(got).toEqual(want);
      }),
      { numRuns: 3000 },
    );
  });

  it('gives the same document for generated LEEF lines', () => {
    fc.assert(
      fc.property(leefLine, (generated) => {
        const parsed = parseLeef(generated.line);
        if (parsed === null) return;
        const o = { eventTimeMs: 1_700_000_000_000, rawLine: generated.line, index: 'lab' };
        expect(JSON.stringify(leefToEcs(parsed, o))).toBe(JSON.stringify(leefToEcsReference(parsed, o)));
      }),
      { numRuns: 500 },
    );
  });
});
