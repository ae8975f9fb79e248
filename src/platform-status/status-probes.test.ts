import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinKindsWith, type ClientWrapper } from '../../test/helpers/siem-kinds.ts';
import { openTestDatabase } from '../../test/helpers/test-db.ts';
import { manualClock } from '../clock.ts';
import type { DbHandle } from '../db/create-db.ts';
import { createDestination } from '../destinations/destination-service.ts';
import type { Destination } from '../destinations/destination-types.ts';
import { createLogger } from '../logger.ts';
import { createSecretBox } from '../secrets/secret-box.ts';
import { SiemRegistry } from '../siems/registry.ts';
import type { CheckStep, SiemClient } from '../siems/siem-client.ts';
import {
  databaseProbe,
  destinationProbe,
  enabledDestinationProbes,
  heartbeatProbe,
  ProbeRegistry,
  resultFromCheckSteps,
} from './status-probes.ts';

const signal = new AbortController().signal;
const step = (name: string, ok: boolean, message = ok ? 'ok' : 'failed'): CheckStep => ({
  name,
  ok,
  message,
});

/** A client whose check answers the given steps and records what happened to it. */
function fakeClient(destination: Destination, steps: CheckStep[], log: string[]): SiemClient {
  return {
    intake: 'events',
    destination,
    send: async () => ({ shipped: 0, failed: 0, retried: 0, bytes: 0, errors: [], failures: [] }),
    check: async () => {
      log.push(`check ${destination.name}`);
      return steps;
    },
    close: async () => {
      log.push(`close ${destination.name}`);
    },
  };
}

/** The built-in kinds with clients built by `wrap`. */
const registry = (wrap: ClientWrapper) =>
  new SiemRegistry(builtinKindsWith(wrap)({ hecRetryNotFound: false }), {
    log: createLogger('silent'),
    clock: manualClock(0),
  });

