import { afterEach, describe, expect, it } from 'vitest';
import {
  type HecSimulator,
  type HecSimulatorOptions,
  startHecSimulator,
} from '../../../test/simulators/hec-simulator.ts';
import { systemClock } from '../../clock.ts';
import { createLogger } from '../../logger.ts';
import type { OutboundEvent } from '../../pipeline/shipment/outbound-event.ts';
import type { IndexingSiemClient } from '../siem-client.ts';
import { createHecDriver, type HecDriverOptions } from './hec-driver.ts';
import type { HecDestination } from './hec-settings.ts';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');
let sims: HecSimulator[] = [];
let drivers: IndexingSiemClient[] = [];
afterEach(async () => {
  await Promise.all(drivers.map((d) => d.close()));
  await Promise.all(sims.map((s) => s.close()));
  sims = [];
  drivers = [];
});

async function start(options: HecSimulatorOptions = {}): Promise<HecSimulator> {
  const sim = await startHecSimulator({ indexes: ['lab'], now: () => NOW, ...options });
  sims.push(sim);
  return sim;
}

function driverFor(
  sim: HecSimulator,
  overrides: Partial<HecDestination> = {},
  options: HecDriverOptions = {},
): IndexingSiemClient {
  const destination: HecDestination = {
    id: 'dest-hec',
    name: 'splunk-lab',
    driver: 'vendorA_hec',
    payload_format: 'leef',
    index: 'lab',
    enabled: true,
    url: sim.url,
    token: sim.token,
    management_url: sim.managementUrl,
    management_token: sim.managementToken,
    management_username: null,
    management_password: null,
    sourcetype: null,
    source: null,
    channel: null,
    tls_verify: true,
    ca_pem: null,
    ...overrides,
  };
  const driver = createHecDriver(
    destination,
    { log: createLogger('silent'), clock: systemClock },
    {
      wait: async () => true,
      ...options,
    },
  );
  drivers.push(driver);
  return driver;
}

/** Events at `times` (epoch ms) into `index`. */
async function ship(driver: IndexingSiemClient, index: string, times: number[]): Promise<void> {
  const events: OutboundEvent[] = times.map((time, i) => ({ line: `LEEF:2.0|S|T|1|E|^|n=${i}`, time }));
  const result = await driver.send(
    (async function* () {
      yield events;
    })(),
    { index },
  );
  expect(result.shipped).toBe(times.length);
}

describe('vendorA_hec driver: indexes', () => {
  it('creates a missing index once and reports an existing one as not created', async () => {
    const sim = await start();
    const driver = driverFor(sim);
    expect(await driver.ensureIndex('noise-web')).toEqual({ ok: true, index: 'noise-web', created: true });
    expect(sim.indexes.get('noise-web')?.datatype).toBe('event');
    expect(await driver.ensureIndex('noise-web')).toEqual({ ok: true, index: 'noise-web', created: false });
    const posts = sim.store.managementRequests.filter((r) => r.method === 'POST');
    expect(posts.map((r) => r.body.toString())).toEqual(['name=noise-web&output_mode=json']);
    expect(posts[0]?.headers.authorization).toBe(`Bearer ${sim.managementToken}`);
  });

  it('refuses wildcards and lists as index names without asking the SIEM', async () => {
    const sim = await start();
    const driver = driverFor(sim);
    for (const name of ['lab*', 'a,b', '*', 'Lab']) {
      const outcome = await driver.ensureIndex(name);
      expect(outcome.ok, name).toBe(false);
      expect(await driver.wipe([name])).toMatchObject([{ ok: false, index: name }]);
    }
    expect(sim.store.managementRequests).toHaveLength(0);
  });

  it('answers with an error, not an exception, when no management API is configured', async () => {
    const sim = await start();
    const driver = driverFor(sim, { management_url: null });
    expect(await driver.ensureIndex('noise-web')).toEqual({
      ok: false,
      index: 'noise-web',
      error: `SIEM "splunk-lab" ${sim.url}/: no management_url is configured`,
    });
  });

  it('names refused management credentials without showing them', async () => {
    const sim = await start();
    const driver = driverFor(sim, { management_token: 'wrong-management-token-xyz' });
    const outcome = await driver.ensureIndex('noise-web');
    expect(outcome).toEqual({
      ok: false,
      index: 'noise-web',
      error: `SIEM "splunk-lab" ${sim.managementUrl}/services/data/indexes/noise-web: HTTP 401 WARN call not properly authenticated (management credentials refused)`,
    });
  });
});

