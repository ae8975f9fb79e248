import { afterEach, describe, expect, it } from 'vitest';
import { createTlsFixtures } from '../../../../test/helpers/tls-fixtures.ts';
import {
  type SiemQSimulator,
  type SiemQSimulatorOptions,
  startSiemQSimulator,
} from '../../../../test/simulators/siem-q-simulator.ts';
import type { LogSourceAdmin, LogSourceSpec } from '../../log-source-admin.ts';
import type { Wait } from '../../shared/backoff.ts';
import { secretScrubber } from '../../shared/secret-scrubber.ts';
import type { SiemQDestinationSettings } from '../syslog-tcp-settings.ts';
import { createSiemQAdmin, logSourceName } from './siem-q-admin.ts';
import { SiemQConsole } from './siem-q-console.ts';
import { type ResolvedSetup, SETUP_TTL_MS, SiemQSetupCache } from './siem-q-setup-cache.ts';

const NOW = Date.UTC(2026, 2, 1, 12, 0, 0);
const HOUR = 3_600_000;
const LSM = '/api/config/event_sources/log_source_management';
const LOG_SOURCES = `${LSM}/log_sources`;
const COLLECTORS = '/api/config/event_sources/event_collectors';

let sims: SiemQSimulator[] = [];
let consoles: SiemQConsole[] = [];
afterEach(async () => {
  await Promise.all(consoles.map((c) => c.close()));
  await Promise.all(sims.map((s) => s.close()));
  sims = [];
  consoles = [];
});

async function start(options: SiemQSimulatorOptions = {}): Promise<SiemQSimulator> {
  const sim = await startSiemQSimulator({ now: () => NOW, ...options });
  sims.push(sim);
  return sim;
}

const wait: Wait = async (_ms, signal) => !signal.aborted;

interface AdminOptions {
  settings?: Partial<SiemQDestinationSettings>;
  offenseCleanup?: boolean;
  cache?: SiemQSetupCache;
  revision?: string;
}

function adminFor(sim: SiemQSimulator, o: AdminOptions = {}): LogSourceAdmin {
  const settings: SiemQDestinationSettings = {
    console_url: sim.url,
    token: sim.token,
    event_collector_id: null,
    log_source_type: 'Universal LEEF',
    log_source_protocol: 'Syslog',
    closing_reason: 'Non-Issue',
    tls_verify: true,
    ca_pem: null,
    ...o.settings,
  } as SiemQDestinationSettings;
  const api = new SiemQConsole(
    { console_url: settings.console_url, token: settings.token ?? null, tls_verify: true, ca_pem: null },
    'siemq',
    secretScrubber({ secrets: [sim.token, settings.token] }),
    { wait, now: () => NOW, random: () => 0.5 },
  );
  consoles.push(api);
  return createSiemQAdmin(
    {
      siem: 'siemq',
      revision: o.revision ?? 'r1',
      settings,
      provision: true,
      offenseCleanup: o.offenseCleanup ?? true,
    },
    api,
    o.cache ?? new SiemQSetupCache(() => NOW),
  );
}

const spec = (over: Partial<LogSourceSpec> = {}): LogSourceSpec => ({
  identifier: 'lab-ex1-s2',
  name: 'Exercise 1 · Section 2',
  description: 'socdrill exercise 1, section 2',
  ...over,
});

/** Requests that created a log source. */
const creates = (sim: SiemQSimulator) =>
  sim.requests.filter((r) => r.method === 'POST' && r.path === LOG_SOURCES);

