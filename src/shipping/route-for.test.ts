import { describe, expect, it } from 'vitest';
import type { Destination } from '../destinations/destination-types.ts';
import { builtinSiemKinds } from '../siems/registry.ts';
import type { AnySiemKind } from '../siems/siem-kind.ts';
import { type ArchiveIndex, landingIndex, routeFor } from './route-for.ts';

const kinds = new Map(builtinSiemKinds({ hecRetryNotFound: false }).map((k) => [k.name, k]));
const kind = (name: string) => kinds.get(name) as AnySiemKind;
const base = { id: 'x', name: 'x', enabled: true, tls_verify: true, ca_pem: null };
const syslog = (index: string | null) =>
  ({ ...base, driver: 'syslog_tcp', payload_format: 'leef', index }) as Destination;
const bulk = { ...base, driver: 'vendorB_bulk', payload_format: 'ecs', index: 'lab' } as Destination;
const hec = (format: 'leef' | 'ecs') =>
  ({ ...base, driver: 'vendorA_hec', payload_format: format, index: 'main' }) as Destination;
const dflt: ArchiveIndex = { index_mode: 'default', index: null };
const own: ArchiveIndex = { index_mode: 'new', index: 'dns' };
const known: ArchiveIndex = { index_mode: 'existing', index: 'web' };

describe('routeFor', () => {
  it('labels syslog lines with the archive index, else the destination index, else none', () => {
    expect(routeFor(kind('syslog_tcp'), own, syslog('lab'))).toEqual({
      index: null,
      labIndex: 'dns',
      output: 'leef',
    });
    expect(routeFor(kind('syslog_tcp'), dflt, syslog('lab'))).toEqual({
      index: null,
      labIndex: 'lab',
      output: 'leef',
    });
    expect(routeFor(kind('syslog_tcp'), dflt, syslog(null))).toEqual({
      index: null,
      labIndex: null,
      output: 'leef',
    });
  });

  it('routes bulk documents to the archive index (default: the destination’s) as ECS with labels.labIndex', () => {
    expect(routeFor(kind('vendorB_bulk'), known, bulk)).toEqual({
      index: 'web',
      labIndex: 'web',
      output: 'ecs',
    });
    expect(routeFor(kind('vendorB_bulk'), dflt, bulk)).toEqual({
      index: null,
      labIndex: 'lab',
      output: 'ecs',
    });
  });

  it('routes HEC events to the archive index in the destination’s payload format, without a label', () => {
    expect(routeFor(kind('vendorA_hec'), own, hec('leef'))).toEqual({
      index: 'dns',
      labIndex: null,
      output: 'leef',
    });
    expect(routeFor(kind('vendorA_hec'), dflt, hec('ecs'))).toEqual({
      index: null,
      labIndex: null,
      output: 'ecs',
    });
  });

  it('gives an archive without index routing (session start, exercise sections) the default and no label', () => {
    for (const [name, destination] of [
      ['syslog_tcp', syslog('lab')],
      ['vendorB_bulk', bulk],
      ['vendorA_hec', hec('leef')],
    ] as const) {
      expect(routeFor(kind(name), null, destination)).toEqual({
        index: null,
        labIndex: null,
        output: destination.payload_format,
      });
    }
  });

  it('names the index events land in only on SIEMs with native indexes', () => {
    expect(
      landingIndex(kind('vendorA_hec'), routeFor(kind('vendorA_hec'), own, hec('leef')), hec('leef')),
    ).toBe('dns');
    expect(landingIndex(kind('vendorB_bulk'), routeFor(kind('vendorB_bulk'), dflt, bulk), bulk)).toBe('lab');
    expect(
      landingIndex(kind('syslog_tcp'), routeFor(kind('syslog_tcp'), own, syslog('lab')), syslog('lab')),
    ).toBe(null);
  });
});
