import net from 'node:net';
import { createTlsFixtures } from '../helpers/tls-fixtures.ts';
import { type BulkSimulator, startBulkSimulator } from './bulk-simulator.ts';
import { type HecSimulator, startHecSimulator } from './hec-simulator.ts';
import { type SiemQSimulator, startSiemQSimulator } from './siem-q-simulator.ts';
import type { SyslogFraming } from './syslog-framing.ts';
import { type SyslogSimulator, startSyslogSimulator } from './syslog-simulator.ts';

/** Index the lab destinations write to (valid for every driver, and no `logs-*-*` data-stream trap). */
export const LAB_HEC_INDEX = 'socdrill_lab';
export const LAB_BULK_INDEX = 'socdrill-lab';

/** The four running simulators and the destination bodies that point at them. */
export interface LabSiems {
  readonly hec: HecSimulator;
  readonly bulk: BulkSimulator;
  readonly syslog: SyslogSimulator;
  /** The SIEM Q console API; it starts empty of offenses (only tests add them). */
  readonly siemQ: SiemQSimulator;
  /**
   * `POST /api/destinations` bodies (decisions.md §4), one per driver, and a second syslog one
   * that provisions log sources and cleans up offenses on the SIEM Q console.
   */
  readonly destinations: {
    readonly vendorA_hec: Record<string, unknown>;
    readonly vendorB_bulk: Record<string, unknown>;
    readonly syslog_tcp: Record<string, unknown>;
    readonly syslog_tcp_siem_q: Record<string, unknown>;
  };
  close(): Promise<void>;
}

/**
 * Starts the HEC (+ management), bulk, syslog and SIEM Q console simulators for trying Socdrill
 * without a SIEM. Environment: LAB_HOST (127.0.0.1), LAB_HEC_PORT (18088), LAB_HEC_MANAGEMENT_PORT
 * (18089), LAB_BULK_PORT (19200), LAB_SYSLOG_PORT (15514), LAB_SIEM_Q_PORT (18443) — a busy port
 * falls back to a free one; LAB_BULK_FLAVOR (elasticsearch | opensearch), LAB_SYSLOG_FRAMING (lf |
 * octet_counting | auto), LAB_TLS=1 (HTTPS/TLS with a throwaway CA printed as ca_pem), and
 * LAB_HEC_TOKEN, LAB_HEC_MANAGEMENT_TOKEN, LAB_BULK_API_KEY, LAB_BULK_PASSWORD, LAB_SIEM_Q_TOKEN to
 * keep credentials across restarts.
 */
