import { describe, expect, it } from 'vitest';
import { systemClock } from '../clock.ts';
import type { Destination } from '../destinations/destination-types.ts';
import { AppError } from '../errors.ts';
import { createLogger } from '../logger.ts';
import { createDriver } from './registry.ts';

const deps = { log: createLogger('silent'), clock: systemClock };
const common = { id: 'd', enabled: true, index: 'lab', tls_verify: true, ca_pem: null } as const;

describe('createDriver', () => {
  it('builds the driver named by the destination', async () => {
    const hec = createDriver(
      {
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
      },
      deps,
    );
    const bulk = createDriver(
      {
        ...common,
        name: 'elastic-lab',
        driver: 'vendorB_bulk',
        payload_format: 'ecs',
        url: 'https://siem-b.invalid:9200',
        api_key: 'k',
        username: null,
        password: null,
      },
      deps,
    );
    expect([hec.driver, bulk.driver]).toEqual(['vendorA_hec', 'vendorB_bulk']);
    expect(hec.destination.name).toBe('splunk-lab');
    await Promise.all([hec.close(), bulk.close()]);
  });

  it('builds the syslog driver and refuses unknown driver names', async () => {
    const syslog = createDriver(
      {
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
      },
      deps,
    );
    expect(syslog.driver).toBe('syslog_tcp');
    await syslog.close();
    const unknown = { ...common, name: 'x', driver: 'carrier_pigeon' } as unknown as Destination;
    expect(() => createDriver(unknown, deps)).toThrow(AppError);
    expect(() => createDriver(unknown, deps)).toThrow('Unknown SIEM driver "carrier_pigeon"');
  });
});
