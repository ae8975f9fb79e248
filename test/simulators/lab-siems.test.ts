import { once } from 'node:events';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
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
};

describe('startLabSiems', () => {
  it('starts the three simulators and prints destination bodies that work against them', async () => {
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
    expect(labSummary(lab)).toBe('[simulators] hec events 1 · bulk documents 1 · syslog messages 1');
  });

  it('labels every block as a simulator', async () => {
    lab = await startLabSiems(anyPorts);
    const banner = labBanner(lab);
    expect(banner.match(/^SIMULATOR — /gm)).toHaveLength(3);
    expect(banner).toContain(JSON.stringify(lab.destinations.syslog_tcp, null, 2));
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
  });

  it('falls back to a free port when the preferred one is taken', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as net.AddressInfo).port;
    try {
      lab = await startLabSiems({ ...anyPorts, LAB_SYSLOG_PORT: String(taken) });
      expect(lab.syslog.port).not.toBe(taken);
    } finally {
      blocker.close();
    }
  });
});