describe('vendorA_hec driver: wipe', () => {
  it('deletes every event of the index with search | delete, future-dated ones included, and reads the count', async () => {
    const sim = await start({ indexes: ['lab', 'other'] });
    const driver = driverFor(sim, {
      management_token: null,
      management_username: sim.managementUser.username,
      management_password: sim.managementUser.password,
    });
    // Rebased events end two hours in the future: latest_time=now would leave them behind.
    await ship(driver, 'lab', [NOW - 86_400_000, NOW - 1_000, NOW + 2 * 3_600_000]);
    await ship(driver, 'other', [NOW]);
    expect(await driver.wipe(['lab'])).toEqual([{ ok: true, index: 'lab', deleted: 3 }]);
    expect(sim.store.searchable('lab')).toHaveLength(0);
    expect(sim.store.searchable('other')).toHaveLength(1);
    const job = sim.store.managementRequests.find(
      (r) => r.path === '/services/search/jobs' && r.method === 'POST',
    );
    expect(Object.fromEntries(new URLSearchParams(job?.body.toString()))).toEqual({
      search: 'search index=lab | delete',
      exec_mode: 'normal',
      earliest_time: '0',
      latest_time: '2147483647',
      output_mode: 'json',
    });
    expect(job?.headers.authorization).toBe(
      `Basic ${Buffer.from(`${sim.managementUser.username}:${sim.managementUser.password}`).toString('base64')}`,
    );
    expect(await driver.wipe(['lab'])).toEqual([{ ok: true, index: 'lab', deleted: 0 }]);
  });

  it('polls the search job until it is done, backing off between polls', async () => {
    const sim = await start({ management: { pollsUntilDone: 5 } });
    const delays: number[] = [];
    const driver = driverFor(
      sim,
      {},
      {
        jobPollMs: 100,
        wait: async (ms) => {
          delays.push(ms);
          return true;
        },
      },
    );
    await ship(driver, 'lab', [NOW]);
    expect(await driver.wipe(['lab'])).toEqual([{ ok: true, index: 'lab', deleted: 1 }]);
    expect(delays).toEqual([100, 150, 225, 338]);
  });

  it('gives up on a search job that does not finish in time', async () => {
    const sim = await start({ management: { pollsUntilDone: 1_000 } });
    const driver = driverFor(sim, {}, { jobPollMs: 1_000, jobTimeoutMs: 5_000 });
    const [outcome] = await driver.wipe(['lab']);
    expect(outcome).toMatchObject({ ok: false, index: 'lab' });
    expect(outcome?.ok === false && outcome.error).toMatch(/search job .* not done after 5 s$/);
  });

  it('explains a refused delete: the user lacks can_delete, which admin does not have by default', async () => {
    const sim = await start({
      management: {
        users: [{ username: 'ops', password: 'ops-password-123', roles: ['admin'] }],
        bearerTokens: { 'ops-token-1234': 'ops' },
      },
    });
    const driver = driverFor(sim, { management_token: 'ops-token-1234' });
    expect(await driver.wipe(['lab'])).toEqual([
      {
        ok: false,
        index: 'lab',
        error: `SIEM "splunk-lab" ${sim.managementUrl}/services/search/jobs: search job refused: HTTP 400 FATAL Error in 'delete' command: You have insufficient privileges to delete events.; the management user needs the can_delete role (delete_by_keyword), which admin lacks by default`,
      },
    ]);
  });

  it('fails a wipe whose search job ends DONE with a FATAL message instead of reporting 0 deleted', async () => {
    const sim = await start({ management: { pollsUntilDone: 1 } });
    const driver = driverFor(sim, {}, { jobPollMs: 1 });
    await ship(driver, 'lab', [NOW]);
    const refusal = "Error in 'delete' command: You have insufficient privileges to delete events.";
    sim.managementFaults.next(5, {
      status: 200,
      match: { method: 'GET', path: /^\/services\/search\/jobs\/[^/]+$/ },
      body: {
        entry: [
          {
            content: {
              dispatchState: 'DONE',
              isDone: true,
              isFailed: false,
              messages: [{ type: 'FATAL', text: refusal }],
            },
          },
        ],
      },
    });
    sim.managementFaults.next(1, { status: 200, match: { path: /\/results$/ }, body: '' });
    const [outcome] = await driver.wipe(['lab']);
    expect(outcome).toMatchObject({ ok: false, index: 'lab' });
    expect(outcome?.ok === false && outcome.error).toContain(
      `search job ended with errors: FATAL ${refusal}`,
    );
    expect(outcome?.ok === false && outcome.error).toContain('can_delete role');
  });

  it('fails a wipe whose results carry an ERROR message and no count', async () => {
    const sim = await start({ management: { pollsUntilDone: 1 } });
    const driver = driverFor(sim, {}, { jobPollMs: 1 });
    sim.managementFaults.next(1, {
      status: 200,
      match: { path: /\/results$/ },
      body: {
        messages: [{ type: 'ERROR', text: 'Search not executed: the time range is not allowed' }],
        results: [],
      },
    });
    const [outcome] = await driver.wipe(['lab']);
    expect(outcome).toMatchObject({ ok: false, index: 'lab' });
    expect(outcome?.ok === false && outcome.error).toMatch(
      /\/results: the delete search reported errors: ERROR Search not executed: the time range is not allowed$/,
    );
  });

  it('reports an unreachable management API per index', async () => {
    const sim = await start();
    await sim.managementFaults.refuse();
    const driver = driverFor(sim);
    expect(await driver.wipe(['lab', 'history'])).toEqual([
      {
        ok: false,
        index: 'lab',
        error: `SIEM "splunk-lab" ${sim.managementUrl}/services/search/jobs: connection refused (ECONNREFUSED)`,
      },
      {
        ok: false,
        index: 'history',
        error: `SIEM "splunk-lab" ${sim.managementUrl}/services/search/jobs: connection refused (ECONNREFUSED)`,
      },
    ]);
  });
});

