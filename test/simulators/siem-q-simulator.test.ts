import { afterEach, describe, expect, it } from 'vitest';
import { type SiemQSimulator, type SiemQSimulatorOptions, startSiemQSimulator } from './siem-q-simulator.ts';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const LOG_SOURCES = '/api/config/event_sources/log_source_management/log_sources';
let sims: SiemQSimulator[] = [];
afterEach(async () => {
  await Promise.all(sims.map((s) => s.close()));
  sims = [];
});

async function start(options: SiemQSimulatorOptions = {}): Promise<SiemQSimulator> {
  const sim = await startSiemQSimulator({ now: () => NOW, ...options });
  sims.push(sim);
  return sim;
}

interface CallOptions {
  method?: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: unknown;
  auth?: boolean;
}

/** A JSON answer: an error body, an object, or a list of objects. */
interface Body {
  readonly code?: number;
  readonly message?: string;
  readonly http_response?: { readonly code: number; readonly message: string };
  readonly id?: number;
  readonly [key: string]: unknown;
}

async function call(sim: SiemQSimulator, path: string, o: CallOptions = {}) {
  const qs = new URLSearchParams(o.query ?? {}).toString();
  const res = await fetch(`${sim.url}${path}${qs ? `?${qs}` : ''}`, {
    method: o.method ?? 'GET',
    headers: {
      ...(o.auth === false ? {} : { sec: sim.token }),
      ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...o.headers,
    },
    ...(o.body !== undefined ? { body: typeof o.body === 'string' ? o.body : JSON.stringify(o.body) } : {}),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    json: (text ? JSON.parse(text) : null) as Body & Body[],
  };
}

function syslogSource(name: string, identifier: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    type_id: 277,
    protocol_type_id: 0,
    target_event_collector_id: 7,
    protocol_parameters: [
      { id: 0, name: 'identifier', value: identifier },
      { id: 1, name: 'incomingPayloadEncoding', value: 'UTF-8' },
    ],
    ...extra,
  };
}

