import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getEcsField } from '../ecs/ecs-fields.ts';
import { ecsToLeef, type LeefDefaults } from './ecs-to-leef.ts';
import { LEEF_ECS_MAPPING, PREDEFINED_LEEF_KEYS } from './leef-ecs-mapping.ts';
import type { LeefRecord } from './leef-record.ts';
import { leefToEcs } from './leef-to-ecs.ts';

const defaults: LeefDefaults = { vendor: 'Socdrill', product: 'Lab', productVersion: '1', eventId: 'event' };

/** A small LEEF reader for the tests (the product's parser lives elsewhere). */
function parseLeef(line: string): LeefRecord {
  const fields: string[] = [];
  let rest = line;
  const count = line.startsWith('LEEF:2.0|') ? 6 : 5;
  for (let i = 0; i < count; i++) {
    const bar = rest.indexOf('|');
    fields.push(rest.slice(0, bar));
    rest = rest.slice(bar + 1);
  }
  const version = fields[0]!.slice(5);
  const delimiter = version === '2.0' ? fields[5]! : '\t';
  const attributes = (rest === '' ? [] : rest.split(delimiter)).map((pair): [string, string] => {
    const eq = pair.indexOf('=');
    return [pair.slice(0, eq), pair.slice(eq + 1)];
  });
  return {
    version,
    vendor: fields[1]!,
    product: fields[2]!,
    productVersion: fields[3]!,
    eventId: fields[4]!,
    delimiter,
    attributes,
  };
}

describe('ecsToLeef', () => {
  it('writes a LEEF 2.0 line with ^, devTime in epoch ms and mapped fields', () => {
    const line = ecsToLeef(
      {
        '@timestamp': '2024-05-01T12:00:00.123Z',
        observer: { vendor: 'Acme', product: 'FW', version: '7' },
        event: { code: '4625', severity: 12, action: 'logon-failed', original: 'ignored' },
        source: { ip: '10.0.0.1', port: 51515, mac: '00-1A-2B-3C-4D-5E' },
        'destination.ip': '192.0.2.7',
        user: { name: 'alice', roles: ['admin', 'ops'] },
        network: { transport: 'tcp', iana_number: '6' },
        related: { ip: ['10.0.0.1'] },
        ecs: { version: '8.11' },
        labels: { labIndex: 'lab-1', team: 'blue' },
        host: { os: { name: 'Linux' } },
        message: 'bad^password\r\nagain',
      },
      defaults,
    );
    expect(line).toBe(
      'LEEF:2.0|Acme|FW|7|4625|^|devTime=1714564800123^src=10.0.0.1^dst=192.0.2.7^srcPort=51515^usrName=alice' +
        '^role=admin,ops^srcMAC=00:1A:2B:3C:4D:5E^proto=tcp^sev=10^cat=logon-failed^msg=bad password  again' +
        '^labIndex=lab-1^labels.team=blue^host.os.name=Linux',
    );
  });

  it('writes LEEF 1.0 with TAB, falls back to defaults and keeps | out of the header', () => {
    const line = ecsToLeef({ event: { action: 'a|b' }, note: 'tab\there' }, { ...defaults, version: '1.0' });
    expect(line).toBe('LEEF:1.0|Socdrill|Lab|1|a b|cat=a|b\tnote=tab here');
  });

  it('never writes a predefined or repeated key for a custom field', () => {
    const line = ecsToLeef(
      { sev: 'x', cat: 'y', 'ecs.cat': 'z', nested: { 'a.b': 1 }, 'nested.a': { b: 2 } },
      defaults,
    );
    const keys = parseLeef(line).attributes.map(([k]) => k);
    expect(keys).toEqual(['ecs.sev', 'ecs.cat', 'ecs.ecs.cat', 'nested.a.b']);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('renders devTime in the kept format when given a formatter', () => {
    const doc = leefToEcs(
      {
        version: '2.0',
        vendor: 'V',
        product: 'P',
        productVersion: '1',
        eventId: 'E',
        delimiter: '^',
        attributes: [
          ['devTime', '2024-05-01 12:00'],
          ['devTimeFormat', 'yyyy-MM-dd HH:mm'],
        ],
      },
      { eventTimeMs: Date.UTC(2024, 4, 1, 12) },
    );
    doc['@timestamp'] = '2030-01-01T08:30:00.000Z';
    const formatDevTime = (ms: number, pattern: string) =>
      pattern === 'yyyy-MM-dd HH:mm' ? new Date(ms).toISOString().slice(0, 16).replace('T', ' ') : undefined;
    expect(ecsToLeef(doc, { ...defaults, formatDevTime })).toBe(
      'LEEF:2.0|V|P|1|E|^|devTime=2030-01-01 08:30^devTimeFormat=yyyy-MM-dd HH:mm',
    );
    expect(ecsToLeef(doc, defaults)).toBe('LEEF:2.0|V|P|1|E|^|devTime=1893486600000');
  });

  it('writes a new value rather than the kept one once the field changed', () => {
    const doc = leefToEcs(parseLeef('LEEF:2.0|V|P|1|E|^|proto=TCP^srcPort=0443'), { eventTimeMs: null });
    expect(ecsToLeef(doc, defaults)).toBe('LEEF:2.0|V|P|1|E|^|srcPort=0443^proto=TCP');
    (doc.network as Record<string, unknown>).transport = 'udp';
    (doc.network as Record<string, unknown>).iana_number = '17';
    expect(ecsToLeef(doc, defaults)).toBe('LEEF:2.0|V|P|1|E|^|srcPort=0443^proto=udp');
  });
});

// Values that survive LEEF in both versions: no delimiters, CR or LF.
const safeText = fc.string({ unit: fc.constantFrom(...'abcXYZ09 -_.:/=@|,é€'.split('')), maxLength: 12 });
const headerText = safeText.map((s) => s.replaceAll('|', '/').trim()).filter((s) => s !== '');
const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((p) => p.join('.'));
const macText = fc
  .tuple(
    fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 6, maxLength: 6 }),
    fc.boolean(),
    fc.boolean(),
  )
  .map(([b, upper, hyphen]) => {
    const m = b.map((x) => x.toString(16).padStart(2, '0')).join(hyphen ? '-' : ':');
    return upper ? m.toUpperCase() : m;
  });