describe('SIEM Q admin setup', () => {
  it('resolves collector, log source type and protocol by name', async () => {
    const sim = await start();
    const admin = adminFor(sim);
    const setup = (await admin.setup()) as ResolvedSetup;
    expect(setup).toEqual({
      ok: true,
      apiVersion: '26.0',
      collector: { id: 7, name: 'eventcollector0 :: siemq-aio' },
      logSourceType: { id: 277, name: 'Universal LEEF' },
      protocol: { id: 0, name: 'Syslog' },
      identifierParam: 0,
      encodingParam: 1,
    });
    const typeCall = sim.requests.find((r) => r.path === `${LSM}/log_source_types`);
    expect(new URL(typeCall?.url ?? '', sim.url).searchParams.get('filter')).toBe('name="Universal LEEF"');
    expect(admin.console.replace(/\/$/, '')).toBe(sim.url);
  });

  it('resolves another type and a protocol named in another case', async () => {
    const sim = await start();
    const admin = adminFor(sim, {
      settings: { log_source_type: 'Linux OS', log_source_protocol: 'tcp multiline syslog' },
    });
    const setup = await admin.setup();
    expect(setup).toMatchObject({
      ok: true,
      logSourceType: { id: 11, name: 'Linux OS' },
      protocol: { id: 30, name: 'TCP Multiline Syslog' },
    });
  });

  it('caches the resolution: a second setup makes no request', async () => {
    const sim = await start();
    const admin = adminFor(sim);
    const first = await admin.setup();
    const requests = sim.requests.length;
    expect(requests).toBeGreaterThan(0);
    const second = await admin.setup();
    expect(second).toEqual(first);
    expect(sim.requests).toHaveLength(requests);
  });

  it('shares the cache between admins of the same revision, not of another one', async () => {
    const sim = await start();
    const cache = new SiemQSetupCache(() => NOW);
    await adminFor(sim, { cache }).setup();
    const after = sim.requests.length;
    await adminFor(sim, { cache }).setup();
    expect(sim.requests).toHaveLength(after);
    await adminFor(sim, { cache, revision: 'r2' }).setup();
    expect(sim.requests.length).toBeGreaterThan(after);
  });

  it('resolves again once the cache entry is older than its TTL', async () => {
    const sim = await start();
    let now = NOW;
    const admin = adminFor(sim, { cache: new SiemQSetupCache(() => now) });
    await admin.setup();
    const after = sim.requests.length;
    now += SETUP_TTL_MS + 1;
    await admin.setup();
    expect(sim.requests.length).toBeGreaterThan(after);
  });

  it('sends the cached API version on later calls of a fresh console client', async () => {
    const sim = await start({ versions: ['12.0', '19.0'] });
    const cache = new SiemQSetupCache(() => NOW);
    await adminFor(sim, { cache }).setup();
    const admin = adminFor(sim, { cache });
    await admin.read([1]);
    expect(sim.requests.at(-1)?.headers.version).toBe('19.0');
  });

  it('uses the configured event collector id', async () => {
    const sim = await start({
      collectors: [
        { id: 7, name: 'eventcollector0 :: siemq-aio', component_name: 'eventcollector0', host_id: 53 },
        { id: 12, name: 'eventcollector1 :: edge', component_name: 'eventcollector1', host_id: 60 },
      ],
    });
    const admin = adminFor(sim, { settings: { event_collector_id: 12 } });
    expect(await admin.setup()).toMatchObject({
      ok: true,
      collector: { id: 12, name: 'eventcollector1 :: edge' },
    });
    expect(sim.requests.some((r) => r.path === `${COLLECTORS}/12`)).toBe(true);
  });

  it('reports an unknown event_collector_id as not_found', async () => {
    const sim = await start();
    const admin = adminFor(sim, { settings: { event_collector_id: 99 } });
    const setup = await admin.setup();
    expect(setup).toMatchObject({ ok: false, reason: 'not_found' });
    expect(!setup.ok && setup.message).toContain(
      'event collector 99 does not exist (siem_q.event_collector_id)',
    );
  });

  it('refuses to choose among several collectors, naming them', async () => {
    const sim = await start({
      collectors: [
        { id: 7, name: 'eventcollector0 :: siemq-aio', component_name: 'eventcollector0', host_id: 53 },
        { id: 12, name: 'eventcollector1 :: edge', component_name: 'eventcollector1', host_id: 60 },
      ],
    });
    const admin = adminFor(sim);
    const setup = await admin.setup();
    expect(setup).toMatchObject({ ok: false, reason: 'refused' });
    if (setup.ok) return;
    expect(setup.message).toContain('2 event collectors');
    expect(setup.message).toContain('"eventcollector0 :: siemq-aio" (id 7)');
    expect(setup.message).toContain('"eventcollector1 :: edge" (id 12)');
    expect(setup.message).toContain('siem_q.event_collector_id');
  });

  it('reports a console without collectors as not_found', async () => {
    const sim = await start({ collectors: [] });
    const setup = await adminFor(sim).setup();
    expect(setup).toMatchObject({ ok: false, reason: 'not_found' });
    expect(!setup.ok && setup.message).toContain('lists no event collector');
  });

  it('reports an unknown log source type name as not_found', async () => {
    const sim = await start();
    const admin = adminFor(sim, { settings: { log_source_type: 'Universal Leef' } });
    const setup = await admin.setup();
    expect(setup).toMatchObject({ ok: false, reason: 'not_found' });
    expect(!setup.ok && setup.message).toContain(
      'no log source type is named "Universal Leef" (siem_q.log_source_type)',
    );
  });

  it('reports an unknown protocol name as not_found', async () => {
    const sim = await start();
    const setup = await adminFor(sim, { settings: { log_source_protocol: 'Carrier Pigeon' } }).setup();
    expect(setup).toMatchObject({ ok: false, reason: 'not_found' });
    expect(!setup.ok && setup.message).toContain('(siem_q.log_source_protocol)');
  });

  it('does not cache a failed resolution', async () => {
    const sim = await start();
    const admin = adminFor(sim);
    sim.faults.next(1, { status: 500, match: { path: `${LSM}/log_source_types` } });
    expect(await admin.setup()).toMatchObject({ ok: false, reason: 'refused' });
    expect(await admin.setup()).toMatchObject({ ok: true });
  });

  it('reports a refused token as auth', async () => {
    const sim = await start();
    const setup = await adminFor(sim, { settings: { token: 'not-the-token' } }).setup();
    expect(setup).toMatchObject({ ok: false, reason: 'auth' });
  });
});