describe('SIEM Q simulator: auth and versions', () => {
  it('refuses a missing or wrong SEC token with the console error body, and marks every answer', async () => {
    const sim = await start({ token: 'abc123' });
    const variants: Record<string, string>[] = [
      {},
      { sec: 'nope' },
      { authorization: 'Basic YWRtaW46cGFzcw==' },
    ];
    for (const headers of variants) {
      const res = await call(sim, '/api/siem/offenses', { auth: false, headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('x-socdrill-simulator')).toBe('siem-q');
      expect(res.json).toMatchObject({
        http_response: { code: 401, message: 'You are unauthorized to access the requested resource.' },
        code: 27,
        details: {},
        message: 'You are unauthorized to access the requested resource.',
      });
      expect(Object.keys(res.json)).toEqual(['http_response', 'code', 'description', 'details', 'message']);
    }
    expect((await call(sim, '/api/siem/offenses')).status).toBe(200);
  });

  it('lists supported and removed versions', async () => {
    const sim = await start();
    const res = await call(sim, '/api/help/versions');
    expect(res.json.map((v) => [v.version, v.removed])).toEqual([
      ['3.0', true],
      ['8.0', true],
      ['12.0', false],
      ['19.0', false],
      ['20.0', false],
      ['26.0', false],
    ]);
    expect(res.json[0]).toEqual({
      id: 1,
      version: '3.0',
      deprecated: false,
      removed: true,
      root_resource_ids: [],
    });
  });

  it('serves the newest version without a Version header, records the one used, and refuses removed or unknown ones', async () => {
    const sim = await start();
    await call(sim, '/api/siem/offenses');
    await call(sim, '/api/siem/offenses', { headers: { version: '19.0' } });
    expect(sim.store.versionsUsed).toEqual(['26.0', '19.0']);
    const removed = await call(sim, '/api/siem/offenses', { headers: { version: '3.0' } });
    expect([removed.status, removed.json.message]).toEqual([
      406,
      'Version (3.0) of the API has been removed',
    ]);
    const unknown = await call(sim, '/api/siem/offenses', { headers: { version: '99.1' } });
    expect([unknown.status, unknown.json.message]).toEqual([406, 'Version (99.1) is not a valid version']);
    expect(sim.requests.map((r) => r.headers.version)).toEqual([undefined, '19.0', '3.0', '99.1']);
  });
});

describe('SIEM Q simulator: lists', () => {
  it('pages with Range and answers Content-Range, also without Range and for an empty page', async () => {
    const sim = await start();
    for (let i = 0; i < 5; i++) sim.store.addLogSource({ name: `ls-${i}` });
    const page = await call(sim, LOG_SOURCES, { headers: { range: 'items=1-2' }, query: { fields: 'name' } });
    expect(page.json).toEqual([{ name: 'ls-1' }, { name: 'ls-2' }]);
    expect(page.headers.get('content-range')).toBe('items 1-2/5');
    const tail = await call(sim, LOG_SOURCES, { headers: { range: 'items=4-9' } });
    expect([tail.json.length, tail.headers.get('content-range')]).toEqual([1, 'items 4-4/5']);
    const all = await call(sim, LOG_SOURCES);
    expect([all.json.length, all.headers.get('content-range')]).toEqual([5, 'items 0-4/5']);
    const none = await call(sim, '/api/siem/offenses', { headers: { range: 'items=0-49' } });
    expect([none.json, none.headers.get('content-range')]).toEqual([[], 'items 0--1/0']);
  });

  it.each(['items 0-4', 'items=a-b', 'items=0-', 'bytes=0-10'])(
    'refuses Range %j with code 36',
    async (range) => {
      const sim = await start();
      const res = await call(sim, LOG_SOURCES, { headers: { range } });
      expect(res.status).toBe(422);
      expect(res.json).toMatchObject({
        code: 36,
        message: 'Failed to parse Range header. The syntax must follow this pattern: items=x-y',
      });
    },
  );

  it('filters, sorts and projects log sources; a bad filter is 422/1001, a bad field 422', async () => {
    const sim = await start();
    sim.store.addLogSource({ name: 'b', identifier: 'host-b', type_id: 11 });
    sim.store.addLogSource({ name: 'a "x"', identifier: 'host-a' });
    sim.store.addLogSource({ name: 'c', identifier: 'host-c' });
    const res = await call(sim, LOG_SOURCES, {
      query: {
        filter: 'type_id=277 and protocol_type_id=0',
        sort: '-id',
        fields: 'id,name,protocol_parameters(value)',
      },
    });
    expect(res.json).toEqual([
      { id: 103, name: 'c', protocol_parameters: [{ value: 'host-c' }, { value: 'UTF-8' }] },
      { id: 102, name: 'a "x"', protocol_parameters: [{ value: 'host-a' }, { value: 'UTF-8' }] },
    ]);
    const quoted = await call(sim, LOG_SOURCES, { query: { filter: 'name="a \\"x\\""', fields: 'id' } });
    expect(quoted.json).toEqual([{ id: 102 }]);
    const bad = await call(sim, LOG_SOURCES, { query: { filter: 'name=="x"' } });
    expect([bad.status, bad.json.code, bad.json.http_response?.code]).toEqual([422, 1001, 422]);
    const badField = await call(sim, LOG_SOURCES, { query: { fields: 'id,colour' } });
    expect([badField.status, badField.json.message]).toEqual([
      422,
      'The fields parameter is not valid: unknown field "colour" in fields',
    ]);
  });

  it('lists collectors, log source types and protocol types, each also by id', async () => {
    const sim = await start();
    expect((await call(sim, '/api/config/event_sources/event_collectors')).json).toEqual([
      { id: 7, name: 'eventcollector0 :: siemq-aio', component_name: 'eventcollector0', host_id: 53 },
    ]);
    expect((await call(sim, '/api/config/event_sources/event_collectors/8')).status).toBe(404);
    const types = await call(sim, '/api/config/event_sources/log_source_management/log_source_types', {
      query: { filter: 'name="Universal LEEF"', fields: 'id,name' },
    });
    expect(types.json).toEqual([{ id: 277, name: 'Universal LEEF' }]);
    const syslog = await call(sim, '/api/config/event_sources/log_source_management/protocol_types/0', {
      query: { fields: 'id,name,parameters(id,name,required,default_value)' },
    });
    expect(syslog.json).toEqual({
      id: 0,
      name: 'Syslog',
      parameters: [
        { id: 0, name: 'identifier', required: true, default_value: null },
        { id: 1, name: 'incomingPayloadEncoding', required: false, default_value: 'UTF-8' },
      ],
    });
  });
});

describe('SIEM Q simulator: log sources', () => {
  it('creates a log source (201) that reads back by id, with defaults filled in', async () => {
    const sim = await start();
    const res = await call(sim, LOG_SOURCES, {
      method: 'POST',
      body: syslogSource('lab-ex1-s2', 'lab-ex1-s2', { coalesce_events: false }),
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      id: 101,
      name: 'lab-ex1-s2',
      enabled: true,
      gateway: false,
      internal: false,
      coalesce_events: false,
      store_event_payload: true,
      requires_deploy: false,
      status: { status: 'N/A', messages: [] },
      creation_date: NOW,
    });
    const stored = sim.store.logSources.get(101)!;
    expect(sim.store.identifierOf(stored)).toBe('lab-ex1-s2');
    expect((await call(sim, `${LOG_SOURCES}/101`, { query: { fields: 'id,name' } })).json).toEqual({
      id: 101,
      name: 'lab-ex1-s2',
    });
    const missing = await call(sim, `${LOG_SOURCES}/999`);
    expect([missing.status, missing.json.code]).toEqual([404, 1002]);
  });

  it('refuses a duplicate name (409/1001) and a duplicate type + protocol + identifier (409/1002)', async () => {
    const sim = await start();
    sim.store.addLogSource({ name: 'taken', identifier: 'h1' });
    const byName = await call(sim, LOG_SOURCES, { method: 'POST', body: syslogSource('taken', 'h2') });
    expect([byName.status, byName.json.code]).toEqual([409, 1001]);
    const byIdentifier = await call(sim, LOG_SOURCES, { method: 'POST', body: syslogSource('other', 'h1') });
    expect([byIdentifier.status, byIdentifier.json.code]).toEqual([409, 1002]);
    const otherType = await call(sim, LOG_SOURCES, {
      method: 'POST',
      body: syslogSource('other', 'h1', { type_id: 11 }),
    });
    expect(otherType.status).toBe(201);
    expect(sim.store.logSources.size).toBe(2);
  });

  it.each([
    [{ name: undefined }, 1003],
    [{ name: 'x'.repeat(256) }, 1004],
    [{ name: 'a\\b' }, 1043],
    [{ type_id: 999 }, 1007],
    [{ target_event_collector_id: 8 }, 1025],
    [{ protocol_type_id: 48 }, 1011],
    [{ protocol_parameters: [] }, 1012],
    [{ credibility: 11 }, 1005],
  ])('refuses an invalid create %j with 422/%i', async (change, code) => {
    const sim = await start();
    const res = await call(sim, LOG_SOURCES, {
      method: 'POST',
      body: { ...syslogSource('n', 'h'), ...change },
    });
    expect([res.status, res.json.code]).toEqual([422, code]);
    expect(sim.store.logSources.size).toBe(0);
  });

  it('updates (200, 404/1050, same 409s) and deletes (204, then 404/1010)', async () => {
    const sim = await start();
    const a = sim.store.addLogSource({ name: 'a', identifier: 'ha', enabled: false });
    sim.store.addLogSource({ name: 'b', identifier: 'hb' });
    const enabled = await call(sim, `${LOG_SOURCES}/${a.id}`, { method: 'POST', body: { enabled: true } });
    expect([enabled.status, enabled.json.enabled, enabled.json.name]).toEqual([200, true, 'a']);
    const clash = await call(sim, `${LOG_SOURCES}/${a.id}`, { method: 'POST', body: { name: 'b' } });
    expect([clash.status, clash.json.code]).toEqual([409, 1001]);
    const clash2 = await call(sim, `${LOG_SOURCES}/${a.id}`, {
      method: 'POST',
      body: { protocol_parameters: [{ id: 0, name: 'identifier', value: 'hb' }] },
    });
    expect([clash2.status, clash2.json.code]).toEqual([409, 1002]);
    expect((await call(sim, `${LOG_SOURCES}/999`, { method: 'POST', body: {} })).json.code).toBe(1050);
    expect((await call(sim, `${LOG_SOURCES}/${a.id}`, { method: 'DELETE' })).status).toBe(204);
    const again = await call(sim, `${LOG_SOURCES}/${a.id}`, { method: 'DELETE' });
    expect([again.status, again.json.code]).toEqual([404, 1010]);
  });

  it('marks created log sources requires_deploy until a deploy, and refuses a deploy with nothing pending', async () => {
    const sim = await start({ requiresDeployOnCreate: true });
    const nothing = await call(sim, '/api/staged_config/deploy_status', {
      method: 'POST',
      body: { type: 'INCREMENTAL' },
    });
    expect([nothing.status, nothing.json.code]).toEqual([409, 1004]);
    expect(nothing.json.message).toContain('No changes to deploy');
    const created = await call(sim, LOG_SOURCES, { method: 'POST', body: syslogSource('s', 'h') });
    expect(created.json.requires_deploy).toBe(true);
    expect(sim.store.pendingDeploy).toBe(true);
    const deploy = await call(sim, '/api/staged_config/deploy_status', {
      method: 'POST',
      body: { type: 'INCREMENTAL' },
    });
    expect(deploy.status).toBe(200);
    expect(sim.store.pendingDeploy).toBe(false);
    expect(sim.store.deploys).toEqual([{ type: 'INCREMENTAL', at: NOW }]);
    const status = await call(sim, '/api/staged_config/deploy_status');
    expect(status.json).toMatchObject({
      status: 'COMPLETE',
      type: 'INCREMENTAL',
      percent_complete: 100,
      has_errors: false,
    });
    expect((await call(sim, `${LOG_SOURCES}/${created.json.id}`)).json.requires_deploy).toBe(false);
  });

  it('reports a deploy IN_PROGRESS for the configured number of polls', async () => {
    const sim = await start({ requiresDeployOnCreate: true });
    sim.store.addLogSource({ requires_deploy: true });
    sim.store.deployPollsInProgress = 2;
    await call(sim, '/api/staged_config/deploy_status', { method: 'POST', body: { type: 'INCREMENTAL' } });
    const polls = [];
    for (let i = 0; i < 3; i++) polls.push((await call(sim, '/api/staged_config/deploy_status')).json.status);
    expect(polls).toEqual(['IN_PROGRESS', 'IN_PROGRESS', 'COMPLETE']);
    expect(sim.store.pendingDeploy).toBe(false);
  });
});

describe('SIEM Q simulator: offenses', () => {
  async function withOffenses() {
    const sim = await start();
    const ls = sim.store.addLogSource({ name: 'lab', identifier: 'lab-host' });
    const other = sim.store.addLogSource({ name: 'other', identifier: 'other-host' });
    const o1 = sim.store.addOffense({ log_source_ids: [ls.id], start_time: NOW - 1000 });
    const o2 = sim.store.addOffense({ log_source_ids: [other.id], start_time: NOW, status: 'HIDDEN' });
    const o3 = sim.store.addOffense({
      log_source_ids: [ls.id, other.id],
      start_time: NOW + 1000,
      status: 'CLOSED',
    });
    return { sim, ls, other, o1, o2, o3 };
  }

  it('selects offenses by status and start time, projecting log_sources(id)', async () => {
    const { sim, ls, o1, o2 } = await withOffenses();
    const res = await call(sim, '/api/siem/offenses', {
      query: {
        filter: `(status="OPEN" or status="HIDDEN") and start_time >= ${NOW - 1000}`,
        fields: 'id,status,log_sources(id)',
        sort: '+id',
      },
      headers: { range: 'items=0-199' },
    });
    expect(res.json).toEqual([
      { id: o1.id, status: 'OPEN', log_sources: [{ id: ls.id }] },
      { id: o2.id, status: 'HIDDEN', log_sources: [{ id: ls.id + 1 }] },
    ]);
    expect(o1.log_sources[0]).toEqual({ id: ls.id, name: 'lab', type_id: 277, type_name: 'Universal LEEF' });
    const contains = await call(sim, '/api/siem/offenses', {
      query: { filter: `log_sources contains id=${ls.id}`, fields: 'id' },
    });
    expect(contains.json.length).toBe(2);
  });

  it('refuses a range comparison on status (422/1010), a bad sort (422/1030) and an unknown offense (404/1002)', async () => {
    const { sim } = await withOffenses();
    const range = await call(sim, '/api/siem/offenses', { query: { filter: 'status > "OPEN"' } });
    expect([range.status, range.json.code]).toEqual([422, 1010]);
    const sort = await call(sim, '/api/siem/offenses', { query: { sort: '+log_sources' } });
    expect([sort.status, sort.json.code]).toEqual([422, 1030]);
    const missing = await call(sim, '/api/siem/offenses/9999');
    expect([missing.status, missing.json.code]).toEqual([404, 1002]);
  });

  it('closes an offense with query parameters and answers the updated offense', async () => {
    const { sim, o1 } = await withOffenses();
    const res = await call(sim, `/api/siem/offenses/${o1.id}`, {
      method: 'POST',
      query: { status: 'CLOSED', closing_reason_id: '54' },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      id: o1.id,
      status: 'CLOSED',
      close_time: NOW,
      closing_user: 'API_token: socdrill',
      closing_reason_id: 54,
    });
    expect(sim.store.closeCalls).toEqual([o1.id]);
  });

  it.each([
    [{ status: 'CLOSED' }, 422, 1005, 'closing_reason_id must be provided when closing an offense.'],
    [
      { status: 'CLOSED', closing_reason_id: '3' },
      422,
      1005,
      'closing_reason_id 3 is not a valid closing reason.',
    ],
    [
      { status: 'CLOSED', closing_reason_id: '61' },
      422,
      1005,
      'closing_reason_id 61 is not a valid closing reason.',
    ],
    [
      { status: 'CLOSED', closing_reason_id: '12345' },
      422,
      1005,
      'closing_reason_id 12345 is not a valid closing reason.',
    ],
    [{ status: 'closed', closing_reason_id: '54' }, 422, 11, undefined],
  ])('refuses closing with %j', async (query, status, code, message) => {
    const { sim, o1 } = await withOffenses();
    const res = await call(sim, `/api/siem/offenses/${o1.id}`, { method: 'POST', query });
    expect([res.status, res.json.code]).toEqual([status, code]);
    if (message) expect(res.json.message).toBe(message);
    expect(sim.store.offenses.get(o1.id)?.status).toBe('OPEN');
  });

  it('answers 409/1008 for an offense already closed and 404/1002 for an unknown one', async () => {
    const { sim, o3 } = await withOffenses();
    const closed = await call(sim, `/api/siem/offenses/${o3.id}`, {
      method: 'POST',
      query: { status: 'CLOSED', closing_reason_id: '55' },
    });
    expect([closed.status, closed.json.code]).toEqual([409, 1008]);
    const unknown = await call(sim, '/api/siem/offenses/9999', {
      method: 'POST',
      query: { status: 'CLOSED', closing_reason_id: '55' },
    });
    expect([unknown.status, unknown.json.code]).toEqual([404, 1002]);
    expect(sim.store.closeCalls).toEqual([o3.id, 9999]);
  });

  it('answers an injected close failure every time it is asked (failClose is persistent)', async () => {
    const { sim, o1 } = await withOffenses();
    sim.store.failClose.set(o1.id, {
      status: 403,
      code: 1009,
      message: 'You do not have the required capabilities.',
    });
    for (let i = 0; i < 2; i++) {
      const res = await call(sim, `/api/siem/offenses/${o1.id}`, {
        method: 'POST',
        query: { status: 'CLOSED', closing_reason_id: '54' },
      });
      expect([res.status, res.json.code, res.json.http_response?.code]).toEqual([403, 1009, 403]);
    }
    expect(sim.store.offenses.get(o1.id)?.status).toBe('OPEN');
  });

  it('hides and reopens an offense', async () => {
    const { sim, o1 } = await withOffenses();
    const hidden = await call(sim, `/api/siem/offenses/${o1.id}`, {
      method: 'POST',
      query: { status: 'HIDDEN' },
    });
    expect(hidden.json.status).toBe('HIDDEN');
    const open = await call(sim, `/api/siem/offenses/${o1.id}`, {
      method: 'POST',
      query: { status: 'OPEN' },
    });
    expect(open.json.status).toBe('OPEN');
    expect(sim.store.closeCalls).toEqual([]);
  });

  it('lists closing reasons without reserved and deleted ones unless asked, filterable by text', async () => {
    const sim = await start();
    const path = '/api/siem/offense_closing_reasons';
    const ids = async (query: Record<string, string>) =>
      (await call(sim, path, { query })).json.map((r) => r.id);
    expect(await ids({})).toEqual([54, 55, 56]);
    expect(await ids({ include_reserved: 'true' })).toEqual([3, 54, 55, 56]);
    expect(await ids({ include_deleted: 'true', include_reserved: 'true' })).toEqual([3, 54, 55, 56, 61]);
    const byText = await call(sim, path, { query: { filter: 'text="Non-Issue"' } });
    expect(byText.json).toEqual([{ id: 54, text: 'Non-Issue', is_deleted: false, is_reserved: false }]);
  });
});

describe('SIEM Q simulator: faults', () => {
  it('renders an injected 503 or 429 as the console error body, with Retry-After when given', async () => {
    const sim = await start();
    sim.faults.next(1, { status: 503 });
    sim.faults.next(1, { status: 429, headers: { 'retry-after': '2' } });
    const busy = await call(sim, '/api/siem/offenses');
    expect(busy.status).toBe(503);
    expect(busy.json).toMatchObject({ http_response: { code: 503 }, code: 1020, details: {} });
    expect(busy.headers.get('x-socdrill-simulator')).toBe('siem-q');
    const limited = await call(sim, '/api/siem/offenses');
    expect([limited.status, limited.json.http_response?.code, limited.headers.get('retry-after')]).toEqual([
      429,
      429,
      '2',
    ]);
    expect((await call(sim, '/api/siem/offenses')).status).toBe(200);
    expect(sim.requests.map((r) => r.fault)).toEqual(['status 503', 'status 429', undefined]);
  });

  it('drops a connection mid-body without creating anything', async () => {
    const sim = await start();
    sim.faults.closeAfter(10);
    await expect(call(sim, LOG_SOURCES, { method: 'POST', body: syslogSource('s', 'h') })).rejects.toThrow();
    expect(sim.store.logSources.size).toBe(0);
  });
});