const valueFor = (key: string): fc.Arbitrary<string> => {
  const codec = LEEF_ECS_MAPPING.find((row) => row.leef === key)?.codec.name ?? 'text';
  if (codec === 'IP address') return fc.oneof(ipv4, fc.constant('::1'), safeText);
  if (codec.startsWith('port') || codec === 'count') return fc.oneof(fc.nat(70000).map(String), safeText);
  if (codec.startsWith('severity')) return fc.oneof(fc.integer({ min: -5, max: 15 }).map(String), safeText);
  if (codec.startsWith('MAC')) return fc.oneof(macText, safeText);
  if (codec.startsWith('IANA'))
    return fc.constantFrom('6', '17', '1', '200', 'TCP', 'udp', 'Icmp', 'ipv6-icmp', 'xyz', '');
  return safeText;
};
const mappedKeys = LEEF_ECS_MAPPING.map((row) => row.leef);
const customKey = fc
  .string({ unit: fc.constantFrom(...'abcdefXYZ_.0123'.split('')), minLength: 1, maxLength: 10 })
  .filter((k) => !PREDEFINED_LEEF_KEYS.has(k) && !mappedKeys.includes(k) && /^[a-zA-Z]/.test(k));
const attributeSet = fc
  .uniqueArray(fc.oneof(fc.constantFrom(...mappedKeys, 'realm', 'vSrc', 'resource'), customKey), {
    maxLength: 12,
  })
  .chain((keys) => fc.tuple(...keys.map((k) => valueFor(k).map((v): [string, string] => [k, v]))));