export async function startLabSiems(
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<LabSiems> {
  const host = env.LAB_HOST ?? '127.0.0.1';
  const fixtures = env.LAB_TLS === '1' ? createTlsFixtures() : undefined;
  const tls = fixtures ? { cert: fixtures.serverCert, key: fixtures.serverKey } : undefined;
  const tlsFields = fixtures ? { tls_verify: true, ca_pem: fixtures.caCert } : { tls_verify: true };
  const port = (name: string, fallback: number) => pickPort(Number(env[name] ?? fallback), host);
  const flavor = env.LAB_BULK_FLAVOR === 'opensearch' ? 'opensearch' : 'elasticsearch';
  const framing = (env.LAB_SYSLOG_FRAMING ?? 'lf') as SyslogFraming;
  if (!['lf', 'octet_counting', 'auto'].includes(framing))
    throw new Error(`LAB_SYSLOG_FRAMING: unknown framing ${framing}`);

  const hec = await startHecSimulator({
    host,
    port: await port('LAB_HEC_PORT', 18088),
    managementPort: await port('LAB_HEC_MANAGEMENT_PORT', 18089),
    tls,
    indexes: [LAB_HEC_INDEX],
    ...(env.LAB_HEC_TOKEN ? { tokens: [{ token: env.LAB_HEC_TOKEN }] } : {}),
    management: {
      pollsUntilDone: 2,
      ...(env.LAB_HEC_MANAGEMENT_TOKEN
        ? { bearerTokens: { [env.LAB_HEC_MANAGEMENT_TOKEN]: 'socdrill' } }
        : {}),
    },
  });
  const bulk = await startBulkSimulator({
    flavor,
    host,
    port: await port('LAB_BULK_PORT', 19200),
    tls,
    ...(env.LAB_BULK_API_KEY && flavor === 'elasticsearch' ? { apiKeys: [env.LAB_BULK_API_KEY] } : {}),
    ...(env.LAB_BULK_PASSWORD
      ? {
          users: [
            { username: flavor === 'elasticsearch' ? 'elastic' : 'admin', password: env.LAB_BULK_PASSWORD },
          ],
        }
      : {}),
  }).catch(async (err: unknown) => {
    await hec.close();
    throw err;
  });
  const syslog = await startSyslogSimulator({
    host,
    port: await port('LAB_SYSLOG_PORT', 15514),
    tls,
    framing,
  }).catch(async (err: unknown) => {
    await Promise.all([hec.close(), bulk.close()]);
    throw err;
  });
  const siemQ = await startSiemQSimulator({
    host,
    port: await port('LAB_SIEM_Q_PORT', 18443),
    tls,
    ...(env.LAB_SIEM_Q_TOKEN ? { token: env.LAB_SIEM_Q_TOKEN } : {}),
  }).catch(async (err: unknown) => {
    await Promise.all([hec.close(), bulk.close(), syslog.close()]);
    throw err;
  });
  const syslogBody = {
    name: 'sim-syslog',
    driver: 'syslog_tcp',
    index: LAB_HEC_INDEX,
    host,
    port: syslog.port,
    framing: framing === 'auto' ? 'lf' : framing,
    tls: fixtures !== undefined,
    ...tlsFields,
  };

  return {
    hec,
    bulk,
    syslog,
    siemQ,
    destinations: {
      vendorA_hec: {
        name: 'sim-hec',
        driver: 'vendorA_hec',
        index: LAB_HEC_INDEX,
        url: hec.url,
        token: hec.token,
        management_url: hec.managementUrl,
        management_token: hec.managementToken,
        ...tlsFields,
      },
      vendorB_bulk: {
        name: 'sim-bulk',
        driver: 'vendorB_bulk',
        index: LAB_BULK_INDEX,
        url: bulk.url,
        ...(bulk.apiKey ? { api_key: bulk.apiKey } : { username: bulk.username, password: bulk.password }),
        ...tlsFields,
      },
      syslog_tcp: syslogBody,
      syslog_tcp_siem_q: {
        ...syslogBody,
        name: 'sim-siem-q',
        provision_log_source: true,
        offense_cleanup: true,
        siem_q: { console_url: siemQ.url, token: siemQ.token, ...tlsFields },
      },
    },
    async close() {
      await Promise.all([hec.close(), bulk.close(), syslog.close(), siemQ.close()]);
    },
  };
}

/** The banner and paste-ready bodies printed at start. */
export function labBanner(lab: LabSiems): string {
  const line = '='.repeat(78);
  const block = (title: string, lines: string[], body: object) =>
    [
      line,
      `SIMULATOR — ${title}`,
      'Not a real SIEM: a protocol simulator for trying Socdrill. Data lives in memory only.',
      ...lines,
      'POST /api/destinations body:',
      JSON.stringify(body, null, 2),
      '',
    ].join('\n');
  const { hec, bulk, syslog, siemQ } = lab;
  return [
    block(
      'vendorA_hec (Splunk-style HTTP Event Collector + management API)',
      [
        `collector   ${hec.url}/services/collector/event   token ${hec.token}`,
        `management  ${hec.managementUrl}   Bearer ${hec.managementToken}`,
        `            basic ${hec.managementUser.username} / ${hec.managementUser.password}`,
        `indexes     ${[...hec.indexes.keys()].filter((i) => !i.startsWith('_')).join(', ')}`,
      ],
      lab.destinations.vendorA_hec,
    ),
    block(
      `vendorB_bulk (${bulk.flavor === 'elasticsearch' ? 'Elasticsearch' : 'OpenSearch'}-style ${bulk.version} _bulk API)`,
      [
        `url         ${bulk.url}   user ${bulk.username} / ${bulk.password}${bulk.apiKey ? `   api key ${bulk.apiKey}` : ''}`,
      ],
      lab.destinations.vendorB_bulk,
    ),
    block(
      `syslog_tcp (${syslog.tls ? 'TLS' : 'TCP'} syslog receiver, ${syslog.framing} framing)`,
      [`listening   ${syslog.host}:${syslog.port}`],
      lab.destinations.syslog_tcp,
    ),
    block(
      'syslog_tcp + SIEM Q console API (log source provisioning, offense cleanup)',
      [
        `console     ${siemQ.url} (API under /api)   SEC ${siemQ.token}`,
        `syslog      ${syslog.host}:${syslog.port} (the receiver above)`,
        'offenses    none: the console starts empty of offenses (only tests add them)',
      ],
      lab.destinations.syslog_tcp_siem_q,
    ),
    line,
    'Press Ctrl-C to stop the simulators.',
  ].join('\n');
}

/** One line of what arrived so far. */
export function labSummary(lab: LabSiems): string {
  const hecEvents = lab.hec.store.searchable().length;
  const bulkDocs = [...lab.bulk.store.indexes.values()].reduce((n, i) => n + i.docs.size, 0);
  const siemQLogSources = lab.siemQ.store.logSources.size;
  return `[simulators] hec events ${hecEvents} · bulk documents ${bulkDocs} · syslog messages ${lab.syslog.store.messages.length} · siem q log sources ${siemQLogSources}`;
}

/** `preferred` when it can be bound on `host`, otherwise 0 (any free port). */
async function pickPort(preferred: number, host: string): Promise<number> {
  if (!Number.isInteger(preferred) || preferred <= 0) return 0;
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(0));
    probe.listen(preferred, host, () => probe.close(() => resolve(preferred)));
  });
}

if (import.meta.main) {
  const lab = await startLabSiems(process.env);
  console.log(labBanner(lab));
  let last = '';
  const timer = setInterval(() => {
    const summary = labSummary(lab);
    if (summary !== last) console.log(summary);
    last = summary;
  }, 5000);
  const stop = async () => {
    clearInterval(timer);
    console.log('\nStopping the simulators.');
    await lab.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}
