import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildZip } from '../../test/fixtures/archives/zip-builder.ts';
import { findRsyslogd, type Rsyslogd, startRsyslogd } from '../../test/helpers/rsyslogd.ts';
import { buildTestApp, signedInAs, type TestApp } from '../../test/helpers/test-app.ts';
import { type SiemQSimulator, startSiemQSimulator } from '../../test/simulators/siem-q-simulator.ts';
import { sectionIdentity } from '../attempts/section-identity.ts';
import { createDestination } from '../destinations/destination-service.ts';

const binary = findRsyslogd();
const T0 = Date.UTC(2024, 5, 1, 10, 0, 0);

describe.skipIf(!binary)('SIEM Q sections through a real rsyslogd', () => {
  let rsyslogd: Rsyslogd;
  let q: SiemQSimulator;
  let t: TestApp;

  beforeAll(async () => {
    rsyslogd = await startRsyslogd(binary as string);
    q = await startSiemQSimulator();
    t = await buildTestApp();
    await createDestination(t.ctx, {
      name: 'siemq-rsyslog',
      driver: 'syslog_tcp',
      host: '127.0.0.1',
      port: rsyslogd.port,
      index: 'lab',
      provision_log_source: true,
      siem_q: { console_url: q.url, token: q.token },
    });
  });
  afterAll(async () => {
    await t?.close();
    await q?.close();
    await rsyslogd?.close();
  });

  it('parses each section’s events with the section’s log source identifier as HOSTNAME', async () => {
    const author = (await signedInAs(t, ['author'])).cookie;
    const analyst = (await signedInAs(t, ['analyst'])).cookie;
    const send = async (
      method: 'POST' | 'PUT' | 'GET',
      url: string,
      cookie: string,
      payload?: object | Buffer,
    ) => {
      const res = await t.app.inject({
        method,
        url,
        headers: {
          cookie,
          ...(Buffer.isBuffer(payload) ? { 'content-type': 'application/octet-stream' } : {}),
        },
        ...(payload !== undefined ? { payload } : {}),
      });
      expect(res.statusCode, res.body).toBeLessThan(300);
      return res.json();
    };
    const { id } = await send('POST', '/api/exercises', author, {
      title: 'Through rsyslog',
      destinations: ['siemq-rsyslog'],
    });
    const lines = (n: number) =>
      Array.from(
        { length: 3 },
        (_, i) => `LEEF:1.0|Lab|Proxy|2.1|get|seq=${n}-${i}\tdevTime=${T0 + n * 60_000 + i * 1000}`,
      );
    for (const position of [1, 2]) {
      const { created_id } = await send('POST', `/api/exercises/${id}/sections`, author, {
        name: `S${position}`,
        position,
      });
      const zip = buildZip([{ name: 'e.log', data: lines(position).join('\n') }]);
      await send('PUT', `/api/exercises/${id}/sections/${created_id}/archives?filename=s.zip`, author, zip);
    }
    expect((await send('POST', `/api/exercises/${id}/publish`, author)).state).toBe('active');
    await send('POST', `/api/exercises/${id}/attempts`, analyst, { siem: 'siemq-rsyslog' });

    for (const position of [1, 2]) {
      const host = sectionIdentity(id, position, 'siemq-rsyslog');
      const got = await rsyslogd.linesOf(host, 3);
      // rsyslog's RFC 3164 parser: HOSTNAME is ours, TAG `LEEF:`, MSG the rest of the LEEF line.
      expect(got.map((line) => line.split(' ').slice(1, 3).join(' '))).toEqual(
        Array(3).fill(`${host} LEEF:`),
      );
      expect(got.map((line) => /seq=(\S+)#011/.exec(line)?.[1])).toEqual(
        [0, 1, 2].map((i) => `${position}-${i}`),
      );
      // The log source provisioned for the section carries that identifier.
      const rows = (await send('GET', `/api/exercises/${id}/log-sources`, author)).log_sources as Array<{
        identifier: string;
        log_source_id: number;
      }>;
      const row = rows.find((r) => r.identifier === host);
      expect(row && q.store.identifierOf(q.store.logSources.get(row.log_source_id) as never)).toBe(host);
    }
  });
});