describe('SIEM Q admin ensure', () => {
  it('creates the log source with the resolved ids and the identifier parameter', async () => {
    const sim = await start();
    const admin = adminFor(sim);
    const outcome = await admin.ensure(spec());
    expect(outcome).toEqual({
      ok: true,
      created: true,
      source: {
        id: 101,
        name: 'Exercise 1 · Section 2',
        identifier: 'lab-ex1-s2',
        enabled: true,
        typeId: 277,
        protocolTypeId: 0,
        requiresDeploy: false,
      },
    });
    const [create] = creates(sim);
    expect(JSON.parse(create?.body.toString() ?? '')).toEqual({
      name: 'Exercise 1 · Section 2',
      description: 'socdrill exercise 1, section 2',
      type_id: 277,
      protocol_type_id: 0,
      target_event_collector_id: 7,
      enabled: true,
      coalesce_events: false,
      store_event_payload: true,
      protocol_parameters: [
        { id: 0, name: 'identifier', value: 'lab-ex1-s2' },
        { id: 1, name: 'incomingPayloadEncoding', value: 'UTF-8' },
      ],
    });
    const stored = sim.store.logSources.get(101);
    expect(stored).toMatchObject({
      type_id: 277,
      protocol_type_id: 0,
      target_event_collector_id: 7,
      coalesce_events: false,
    });
    expect(stored && sim.store.identifierOf(stored)).toBe('lab-ex1-s2');
  });

  it('is idempotent: a second ensure finds the log source and creates nothing', async () => {
    const sim = await start();
    const admin = adminFor(sim);
    const first = await admin.ensure(spec());
    const second = await admin.ensure(spec());
    expect(second).toEqual({ ...first, created: false });
    expect(creates(sim)).toHaveLength(1);
    expect(sim.store.logSources.size).toBe(1);
  });

  it('reuses a known id without searching or creating', async () => {
    const sim = await start();
    const known = sim.store.addLogSource({
      id: 140,
      name: 'Renamed by an analyst',
      identifier: 'lab-ex1-s2',
    });
    const admin = adminFor(sim);
    await admin.setup();
    const before = sim.requests.length;
    const outcome = await admin.ensure(spec({ knownId: known.id }));
    expect(outcome).toMatchObject({
      ok: true,
      created: false,
      source: { id: 140, name: 'Renamed by an analyst' },
    });
    expect(sim.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET ${LOG_SOURCES}/140`,
    ]);
  });

  it('updates a known log source whose identifier changed in place', async () => {
    const sim = await start();
    sim.store.addLogSource({ id: 140, name: 'Exercise 1 · Section 2', identifier: 'lab-ex1-old' });
    const admin = adminFor(sim);
    const outcome = await admin.ensure(spec({ knownId: 140 }));
    expect(outcome).toMatchObject({
      ok: true,
      created: false,
      source: { id: 140, identifier: 'lab-ex1-s2' },
    });
    expect(creates(sim)).toHaveLength(0);
    const stored = sim.store.logSources.get(140);
    expect(stored && sim.store.identifierOf(stored)).toBe('lab-ex1-s2');
    expect(stored?.protocol_parameters).toContainEqual({
      id: 1,
      name: 'incomingPayloadEncoding',
      value: 'UTF-8',
    });
    expect(sim.store.logSources.size).toBe(1);
  });

  it('creates again when the known id was deleted', async () => {
    const sim = await start();
    const admin = adminFor(sim);
    const first = await admin.ensure(spec());
    if (!first.ok) throw new Error(first.message);
    sim.store.deleteLogSource(first.source.id);
    const again = await admin.ensure(spec({ knownId: first.source.id }));
    expect(again).toMatchObject({ ok: true, created: true, source: { identifier: 'lab-ex1-s2' } });
    expect(again.ok && again.source.id).not.toBe(first.source.id);
    expect(creates(sim)).toHaveLength(2);
  });

  it('finds its log source by identifier when it exists under another name (409/1002)', async () => {
    const sim = await start();
    sim.store.addLogSource({ id: 150, name: 'Someone renamed it', identifier: 'lab-ex1-s2' });
    const admin = adminFor(sim);
    const outcome = await admin.ensure(spec());
    expect(outcome).toMatchObject({
      ok: true,
      created: false,
      source: { id: 150, identifier: 'lab-ex1-s2' },
    });
    expect(creates(sim).map((r) => r.status)).toEqual([409]);
    expect(sim.store.logSources.size).toBe(1);
  });

  it('takes a name carrying the identifier when the name belongs to another identifier', async () => {
    const sim = await start();
    sim.store.addLogSource({ id: 150, name: 'Exercise 1 · Section 2', identifier: 'other-ex1-s2' });
    const admin = adminFor(sim);
    const outcome = await admin.ensure(spec());
    expect(outcome).toMatchObject({
      ok: true,
      created: true,
      source: { name: 'Exercise 1 · Section 2 (lab-ex1-s2)', identifier: 'lab-ex1-s2' },
    });
    // Found again by that name, never the other one's.
    const again = await admin.ensure(spec());
    expect(again).toMatchObject({
      ok: true,
      created: false,
      source: { name: 'Exercise 1 · Section 2 (lab-ex1-s2)' },
    });
    expect(creates(sim)).toHaveLength(1);
    expect(sim.store.logSources.get(150)?.name).toBe('Exercise 1 · Section 2');
  });

  it('looks again after a create that lost the name to a concurrent one of its own (409/1001)', async () => {
    const sim = await start();
    const admin = adminFor(sim);
    await admin.setup();
    // The look finds nothing; the create is refused as the name was just taken.
    sim.faults.next(1, { status: 200, body: [], match: { method: 'GET', path: LOG_SOURCES } });
    sim.store.addLogSource({ id: 160, name: 'Exercise 1 · Section 2', identifier: 'lab-ex1-s2' });
    const outcome = await admin.ensure(spec());
    expect(outcome).toMatchObject({ ok: true, created: false, source: { id: 160 } });
    expect(creates(sim).map((r) => r.status)).toEqual([409]);
  });

  it('takes the name carrying the identifier when another exercise took the name meanwhile (409/1001)', async () => {
    const sim = await start();
    const admin = adminFor(sim);
    await admin.setup();
    sim.faults.next(1, { status: 200, body: [], match: { method: 'GET', path: LOG_SOURCES } });
    sim.store.addLogSource({ id: 160, name: 'Exercise 1 · Section 2', identifier: 'other-ex1-s2' });
    const outcome = await admin.ensure(spec());
    expect(outcome).toMatchObject({
      ok: true,
      created: true,
      source: { name: 'Exercise 1 · Section 2 (lab-ex1-s2)', identifier: 'lab-ex1-s2' },
    });
    expect(creates(sim).map((r) => r.status)).toEqual([409, 201]);
  });

  it('gives up on a name that stays taken', async () => {
    const sim = await start();
    const admin = adminFor(sim);
    await admin.setup();
    sim.faults.next(10, { status: 200, body: [], match: { method: 'GET', path: LOG_SOURCES } });
    sim.faults.next(10, {
      status: 409,
      body: { code: 1001, message: 'A log source with that name already exists.' },
      match: { method: 'POST', path: LOG_SOURCES },
    });
    const outcome = await admin.ensure(spec());
    expect(outcome).toMatchObject({ ok: false, reason: 'refused' });
    expect(!outcome.ok && outcome.message).toContain(
      'the log source name "Exercise 1 · Section 2" stays taken',
    );
    expect(creates(sim)).toHaveLength(3);
  });

  it('enables a disabled log source it finds', async () => {
    const sim = await start();
    sim.store.addLogSource({
      id: 170,
      name: 'Exercise 1 · Section 2',
      identifier: 'lab-ex1-s2',
      enabled: false,
    });
    const admin = adminFor(sim);
    const outcome = await admin.ensure(spec());
    expect(outcome).toMatchObject({ ok: true, created: false, source: { id: 170, enabled: true } });
    expect(sim.store.logSources.get(170)?.enabled).toBe(true);
  });

  it('reports requires_deploy of a created log source, cleared after a deploy', async () => {
    const sim = await start({ requiresDeployOnCreate: true });
    const admin = adminFor(sim);
    const created = await admin.ensure(spec());
    expect(created).toMatchObject({ ok: true, created: true, source: { requiresDeploy: true } });
    if (!created.ok) return;
    const pending = await admin.read([created.source.id]);
    expect(pending.ok && pending.sources.get(created.source.id)?.requiresDeploy).toBe(true);
    sim.store.deploy();
    const deployed = await admin.read([created.source.id]);
    expect(deployed.ok && deployed.sources.get(created.source.id)?.requiresDeploy).toBe(false);
    const again = await admin.ensure(spec({ knownId: created.source.id }));
    expect(again).toMatchObject({ ok: true, created: false, source: { requiresDeploy: false } });
  });

  it('clean names: no backslash, one space, at most 255 characters', async () => {
    const sim = await start();
    const admin = adminFor(sim);
    const long = `Ex\\1   ${'n'.repeat(300)}`;
    const outcome = await admin.ensure(spec({ name: long }));
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.source.name).toBe(logSourceName(long));
    expect(outcome.source.name.startsWith('Ex/1 nnn')).toBe(true);
    expect(outcome.source.name).toHaveLength(255);
    expect(logSourceName(long, 'lab-ex1-s2').endsWith(' (lab-ex1-s2)')).toBe(true);
    expect(logSourceName(long, 'lab-ex1-s2')).toHaveLength(255);
  });

  it('returns a setup failure without touching log sources', async () => {
    const sim = await start();
    const admin = adminFor(sim, { settings: { log_source_type: 'Nope' } });
    const outcome = await admin.ensure(spec());
    expect(outcome).toMatchObject({ ok: false, reason: 'not_found' });
    expect(sim.requests.some((r) => r.path === LOG_SOURCES)).toBe(false);
  });

  it('forgets cached ids the console refuses as unknown and resolves them again', async () => {
    const sim = await start();
    const admin = adminFor(sim);
    await admin.setup();
    const leef = sim.store.logSourceTypes.find((t) => t.id === 277);
    if (leef) leef.id = 278;
    const refused = await admin.ensure(spec());
    expect(refused).toMatchObject({ ok: false, reason: 'refused' });
    const again = await admin.ensure(spec());
    expect(again).toMatchObject({ ok: true, created: true });
    expect(JSON.parse(creates(sim).at(-1)?.body.toString() ?? '{}').type_id).toBe(278);
  });

  it('find returns the log sources of the identifiers that exist, in one listing', async () => {
    const sim = await start();
    sim.store.addLogSource({ id: 180, name: 'a', identifier: 'lab-a' });
    sim.store.addLogSource({ id: 181, name: 'b', identifier: 'lab-b', type_id: 11 });
    const admin = adminFor(sim);
    const found = await admin.find(['lab-a', 'lab-b', 'lab-none']);
    expect(found.ok).toBe(true);
    // Another type's log source is not ours.
    expect(found.ok && [...found.sources.entries()].map(([k, v]) => [k, v.id])).toEqual([['lab-a', 180]]);
  });
});

describe('SIEM Q admin read', () => {
  it('reads the log sources of the ids, leaving out deleted ones', async () => {
    const sim = await start();
    sim.store.addLogSource({ id: 201, name: 'one', identifier: 'h1' });
    sim.store.addLogSource({ id: 202, name: 'two', identifier: 'h2', enabled: false });
    sim.store.addLogSource({ id: 203, name: 'three', identifier: 'h3' });
    sim.store.deleteLogSource(203);
    const admin = adminFor(sim);
    const result = await admin.read([201, 202, 203, 201]);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect([...result.sources.keys()].sort()).toEqual([201, 202]);
    expect(result.sources.get(202)).toEqual({
      id: 202,
      name: 'two',
      identifier: 'h2',
      enabled: false,
      typeId: 277,
      protocolTypeId: 0,
      requiresDeploy: false,
    });
  });

  it('reads many ids in chunks', async () => {
    const sim = await start();
    const ids: number[] = [];
    for (let i = 0; i < 120; i++)
      ids.push(sim.store.addLogSource({ name: `ls ${i}`, identifier: `h${i}` }).id);
    const admin = adminFor(sim);
    await admin.setup();
    const before = sim.requests.length;
    const result = await admin.read(ids);
    expect(result.ok && result.sources.size).toBe(120);
    expect(sim.requests.length - before).toBe(3);
  });

  it('passes on a refused read', async () => {
    const sim = await start();
    const admin = adminFor(sim);
    await admin.setup();
    sim.faults.next(1, { status: 500, match: { path: LOG_SOURCES } });
    expect(await admin.read([1])).toMatchObject({ ok: false, reason: 'refused' });
  });
});

describe('SIEM Q admin closeOffenses', () => {
  async function seeded() {
    const sim = await start();
    const ours1 = sim.store.addLogSource({ name: 'ours 1', identifier: 'lab-1' }).id;
    const ours2 = sim.store.addLogSource({ name: 'ours 2', identifier: 'lab-2' }).id;
    const theirs = sim.store.addLogSource({ name: 'theirs', identifier: 'other' }).id;
    return { sim, ours1, ours2, theirs };
  }

  it('closes the open and hidden offenses of the ids in the window, each once', async () => {
    const { sim, ours1, ours2, theirs } = await seeded();
    const s = sim.store;
    const open = s.addOffense({ log_source_ids: [ours1], start_time: NOW - HOUR }).id;
    const hidden = s.addOffense({ log_source_ids: [ours2], start_time: NOW - HOUR, status: 'HIDDEN' }).id;
    const both = s.addOffense({ log_source_ids: [ours1, ours2], start_time: NOW - HOUR }).id;
    const shared = s.addOffense({ log_source_ids: [theirs, ours2], start_time: NOW - HOUR }).id;
    const closed = s.addOffense({ log_source_ids: [ours1], start_time: NOW - HOUR, status: 'CLOSED' }).id;
    const other = s.addOffense({ log_source_ids: [theirs], start_time: NOW - HOUR }).id;
    const before = s.addOffense({ log_source_ids: [ours1], start_time: NOW - 3 * HOUR }).id;
    const after = s.addOffense({ log_source_ids: [ours1], start_time: NOW + HOUR }).id;
    const atEdge = s.addOffense({ log_source_ids: [ours1], start_time: NOW - 2 * HOUR }).id;

    const admin = adminFor(sim);
    const outcome = await admin.closeOffenses({
      logSourceIds: [ours1, ours2, ours1],
      openedFrom: NOW - 2 * HOUR,
      openedUntil: NOW,
    });
    expect(outcome).toEqual({ found: 5, closed: 5, failed: 0, errors: [], listFailed: false });
    // Closed a few at a time: each once, in any order.
    expect([...s.closeCalls].sort((x, y) => x - y)).toEqual(
      [open, hidden, both, shared, atEdge].sort((x, y) => x - y),
    );
    for (const id of [open, hidden, both, shared, atEdge]) {
      expect(s.offenses.get(id)).toMatchObject({ status: 'CLOSED', closing_reason_id: 54 });
    }
    for (const id of [other, before, after]) expect(s.offenses.get(id)?.status).toBe('OPEN');
    expect(s.offenses.get(closed)?.closing_reason_id).not.toBe(null);
    const close = sim.requests.find((r) => r.method === 'POST' && r.path === `/api/siem/offenses/${open}`);
    expect(new URL(close?.url ?? '', sim.url).searchParams.get('closing_reason_id')).toBe('54');
  });

  it('closes any time without a window, and nothing a second time', async () => {
    const { sim, ours1 } = await seeded();
    const a = sim.store.addOffense({ log_source_ids: [ours1], start_time: NOW - 1_000 * HOUR }).id;
    const admin = adminFor(sim);
    expect(await admin.closeOffenses({ logSourceIds: [ours1] })).toMatchObject({ found: 1, closed: 1 });
    expect(await admin.closeOffenses({ logSourceIds: [ours1] })).toEqual({
      found: 0,
      closed: 0,
      failed: 0,
      errors: [],
      listFailed: false,
    });
    expect(sim.store.closeCalls).toEqual([a]);
  });

  it('does nothing for no ids', async () => {
    const { sim } = await seeded();
    const admin = adminFor(sim);
    expect(await admin.closeOffenses({ logSourceIds: [] })).toEqual({
      found: 0,
      closed: 0,
      failed: 0,
      errors: [],
      listFailed: false,
    });
    expect(sim.requests).toHaveLength(0);
  });

  it('uses the closing reason found by its text', async () => {
    const { sim, ours1 } = await seeded();
    const id = sim.store.addOffense({ log_source_ids: [ours1] }).id;
    const admin = adminFor(sim, { settings: { closing_reason: 'Policy Violation' } });
    expect(await admin.closeOffenses({ logSourceIds: [ours1] })).toMatchObject({
      found: 1,
      closed: 1,
      failed: 0,
    });
    expect(sim.store.offenses.get(id)?.closing_reason_id).toBe(56);
  });

  it('counts an offense whose close fails, with its error, and closes the rest', async () => {
    const { sim, ours1 } = await seeded();
    const failing = sim.store.addOffense({ log_source_ids: [ours1] }).id;
    const fine = sim.store.addOffense({ log_source_ids: [ours1] }).id;
    sim.store.failClose.set(failing, {
      status: 403,
      code: 1009,
      message: 'You do not have the required capabilities.',
    });
    const admin = adminFor(sim);
    const outcome = await admin.closeOffenses({ logSourceIds: [ours1] });
    expect(outcome).toMatchObject({ found: 2, closed: 1, failed: 1, listFailed: false });
    expect(outcome.errors).toHaveLength(1);
    expect(outcome.errors[0]).toContain(`/api/siem/offenses/${failing}`);
    expect(outcome.errors[0]).toContain('HTTP 403 (code 1009): You do not have the required capabilities.');
    expect([...sim.store.closeCalls].sort()).toEqual([failing, fine].sort());
    expect(sim.store.offenses.get(fine)?.status).toBe('CLOSED');
  });

  it('counts a conflict on a still open offense as failed', async () => {
    const { sim, ours1 } = await seeded();
    const id = sim.store.addOffense({ log_source_ids: [ours1] }).id;
    sim.store.failClose.set(id, { status: 409, code: 1008, message: 'Conflict.' });
    const outcome = await adminFor(sim).closeOffenses({ logSourceIds: [ours1] });
    expect(outcome).toMatchObject({ found: 1, closed: 0, failed: 1 });
  });

  it('skips an offense deleted or closed by someone else meanwhile', async () => {
    const { sim, ours1 } = await seeded();
    const gone = sim.store.addOffense({ log_source_ids: [ours1] }).id;
    const closedMeanwhile = sim.store.addOffense({ log_source_ids: [ours1] }).id;
    sim.store.failClose.set(gone, { status: 404, code: 1002, message: 'No offense.' });
    const offense = sim.store.offenses.get(closedMeanwhile);
    if (offense) offense.status = 'CLOSED';
    // The listing still saw it open (it was listed before someone closed it).
    sim.faults.next(1, {
      status: 200,
      body: [
        { id: gone, status: 'OPEN', start_time: NOW, log_sources: [{ id: ours1 }] },
        { id: closedMeanwhile, status: 'OPEN', start_time: NOW, log_sources: [{ id: ours1 }] },
      ],
      match: { method: 'GET', path: '/api/siem/offenses' },
    });
    const outcome = await adminFor(sim).closeOffenses({ logSourceIds: [ours1] });
    expect(outcome).toEqual({ found: 2, closed: 0, failed: 0, errors: [], listFailed: false });
  });

  it('keeps at most five distinct errors', async () => {
    const { sim, ours1 } = await seeded();
    for (let i = 0; i < 8; i++) {
      const id = sim.store.addOffense({ log_source_ids: [ours1] }).id;
      sim.store.failClose.set(id, { status: 422, code: 1005, message: `refused ${i % 7}` });
    }
    const outcome = await adminFor(sim).closeOffenses({ logSourceIds: [ours1] });
    expect(outcome).toMatchObject({ found: 8, closed: 0, failed: 8 });
    expect(outcome.errors).toHaveLength(5);
  });

  it('lists nothing as closed when the closing reason is unknown', async () => {
    const { sim, ours1 } = await seeded();
    sim.store.addOffense({ log_source_ids: [ours1] });
    const admin = adminFor(sim, { settings: { closing_reason: 'Retired Reason' } });
    const outcome = await admin.closeOffenses({ logSourceIds: [ours1] });
    expect(outcome).toMatchObject({ found: 0, closed: 0, failed: 0, listFailed: true });
    expect(outcome.errors[0]).toContain(
      'no usable offense closing reason reads "Retired Reason" (siem_q.closing_reason)',
    );
    expect(sim.store.closeCalls).toEqual([]);
  });

  it('reports a failed listing', async () => {
    const { sim, ours1 } = await seeded();
    sim.store.addOffense({ log_source_ids: [ours1] });
    sim.faults.next(1, { status: 500, match: { method: 'GET', path: '/api/siem/offenses' } });
    const outcome = await adminFor(sim).closeOffenses({ logSourceIds: [ours1] });
    expect(outcome).toMatchObject({ found: 0, closed: 0, failed: 0, listFailed: true });
    expect(outcome.errors[0]).toContain('HTTP 500');
    expect(sim.store.closeCalls).toEqual([]);
  });

  it('reports a failed setup as a failed listing', async () => {
    const { sim, ours1 } = await seeded();
    const outcome = await adminFor(sim, { settings: { token: 'not-the-token' } }).closeOffenses({
      logSourceIds: [ours1],
    });
    expect(outcome).toMatchObject({ listFailed: true, closed: 0 });
    expect(outcome.errors[0]).toContain('siem_q.token');
  });
});

describe('SIEM Q admin check', () => {
  it('reports every step on a working console', async () => {
    const sim = await start();
    const admin = adminFor(sim);
    const steps = await admin.check();
    expect(steps.map((s) => [s.name, s.ok])).toEqual([
      ['siem_q_console', true],
      ['siem_q_event_collector', true],
      ['siem_q_log_source_type', true],
      ['siem_q_closing_reason', true],
    ]);
    expect(steps[0]?.message).toBe('token accepted; API version 26.0');
    expect(steps[1]?.message).toBe('event collector "eventcollector0 :: siemq-aio" (id 7)');
    expect(steps[2]?.message).toBe('log source type "Universal LEEF" (id 277), protocol "Syslog" (id 0)');
    expect(steps[3]?.message).toBe('offense closing reason "Non-Issue" (id 54)');
    expect(steps.every((s) => s.endpoint === admin.console)).toBe(true);
  });

  it('fills the cache it checked', async () => {
    const sim = await start();
    const admin = adminFor(sim);
    await admin.check();
    const after = sim.requests.length;
    await admin.setup();
    expect(sim.requests).toHaveLength(after);
  });

  it('resolves again instead of trusting the cache', async () => {
    const sim = await start();
    const admin = adminFor(sim);
    await admin.setup();
    const leef = sim.store.logSourceTypes.find((t) => t.id === 277);
    if (leef) leef.name = 'Universal LEEF (old)';
    const steps = await admin.check();
    expect(steps.map((s) => [s.name, s.ok])).toEqual([
      ['siem_q_console', true],
      ['siem_q_setup', false],
    ]);
  });

  it('stops at a refused token', async () => {
    const sim = await start();
    const steps = await adminFor(sim, { settings: { token: 'not-the-token' } }).check();
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ name: 'siem_q_console', ok: false });
    expect(steps[0]?.message).toContain('check siem_q.token');
    expect(steps[0]?.message).not.toContain('not-the-token');
  });

  it('accepts the token but fails the setup for an unknown type', async () => {
    const sim = await start();
    const steps = await adminFor(sim, { settings: { log_source_type: 'Nope' } }).check();
    expect(steps).toEqual([
      expect.objectContaining({
        name: 'siem_q_console',
        ok: true,
        message: 'token accepted; API version 26.0',
      }),
      expect.objectContaining({ name: 'siem_q_setup', ok: false }),
    ]);
    expect(steps[1]?.message).toContain('no log source type is named "Nope"');
  });

  it('fails the closing reason step only when offense cleanup needs it', async () => {
    const sim = await start();
    const needed = await adminFor(sim, { settings: { closing_reason: 'Made Up' } }).check();
    expect(needed.at(-1)).toMatchObject({ name: 'siem_q_closing_reason', ok: false });
    const unneeded = await adminFor(sim, {
      settings: { closing_reason: 'Made Up' },
      offenseCleanup: false,
    }).check();
    expect(unneeded.at(-1)).toMatchObject({ name: 'siem_q_closing_reason', ok: true });
    expect(unneeded.at(-1)?.message).toContain('offense_cleanup is off');
  });

  it('reports an unreachable console', async () => {
    const sim = await start();
    await sim.faults.refuse();
    const steps = await adminFor(sim).check();
    expect(steps).toEqual([expect.objectContaining({ name: 'siem_q_console', ok: false })]);
  });
});

describe('SIEM Q admin under a deadline', () => {
  it('stops closing when its signal ends, counting what it did not close as failed', async () => {
    const sim = await start();
    const ls = sim.store.addLogSource({ name: 'ours', identifier: 'lab-deadline' });
    for (let i = 0; i < 12; i++) sim.store.addOffense({ log_source_ids: [ls.id], start_time: NOW - i });
    const admin = adminFor(sim);
    await admin.setup();
    // A slow console; the signal ends once the console has seen four closes.
    sim.faults.delayMs = 50;
    const stop = new AbortController();
    const poll = setInterval(() => {
      if (sim.store.closeCalls.length >= 4) stop.abort(new Error('deadline'));
    }, 5);
    const outcome = await admin
      .closeOffenses({ logSourceIds: [ls.id] }, stop.signal)
      .finally(() => clearInterval(poll));
    expect(outcome.listFailed).toBe(false);
    expect(outcome.found).toBe(12);
    expect(outcome.closed).toBeLessThan(12);
    expect(outcome.closed + outcome.failed).toBe(12);
    expect(outcome.errors.at(-1)).toMatch(
      /stopped \(out of time or shutting down\) with \d+ of 12 offenses not closed/,
    );
    const closedInConsole = [...sim.store.offenses.values()].filter((o) => o.status === 'CLOSED').length;
    expect(closedInConsole).toBeGreaterThanOrEqual(outcome.closed);
  });
});

describe('SIEM Q admin over HTTPS', () => {
  it('verifies the console certificate against siem_q.ca_pem, and refuses an unknown CA as unreachable', async () => {
    const tls = createTlsFixtures();
    const sim = await start({ tls: { cert: tls.serverCert, key: tls.serverKey } });
    const settings = (caPem: string | null, verify = true): SiemQDestinationSettings =>
      ({
        console_url: sim.url,
        token: sim.token,
        event_collector_id: null,
        log_source_type: 'Universal LEEF',
        log_source_protocol: 'Syslog',
        closing_reason: 'Non-Issue',
        tls_verify: verify,
        ca_pem: caPem,
      }) as SiemQDestinationSettings;
    const adminWith = (s: SiemQDestinationSettings) => {
      const api = new SiemQConsole(s, 'siemq', secretScrubber({ secrets: [sim.token] }), {
        wait,
        now: () => NOW,
      });
      consoles.push(api);
      return createSiemQAdmin(
        { siem: 'siemq', revision: 'tls', settings: s, provision: true, offenseCleanup: true },
        api,
        new SiemQSetupCache(() => NOW),
      );
    };
    expect(await adminWith(settings(tls.caCert)).setup()).toMatchObject({ ok: true, collector: { id: 7 } });
    const untrusted = await adminWith(settings(null)).setup();
    expect(untrusted).toMatchObject({ ok: false, reason: 'unreachable' });
    expect(untrusted.ok === false && untrusted.message).toMatch(/certificate|self.signed|issuer/i);
    expect(await adminWith(settings(null, false)).setup()).toMatchObject({ ok: true });
  });
});