describe('LEEF → ECS → LEEF', () => {
  it('gives back the same header and attributes (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('1.0', '2.0'),
        fc.tuple(headerText, headerText, headerText, headerText),
        attributeSet,
        fc.option(fc.integer({ min: 946684800000, max: 4102444800000 }), { nil: undefined }),
        (version, [vendor, product, productVersion, eventId], attributes, devTime) => {
          const attrs: Array<[string, string]> = [...attributes];
          if (devTime !== undefined) attrs.unshift(['devTime', String(devTime)]);
          const original: LeefRecord = {
            version,
            vendor,
            product,
            productVersion,
            eventId,
            delimiter: version === '1.0' ? '\t' : '^',
            attributes: attrs,
          };
          // Through JSON, as the document would travel to and from storage.
          const doc = JSON.parse(
            JSON.stringify(leefToEcs(original, { eventTimeMs: devTime ?? null, rawLine: 'raw' })),
          );
          const back = parseLeef(ecsToLeef(doc, defaults));
          expect({ ...back, attributes: undefined }).toEqual({ ...original, attributes: undefined });
          expect(new Map(back.attributes)).toEqual(new Map(attrs));
          expect(back.attributes.length).toBe(attrs.length);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('keeps an unreadable devTime and its format verbatim', () => {
    const line = 'LEEF:1.0|V|P|1|E|devTime=sometime\tdevTimeFormat=weird\tsrc=10.0.0.1';
    expect(ecsToLeef(leefToEcs(parseLeef(line), { eventTimeMs: null }), defaults)).toBe(line);
  });
});

describe('ECS → LEEF → ECS', () => {
  const ecsDoc = fc.record(
    {
      '@timestamp': fc
        .integer({ min: 946684800000, max: 4102444800000 })
        .map((t) => new Date(t).toISOString()),
      source: fc.record(
        { ip: ipv4, port: fc.nat(65535), mac: macText.map((m) => m.toUpperCase().replaceAll(':', '-')) },
        { requiredKeys: [] },
      ),
      destination: fc.record({ ip: ipv4, port: fc.nat(65535), bytes: fc.nat() }, { requiredKeys: [] }),
      user: fc.record(
        {
          name: safeText,
          roles: fc.array(
            safeText.filter((s) => !s.includes(',')),
            { minLength: 1, maxLength: 1 },
          ),
        },
        { requiredKeys: [] },
      ),
      network: fc.constantFrom({ transport: 'tcp' }, { transport: 'udp', iana_number: '17' }),
      event: fc.record({ severity: fc.integer({ min: 1, max: 10 }), action: safeText }, { requiredKeys: [] }),
      message: safeText,
      host: fc.record({ os: fc.record({ name: safeText }) }),
    },
    { requiredKeys: ['@timestamp'] },
  );

  it('gives back every mapped field and keeps the rest as custom attributes (property)', () => {
    fc.assert(
      fc.property(ecsDoc, fc.constantFrom<'1.0' | '2.0'>('1.0', '2.0'), (doc, version) => {
        const record = parseLeef(ecsToLeef(doc, { ...defaults, version }));
        const devTime = Number(record.attributes.find(([k]) => k === 'devTime')?.[1]);
        const back = leefToEcs(record, { eventTimeMs: devTime });
        for (const path of [
          '@timestamp',
          'source.ip',
          'source.port',
          'source.mac',
          'destination.ip',
          'destination.port',
          'destination.bytes',
          'user.name',
          'user.roles',
          'network.transport',
          'event.severity',
          'event.action',
          'message',
        ]) {
          const want = getEcsField(doc, path);
          if (want !== undefined) expect(getEcsField(back, path)).toEqual(want);
        }
        if (doc.host !== undefined) {
          expect((back.leef as { attributes: Record<string, string> }).attributes['host.os.name']).toBe(
            doc.host.os.name,
          );
        }
      }),
      { numRuns: 1000 },
    );
  });
});