describe('status probes', () => {
  let handle: DbHandle;
  const box = createSecretBox(Buffer.alloc(32, 9));
  /** Destinations as the context reads them; clients answer `up` with one step. */
  const deps = (wrap: ClientWrapper = (d) => fakeClient(d, [step('connection', true)], [])) => ({
    db: handle.db,
    secretBox: box,
    siems: registry(wrap),
  });

  beforeAll(async () => {
    handle = await openTestDatabase();
    await createDestination(deps(), {
      name: 'hec-on',
      driver: 'vendorA_hec',
      url: 'https://hec.example.test:8088',
      token: 'tok-secret-1',
      index: 'lab',
    });
    await createDestination(deps(), {
      name: 'bulk-off',
      driver: 'vendorB_bulk',
      url: 'https://es.example.test:9200',
      index: 'lab',
      enabled: false,
    });
    await createDestination(deps(), {
      name: 'syslog-on',
      driver: 'syslog_tcp',
      host: 'q.example.test',
      port: 514,
    });
  });
  afterAll(async () => {
    await handle.close();
  });

  it('checks the database with select 1', async () => {
    const probe = databaseProbe(handle.db, 'pglite');
    expect(probe).toMatchObject({
      id: 'database',
      kind: 'database',
      name: 'Database',
      labels: { engine: 'pglite' },
    });
    expect(await probe.check(signal)).toEqual({ state: 'up' });
  });

  it('lists a probe for each enabled destination, labelled with its kind', async () => {
    const probes = await enabledDestinationProbes(deps())();
    expect(probes.map((p) => [p.id, p.kind, p.name, p.labels])).toEqual([
      ['siem:hec-on', 'siem', 'hec-on', { driver: 'vendorA_hec' }],
      ['siem:syslog-on', 'siem', 'syslog-on', { driver: 'syslog_tcp' }],
    ]);
    expect(await probes[0]?.check(signal)).toEqual({ state: 'up' });
  });

  it("runs the kind's check with the decrypted destination and closes the client", async () => {
    const log: string[] = [];
    let seenToken = '';
    const probes = await enabledDestinationProbes(
      deps((d) => {
        if (d.driver === 'vendorA_hec') seenToken = d.token as string;
        return fakeClient(d, [step('collector', true), step('management', false, 'HTTP 401')], log);
      }),
    )();
    expect(await probes[0]?.check(signal)).toEqual({ state: 'degraded', reason: 'management: HTTP 401' });
    expect(seenToken).toBe('tok-secret-1');
    expect(log).toEqual(['check hec-on', 'close hec-on']);
  });

  it('lists a destination whose secrets cannot be opened as unknown, alone, and never decrypts disabled ones', async () => {
    // Sealed with another key: one row unreadable, the rest must still be checked.
    const other = createSecretBox(Buffer.alloc(32, 7));
    await createDestination(
      { ...deps(), secretBox: other },
      {
        name: 'foreign-key',
        driver: 'vendorA_hec',
        url: 'https://hec.example.test:8088',
        token: 'tok-x',
        index: 'lab',
      },
    );
    await createDestination(
      { ...deps(), secretBox: other },
      {
        name: 'foreign-off',
        driver: 'vendorA_hec',
        url: 'https://hec.example.test:8088',
        token: 'tok-y',
        index: 'lab',
        enabled: false,
      },
    );
    try {
      const probes = await enabledDestinationProbes(deps())();
      expect(probes.map((p) => p.id)).toEqual(['siem:foreign-key', 'siem:hec-on', 'siem:syslog-on']);
      const broken = await probes[0]?.check(signal);
      expect(broken?.state).toBe('unknown');
      expect(broken?.reason).toMatch(/^its settings cannot be read: /);
      expect(probes[0]?.labels).toEqual({ driver: 'vendorA_hec' });
      expect(await probes[1]?.check(signal)).toEqual({ state: 'up' });
    } finally {
      await handle.db
        .deleteFrom('destinations')
        .where('name', 'in', ['foreign-key', 'foreign-off'])
        .execute();
    }
  });

  it('maps check steps to a state', () => {
    expect(resultFromCheckSteps([step('a', true), step('b', true)])).toEqual({ state: 'up' });
    expect(resultFromCheckSteps([step('tcp', false, 'ECONNREFUSED'), step('tls', false, 'skipped')])).toEqual(
      {
        state: 'down',
        reason: 'tcp: ECONNREFUSED; tls: skipped',
      },
    );
    expect(resultFromCheckSteps([])).toEqual({ state: 'unknown', reason: 'the check reported nothing' });
  });

  it('closes the client even when its check throws', async () => {
    const log: string[] = [];
    const destination = { name: 'x', driver: 'vendorA_hec' } as Destination;
    const probe = destinationProbe(
      destination,
      registry((d) => ({ ...fakeClient(d, [], log), check: async () => Promise.reject(new Error('bug')) })),
    );
    await expect(probe.check(signal)).rejects.toThrow('bug');
    expect(log).toEqual(['close x']);
  });

  it('judges a heartbeat by its age', async () => {
    const clock = manualClock(Date.parse('2026-03-01T12:00:00.000Z'));
    let beat: number | null = null;
    const probe = heartbeatProbe({
      id: 'scheduler',
      kind: 'scheduler',
      name: 'Scheduler',
      clock,
      maxAgeMs: 60_000,
      lastBeat: () => beat,
    });
    expect(await probe.check(signal)).toEqual({ state: 'unknown', reason: 'no heartbeat yet' });
    beat = clock.now() - 60_000;
    expect(await probe.check(signal)).toEqual({ state: 'up' });
    beat = clock.now() - 60_001;
    expect(await probe.check(signal)).toEqual({
      state: 'down',
      reason: 'no heartbeat since 2026-03-01T11:58:59.999Z',
    });
  });

  it('registers, replaces and removes probes by id', () => {
    const registry = new ProbeRegistry();
    const a = {
      id: 'storage',
      kind: 'storage' as const,
      name: 'A',
      check: async () => ({ state: 'up' as const }),
    };
    const b = { ...a, name: 'B' };
    const removeA = registry.register(a);
    const removeB = registry.register(b);
    expect(registry.list().map((p) => p.name)).toEqual(['B']);
    removeA();
    expect(registry.list().map((p) => p.name)).toEqual(['B']);
    removeB();
    expect(registry.list()).toEqual([]);
  });
});
