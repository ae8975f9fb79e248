import { once } from 'node:events';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, signedInAs } from '../helpers/test-app.ts';
import {
  LAB_BULK_INDEX,
  LAB_HEC_INDEX,
  type LabSiems,
  labBanner,
  labSummary,
  startLabSiems,
} from './lab-siems.ts';

let lab: LabSiems | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

const anyPorts = {
  LAB_HEC_PORT: '0',
  LAB_HEC_MANAGEMENT_PORT: '0',
  LAB_BULK_PORT: '0',
  LAB_SYSLOG_PORT: '0',
  LAB_SIEM_Q_PORT: '0',
};

describe('startLabSiems', () => {
  it('starts the four simulators and prints destination bodies that work against them', async () => {
    lab = await startLabSiems({ ...anyPorts, LAB_HEC_TOKEN: 'a3f0c7d2-1111-4222-8333-944455556666' });
    const { vendorA_hec: hec, vendorB_bulk: bulk, syslog_tcp: syslog } = lab.destinations;
    expect(hec).toEqual({
      name: 'sim-hec',
      driver: 'vendorA_hec',
      index: LAB_HEC_INDEX,
      url: lab.hec.url,
      token: 'a3f0c7d2-1111-4222-8333-944455556666',
      management_url: lab.hec.managementUrl,
      management_token: lab.hec.managementToken,
      tls_verify: true,
    });
    expect(bulk).toMatchObject({
      driver: 'vendorB_bulk',
      index: LAB_BULK_INDEX,
      url: lab.bulk.url,
      api_key: lab.bulk.apiKey,
    });
    expect(syslog).toMatchObject({
      driver: 'syslog_tcp',
      host: '127.0.0.1',
      port: lab.syslog.port,
      framing: 'lf',
      tls: false,
    });
    expect(lab.destinations.syslog_tcp_siem_q).toEqual({
      ...syslog,
      name: 'sim-siem-q',
      provision_log_source: true,
      offense_cleanup: true,
      siem_q: { console_url: lab.siemQ.url, token: lab.siemQ.token, tls_verify: true },
    });

    const sent = await fetch(`${hec.url}/services/collector/event`, {
      method: 'POST',
      headers: { authorization: `Splunk ${hec.token}` },
      body: JSON.stringify({ event: 'hello', index: LAB_HEC_INDEX }),
    });
    expect(sent.status).toBe(200);
    const indexed = await fetch(`${bulk.url}/_bulk`, {
      method: 'POST',
      headers: { authorization: `ApiKey ${bulk.api_key}`, 'content-type': 'application/x-ndjson' },
      body: `{"create":{"_index":"${LAB_BULK_INDEX}"}}\n{"message":"hello"}\n`,
    });
    expect(((await indexed.json()) as { errors: boolean }).errors).toBe(false);
    const socket = net.connect({ host: '127.0.0.1', port: lab.syslog.port });
    await once(socket, 'connect');
    socket.end('<134>hello\n');
    await lab.syslog.waitForMessages(1);
    const offenses = await fetch(`${lab.siemQ.url}/api/siem/offenses`, {
      headers: { SEC: lab.siemQ.token, Version: '26.0' },
    });
    expect(offenses.status).toBe(200);
    expect(await offenses.json()).toEqual([]);
    lab.siemQ.store.addLogSource({ name: 'lab-ex1-s1', identifier: 'lab-ex1-s1' });
    expect(labSummary(lab)).toBe(
      '[simulators] hec events 1 · bulk documents 1 · syslog messages 1 · siem q log sources 1',
    );
  });

  it('keeps the SIEM Q token given and stops the console on close', async () => {
    lab = await startLabSiems({ ...anyPorts, LAB_SIEM_Q_TOKEN: 'siemq-lab-token-1234' });
    expect(lab.siemQ.token).toBe('siemq-lab-token-1234');
    expect(lab.destinations.syslog_tcp_siem_q.siem_q).toMatchObject({ token: 'siemq-lab-token-1234' });
    const url = lab.siemQ.url;
    await lab.close();
    lab = undefined;
    await expect(fetch(`${url}/api/help/versions`)).rejects.toThrow();
  });

  it('prints bodies the service accepts as destinations, TLS ones included', async () => {
    lab = await startLabSiems({ ...anyPorts, LAB_TLS: '1' });
    const t = await buildTestApp();
    try {
      const { cookie } = await signedInAs(t, ['admin']);
      for (const body of Object.values(lab.destinations)) {
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/destinations',
          headers: { cookie },
          payload: body,
        });
        expect(res.statusCode, res.body).toBe(201);
      }
      const view = await t.app.inject({
        method: 'GET',
        url: '/api/destinations/sim-siem-q',
        headers: { cookie },
      });
      expect(view.json()).toMatchObject({
        driver: 'syslog_tcp',
        provision_log_source: true,
        offense_cleanup: true,
        siem_q: { console_url: lab.siemQ.url },
      });
    } finally {
      await t.close();
    }
  });

  it('labels every block as a simulator', async () => {
    lab = await startLabSiems(anyPorts);
    const banner = labBanner(lab);
    expect(banner.match(/^SIMULATOR — /gm)).toHaveLength(4);
    expect(banner).toContain(JSON.stringify(lab.destinations.syslog_tcp, null, 2));
    expect(banner).toContain(JSON.stringify(lab.destinations.syslog_tcp_siem_q, null, 2));
    expect(banner).toContain(`console     ${lab.siemQ.url} (API under /api)   SEC ${lab.siemQ.token}`);
  });

  it('serves TLS with a printed CA and OpenSearch credentials when asked', async () => {
    lab = await startLabSiems({ ...anyPorts, LAB_TLS: '1', LAB_BULK_FLAVOR: 'opensearch' });
    expect(lab.hec.url.startsWith('https://')).toBe(true);
    expect(lab.destinations.vendorB_bulk).toMatchObject({
      username: 'admin',
      password: lab.bulk.password,
      tls_verify: true,
    });
    expect(String(lab.destinations.syslog_tcp.ca_pem)).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(lab.destinations.syslog_tcp.tls).toBe(true);
    expect(lab.siemQ.url.startsWith('https://')).toBe(true);
    expect(lab.destinations.syslog_tcp_siem_q.siem_q).toEqual({
      console_url: lab.siemQ.url,
      token: lab.siemQ.token,
      tls_verify: true,
      ca_pem: lab.destinations.syslog_tcp.ca_pem,
    });
  });

  it('falls back to a free port when the preferred one is taken', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as net.AddressInfo).port;
    try {
      lab = await startLabSiems({
        ...anyPorts,
        LAB_SYSLOG_PORT: String(taken),
        LAB_SIEM_Q_PORT: String(taken),
      });
      expect(lab.syslog.port).not.toBe(taken);
      expect(new URL(lab.siemQ.url).port).not.toBe(String(taken));
    } finally {
      blocker.close();
    }
  });
});
