import { describe, expect, it } from 'vitest';
import { systemClock } from '../clock.ts';
import type { Destination } from '../destinations/destination-types.ts';
import { AppError } from '../errors.ts';
import { createLogger } from '../logger.ts';
import { builtinSiemKinds, SiemRegistry } from './registry.ts';
import { isSecret, secretPaths } from './settings-schema.ts';

const deps = { log: createLogger('silent'), clock: systemClock };
const registry = () => new SiemRegistry(builtinSiemKinds({ hecRetryNotFound: false }), deps);
const common = { id: 'd', enabled: true, index: 'lab', tls_verify: true, ca_pem: null } as const;

describe('SiemRegistry', () => {
  it('holds the three built-in kinds and builds the client of a destination by its driver', async () => {
    const siems = registry();
    expect(siems.names).toEqual(['vendorA_hec', 'syslog_tcp', 'vendorB_bulk']);
    const hec = siems.client({
      ...common,
      name: 'splunk-lab',
      driver: 'vendorA_hec',
      payload_format: 'leef',
      url: 'https://siem-a.invalid:8088',
      token: 't',
      management_url: null,
      management_token: null,
      management_username: null,
      management_password: null,
      sourcetype: null,
      source: null,
      channel: null,
    });
    expect(hec.destination.name).toBe('splunk-lab');
    expect(typeof hec.wipe).toBe('function');
    const syslog = siems.client({
      ...common,
      name: 'qradar-lab',
      driver: 'syslog_tcp',
      payload_format: 'leef',
      host: 'siem-q.invalid',
      port: 514,
      tls: false,
      source_identity: null,
      header_mode: 'synthesize_if_missing',
      syslog_format: 'rfc3164',
      framing: 'lf',
      facility: 16,
      severity: 6,
      provision_log_source: false,
      offense_cleanup: false,
      siem_q: null,
    });
    // syslog_tcp cannot delete or create indexes: its client offers neither.
    expect(syslog.wipe).toBeUndefined();
    expect(syslog.ensureIndex).toBeUndefined();
    await Promise.all([hec.close(), syslog.close()]);
  });

  it('names a destination whose kind it does not know, and refuses a kind registered twice', () => {
    const unknown = { ...common, name: 'x', driver: 'carrier_pigeon' } as unknown as Destination;
    expect(() => registry().client(unknown)).toThrow(AppError);
    expect(() => registry().client(unknown)).toThrow(
      'SIEM destination "x" is of kind "carrier_pigeon", which this version does not know',
    );
    const [hec] = builtinSiemKinds({ hecRetryNotFound: false });
    expect(() => new SiemRegistry([hec as never, hec as never], deps)).toThrow('registered twice');
  });

  it('gives every kind a coherent descriptor: clients match capabilities, secrets are write-only strings', async () => {
    for (const kind of builtinSiemKinds({ hecRetryNotFound: false })) {
      expect(kind.payloadFormats.length, kind.name).toBeGreaterThan(0);
      // A kind that labels events by index without having indexes of its own must label them.
      if (kind.capabilities.indexes === 'label') expect(kind.capabilities.labelsIndex, kind.name).toBe(true);
      if (kind.capabilities.indexCreation) expect(kind.capabilities.indexes, kind.name).toBe('native');
      for (const path of secretPaths(kind.settings)) {
        const [group, field] = path.includes('.') ? path.split('.') : [undefined, path];
        const holder = group
          ? (kind.settings.properties as Record<string, { properties: object }>)[group]?.properties
          : kind.settings.properties;
        const schema = (holder as Record<string, { type?: string }>)[field as string];
        expect(schema?.type, path).toBe('string');
        expect(isSecret(schema as never), path).toBe(true);
      }
    }
    expect(secretPaths(builtinSiemKinds({ hecRetryNotFound: false })[1]!.settings)).toEqual(['siem_q.token']);
  });

  it('checks settings against a kind’s schema, naming each bad field in words', () => {
    const siems = registry();
    const syslog = siems.find('syslog_tcp')!;
    expect(siems.validate(syslog, { host: 'q.lab', port: 514 })).toEqual({});
    expect(
      siems.validate(syslog, {
        host: 'has space',
        port: 70_000,
        framing: 'cr',
        source_identity: 'not valid',
        tls: 'yes',
        colour: 'red',
        siem_q: { token: 't', rogue: 1 },
      }),
    ).toEqual({
      host: 'must be a host name or address',
      port: 'must be an integer from 1 to 65535',
      framing: 'must be one of lf, octet_counting',
      source_identity: expect.stringMatching(/space|printable/),
      tls: 'must be true or false',
      colour: 'is not a setting of driver syslog_tcp',
      'siem_q.console_url': 'is required',
      'siem_q.rogue': 'is not a known setting',
    });
    const hec = siems.find('vendorA_hec')!;
    expect(siems.validate(hec, { url: 'https://u:p@x', token: '', ca_pem: 'nope' })).toEqual({
      url: 'must not carry credentials; use the credential fields',
      token: 'must not be empty',
      ca_pem: 'must hold at least one PEM certificate (-----BEGIN CERTIFICATE-----)',
    });
  });
});