describe('vendorA_hec driver: check', () => {
  it('probes collector health, the token (empty /raw answers "No data"), the management API and the index', async () => {
    const sim = await start();
    const steps = await driverFor(sim).check();
    expect(steps).toEqual([
      {
        name: 'collector',
        ok: true,
        message: 'HTTP 200 HEC is healthy (code 17)',
        endpoint: `${sim.url}/services/collector/health`,
      },
      { name: 'token', ok: true, message: 'token accepted', endpoint: `${sim.url}/services/collector/raw` },
      {
        name: 'management',
        ok: true,
        message: 'management API answered: Splunk 9.2.1 on socdrill-hec-simulator',
        endpoint: `${sim.managementUrl}/services/server/info`,
      },
      {
        name: 'index',
        ok: true,
        message: 'index "lab" exists',
        endpoint: `${sim.managementUrl}/services/data/indexes/lab`,
      },
    ]);
  });

  it('reports each failing step with its cause: busy collector, refused token, missing index', async () => {
    const sim = await start();
    sim.busy = true;
    const steps = await driverFor(sim, { token: 'not-a-known-token-0000', index: 'nope' }).check();
    expect(steps.map((s) => [s.name, s.ok, s.message])).toEqual([
      ['collector', false, 'HTTP 503 HEC is unhealthy, queues are full (code 18)'],
      ['token', false, 'HTTP 403 Invalid token (code 4): the HEC token was refused'],
      ['management', true, 'management API answered: Splunk 9.2.1 on socdrill-hec-simulator'],
      ['index', false, 'index "nope" does not exist'],
    ]);
    expect(JSON.stringify(steps)).not.toContain('not-a-known-token-0000');
  });

  it('says when the token needs a channel, and when management credentials are missing', async () => {
    const sim = await start({ tokens: [{ token: '11111111-2222-3333-4444-555555555555', useAck: true }] });
    const steps = await driverFor(sim, { management_token: null }).check();
    expect(steps.map((s) => [s.name, s.ok, s.message])).toEqual([
      ['collector', true, 'HTTP 200 HEC is healthy (code 17)'],
      [
        'token',
        false,
        'HTTP 400 Data channel is missing (code 10): the token uses indexer acknowledgement; set a channel',
      ],
      [
        'management',
        false,
        'no management credentials are configured (management_token or username and password)',
      ],
    ]);
  });
});
