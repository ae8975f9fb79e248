import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { Client, fetch as undiciFetch } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { sharedTlsFixtures } from '../helpers/tls-fixtures.ts';
import { type HecSimulator, type HecSimulatorOptions, startHecSimulator } from './hec-simulator.ts';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');
let sims: HecSimulator[] = [];
afterEach(async () => {
  await Promise.all(sims.map((s) => s.close()));
  sims = [];
});

async function start(options: HecSimulatorOptions = {}): Promise<HecSimulator> {
  const sim = await startHecSimulator({ now: () => NOW, ...options });
  sims.push(sim);
  return sim;
}

async function post(
  sim: HecSimulator,
  body: string | Buffer,
  headers: Record<string, string> = {},
  path = '/services/collector/event',
) {
  const res = await fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Splunk ${sim.token}`, ...headers },
    body,
  });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await sleep(2);
}

describe('HEC simulator: collector', () => {
  it('stores concatenated events with the token defaults and answers Success', async () => {
    const sim = await start();
    const body =
      '{"event":"one","time":1700000000.25}\n{"event":{"k":"v"},"host":"ws1","sourcetype":"lab:json"}';
    expect(await post(sim, body)).toMatchObject({ status: 200, text: '{"text":"Success","code":0}' });
    expect(sim.store.events).toMatchObject([
      {
        index: 'main',
        time: 1700000000.25,
        host: `socdrill-hec-simulator:${sim.port}`,
        source: 'http:socdrill-lab',
        sourcetype: 'httpevent',
        raw: 'one',
        envelopeText: '{"event":"one","time":1700000000.25}',
        requestSeq: 1,
        deleted: false,
      },
      { index: 'main', time: NOW / 1000, host: 'ws1', sourcetype: 'lab:json', raw: '{"k":"v"}' },
    ]);
    expect(sim.store.requests[0]?.body.toString()).toBe(body);
    expect(sim.store.requests[0]?.headers.authorization).toBe(`Splunk ${sim.token}`);
  });

  it.each([
    [{}, 401, '{"text":"Token is required","code":2}'],
    [{ authorization: 'Bearer abc' }, 401, '{"text":"Invalid authorization","code":3}'],
    [
      { authorization: 'Splunk 00000000-0000-0000-0000-000000000000' },
      403,
      '{"text":"Invalid token","code":4}',
    ],
  ])('answers auth failure %j with %i', async (headers, status, text) => {
    const sim = await start();
    const res = await fetch(`${sim.url}/services/collector/event`, {
      method: 'POST',
      headers,
      body: '{"event":"x"}',
    });
    expect([res.status, await res.text()]).toEqual([status, text]);
    expect(sim.store.events).toEqual([]);
  });

  it('refuses a disabled token and accepts the token as the Basic password', async () => {
    const good = randomUUID();
    const off = randomUUID();
    const sim = await start({ tokens: [{ token: good }, { token: off, disabled: true }] });
    expect(await post(sim, '{"event":"x"}', { authorization: `Splunk ${off}` })).toMatchObject({
      status: 403,
      text: '{"text":"Token disabled","code":1}',
    });
    const basic = `Basic ${Buffer.from(`anyone:${good}`).toString('base64')}`;
    expect((await post(sim, '{"event":"x"}', { authorization: basic })).status).toBe(200);
  });

  it('accepts ?token= only for tokens that allow query-string auth', async () => {
    const plain = randomUUID();
    const query = randomUUID();
    const sim = await start({ tokens: [{ token: plain }, { token: query, allowQueryStringAuth: true }] });
    const send = (t: string) =>
      fetch(`${sim.url}/services/collector/event?token=${t}`, { method: 'POST', body: '{"event":"x"}' });
    const refused = await send(plain);
    expect([refused.status, await refused.text()]).toEqual([
      400,
      '{"text":"Query string authorization is not enabled","code":16}',
    ]);
    expect((await send(query)).status).toBe(200);
  });

  it('answers Incorrect index for an index that does not exist, keeping the events before it', async () => {
    const sim = await start();
    const res = await post(sim, '{"event":"a"}{"event":"b","index":"nope"}{"event":"c"}');
    expect(res).toMatchObject({
      status: 400,
      text: '{"text":"Incorrect index","code":7,"invalid-event-number":2}',
    });
    expect(sim.store.events.map((e) => e.raw)).toEqual(['a']);
  });

  it('treats index names as case-sensitive lower-case names', async () => {
    const sim = await start({ indexes: ['lab'] });
    expect((await post(sim, '{"event":"a","index":"Lab"}')).status).toBe(400);
    expect((await post(sim, '{"event":"a","index":"lab"}')).status).toBe(200);
  });

  it('answers 200 and drops events for an unknown index in drop mode', async () => {
    const sim = await start({ unknownIndex: 'drop' });
    expect((await post(sim, '{"event":"a","index":"nope"}')).status).toBe(200);
    expect(sim.store.events).toEqual([]);
    expect(sim.store.dropped.map((e) => e.index)).toEqual(['nope']);
  });

  it('enforces the token allow-list and default index', async () => {
    const token = randomUUID();
    const sim = await start({
      indexes: ['lab', 'other'],
      tokens: [{ token, indexes: ['lab'], defaultIndex: 'lab' }],
    });
    expect((await post(sim, '{"event":"a","index":"other"}')).text).toBe(
      '{"text":"Incorrect index","code":7,"invalid-event-number":1}',
    );
    expect((await post(sim, '{"event":"b"}')).status).toBe(200);
    expect(sim.store.events.map((e) => [e.raw, e.index])).toEqual([['b', 'lab']]);
  });

  it.each([
    ['', 400, '{"text":"No data","code":5}'],
    ['{"event":"a"}{"event":', 400, '{"text":"Invalid data format","code":6,"invalid-event-number":1}'],
    ['{"time":1}', 400, '{"text":"Event field is required","code":12,"invalid-event-number":0}'],
    ['{"event":" "}', 400, '{"text":"Event field cannot be blank","code":13,"invalid-event-number":0}'],
    [
      '{"event":"a","fields":{"n":{"x":1}}}',
      400,
      '{"text":"Error in handling indexed fields","code":15,"invalid-event-number":0}',
    ],
  ])('answers %j with %i %s', async (body, status, text) => {
    const sim = await start();
    expect(await post(sim, body)).toMatchObject({ status, text });
  });

  it('decodes gzip bodies and refuses a gzip header on a plain body and other encodings', async () => {
    const sim = await start();
    expect((await post(sim, gzipSync('{"event":"zipped"}'), { 'content-encoding': 'gzip' })).status).toBe(
      200,
    );
    expect(sim.store.events.map((e) => e.raw)).toEqual(['zipped']);
    expect(sim.store.requests[0]?.body.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(await post(sim, '{"event":"x"}', { 'content-encoding': 'gzip' })).toMatchObject({
      status: 400,
      text: '{"text":"Invalid data format","code":6}',
    });
    const deflate = await post(sim, '{"event":"x"}', { 'content-encoding': 'deflate' });
    expect(deflate.status).toBe(415);
    expect(deflate.headers.get('content-type')).toBe('text/html; charset=UTF-8');
  });

  it('answers 413 for a body over max_content_length', async () => {
    const sim = await start({ maxContentLength: 100 });
    const res = await post(sim, `{"event":"${'x'.repeat(200)}"}`);
    expect(res).toMatchObject({
      status: 413,
      text: '{"text":"Content-Length of 212 too large (maximum is 100)"}',
    });
  });

  it('serves /raw line by line with query-string metadata', async () => {
    const sim = await start({ indexes: ['lab'] });
    const res = await post(
      sim,
      'line one\r\nline two\n',
      {},
      '/services/collector/raw?index=lab&sourcetype=raw:lab',
    );
    expect(res.status).toBe(200);
    expect(sim.store.events.map((e) => [e.raw, e.index, e.sourcetype, e.endpoint])).toEqual([
      ['line one', 'lab', 'raw:lab', 'raw'],
      ['line two', 'lab', 'raw:lab', 'raw'],
    ]);
    expect((await post(sim, '', {}, '/services/collector/raw')).text).toBe('{"text":"No data","code":5}');
  });

  it('answers health without a token, and 503 while busy', async () => {
    const sim = await start();
    const health = async () => {
      const res = await fetch(`${sim.url}/services/collector/health`);
      return [res.status, await res.text()];
    };
    expect(await health()).toEqual([200, '{"text":"HEC is healthy","code":17}']);
    sim.busy = true;
    expect(await health()).toEqual([503, '{"text":"HEC is unhealthy, queues are full","code":18}']);
    expect(await post(sim, '{"event":"x"}')).toMatchObject({
      status: 503,
      text: '{"text":"Server is busy","code":9}',
    });
  });

  it('answers unknown paths with 404 and wrong methods with 405 and Allow', async () => {
    const sim = await start();
    const missing = await fetch(`${sim.url}/services/collector/nope`, { method: 'POST' });
    expect([missing.status, await missing.text()]).toEqual([
      404,
      '{"text":"The requested URL was not found on this server.","code":404}',
    ]);
    const wrong = await fetch(`${sim.url}/services/collector/event`);
    expect([wrong.status, wrong.headers.get('allow')]).toEqual([405, 'POST,OPTIONS']);
  });

  it('records the request channel and validates it when given', async () => {
    const sim = await start();
    const channel = randomUUID();
    await post(sim, '{"event":"x"}', { 'x-splunk-request-channel': channel });
    expect(sim.store.events[0]?.channel).toBe(channel);
    expect((await post(sim, '{"event":"x"}', { 'x-splunk-request-channel': 'nope' })).text).toBe(
      '{"text":"Invalid data channel","code":11}',
    );
  });

  it('implements indexer acknowledgement per channel with one-shot true', async () => {
    const token = randomUUID();
    const sim = await start({ tokens: [{ token, useAck: true }, { token: randomUUID() }] });
    const a = randomUUID();
    const b = randomUUID();
    expect((await post(sim, '{"event":"x"}')).text).toBe('{"text":"Data channel is missing","code":10}');
    const send = (channel: string) => post(sim, '{"event":"x"}', { 'x-splunk-request-channel': channel });
    expect((await send(a)).text).toBe('{"text":"Success","code":0,"ackId":0}');
    expect((await send(a)).text).toBe('{"text":"Success","code":0,"ackId":1}');
    expect((await send(b)).text).toBe('{"text":"Success","code":0,"ackId":0}');
    const poll = (channel: string, ids: number[]) =>
      post(
        sim,
        JSON.stringify({ acks: ids }),
        { 'x-splunk-request-channel': channel },
        '/services/collector/ack',
      );
    expect((await poll(a, [0, 1, 5])).text).toBe('{"acks":{"0":true,"1":true,"5":false}}');
    expect((await poll(a, [0, 1])).text).toBe('{"acks":{"0":false,"1":false}}');
    expect((await poll(b, [0, 1])).text).toBe('{"acks":{"0":true,"1":false}}');
    const other = await post(
      sim,
      '{"acks":[0]}',
      { authorization: `Splunk ${sim.tokens[1]?.token}` },
      '/services/collector/ack',
    );
    expect(other.text).toBe('{"text":"ACK is disabled","code":14}');
  });
});

describe('HEC simulator: faults', () => {
  it('answers injected 503 bursts with Server is busy, then recovers', async () => {
    const sim = await start();
    sim.faults.next(2, { status: 503 });
    expect((await post(sim, '{"event":"1"}')).text).toBe('{"text":"Server is busy","code":9}');
    expect((await post(sim, '{"event":"2"}')).status).toBe(503);
    expect((await post(sim, '{"event":"3"}')).status).toBe(200);
    expect(sim.store.events.map((e) => e.raw)).toEqual(['3']);
    expect(sim.store.requests.map((r) => [r.status, r.fault])).toEqual([
      [503, 'status 503'],
      [503, 'status 503'],
      [200, undefined],
    ]);
  });

  it('drops the connection mid-body without storing anything', async () => {
    const sim = await start();
    sim.faults.closeAfter(10);
    await expect(post(sim, '{"event":"a much longer body than ten bytes"}')).rejects.toThrow('fetch failed');
    expect(sim.store.events).toEqual([]);
    expect((await post(sim, '{"event":"next"}')).status).toBe(200);
  });

  it('can store a batch and then drop the connection unanswered', async () => {
    const sim = await start();
    sim.faults.acceptThenClose();
    await expect(post(sim, '{"event":"landed"}')).rejects.toThrow('fetch failed');
    expect(sim.store.events.map((e) => e.raw)).toEqual(['landed']);
  });

  it('refuses connections while refusing and accepts again afterwards', async () => {
    const sim = await start();
    await sim.faults.refuse();
    const err = await post(sim, '{"event":"x"}').catch((e: Error) => e);
    expect((err as Error & { cause: { code: string } }).cause.code).toBe('ECONNREFUSED');
    await sim.faults.accept();
    expect((await post(sim, '{"event":"x"}')).status).toBe(200);
  });

  it('resets connections when asked', async () => {
    const sim = await start();
    sim.faults.resetConnections = true;
    await expect(post(sim, '{"event":"x"}')).rejects.toThrow('fetch failed');
  });

  it('holds the answer while reads are stalled', async () => {
    const sim = await start();
    sim.faults.stallReads = true;
    const pending = post(sim, '{"event":"held"}');
    await until(() => sim.store.requests.length === 1);
    expect(sim.store.events).toEqual([]);
    expect(sim.store.requests[0]?.status).toBeUndefined();
    sim.faults.stallReads = false;
    expect((await pending).status).toBe(200);
    expect(sim.store.events.map((e) => e.raw)).toEqual(['held']);
  });

  it('limits a queued fault to matching requests', async () => {
    const sim = await start();
    sim.faults.next(1, { status: 503, match: { method: 'GET', path: '/services/collector/health' } });
    expect((await post(sim, '{"event":"x"}')).status).toBe(200);
    const health = await fetch(`${sim.url}/services/collector/health`);
    expect([health.status, await health.text()]).toEqual([
      503,
      '{"text":"HEC is unhealthy, queues are full","code":18}',
    ]);
    expect(sim.faults.pending()).toBe(0);
  });

  it('reads bodies at readBytesPerSecond', async () => {
    const sim = await start();
    sim.faults.readBytesPerSecond = 40_000;
    const started = performance.now();
    expect((await post(sim, `{"event":"${'x'.repeat(19_987)}"}`)).status).toBe(200);
    // 20 000 bytes at 40 000 B/s take half a second; an unthrottled read takes a few ms.
    expect(performance.now() - started).toBeGreaterThanOrEqual(450);
  });

  it('delays answers by delayMs', async () => {
    const sim = await start();
    sim.faults.delayMs = 120;
    const started = performance.now();
    expect((await post(sim, '{"event":"x"}')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
  });
});

describe('HEC simulator: TLS', () => {
  it('serves HTTPS that verifies with the fixture CA and fails with an unrelated CA', async () => {
    const tls = sharedTlsFixtures();
    const sim = await start({ tls: { cert: tls.serverCert, key: tls.serverKey } });
    expect(sim.url.startsWith('https://127.0.0.1:')).toBe(true);
    const call = (ca: string) =>
      undiciFetch(`${sim.url}/services/collector/health`, {
        dispatcher: new Client(sim.url, { connect: { ca } }),
      });
    expect((await call(tls.caCert)).status).toBe(200);
    const err = (await call(tls.otherCaCert).catch((e: unknown) => e)) as { cause: { code: string } };
    expect(err.cause.code).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });

  it('reports a self-signed certificate in the chain when the server sends its CA', async () => {
    const tls = sharedTlsFixtures();
    const sim = await start({ tls: { cert: tls.serverChain, key: tls.serverKey } });
    const err = (await undiciFetch(`${sim.url}/services/collector/health`).catch((e: unknown) => e)) as {
      cause: { code: string };
    };
    expect(err.cause.code).toBe('SELF_SIGNED_CERT_IN_CHAIN');
  });
});

/** The parts of splunkd JSON answers the tests read. */
interface SplunkJson {
  entry: Array<{ name: string; content: Record<string, unknown> }>;
  sid: string;
  sessionKey: string;
  results: Array<Record<string, string>>;
}

describe('HEC simulator: management API', () => {
  const json = (sim: HecSimulator) => ({ authorization: `Bearer ${sim.managementToken}` });
  async function mgmt(
    sim: HecSimulator,
    method: string,
    path: string,
    form?: Record<string, string>,
    headers = json(sim),
  ) {
    const res = await fetch(`${sim.managementUrl}${path}`, {
      method,
      headers: form ? { ...headers, 'content-type': 'application/x-www-form-urlencoded' } : headers,
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    const text = await res.text();
    return { status: res.status, text, body: text ? (JSON.parse(text) as SplunkJson) : undefined };
  }

  it('answers 401 in the two splunkd wordings', async () => {
    const sim = await start();
    expect(
      await mgmt(sim, 'GET', '/services/data/indexes?output_mode=json', undefined, {} as never),
    ).toMatchObject({
      status: 401,
      text: '{"messages":[{"type":"ERROR","text":"Unauthorized"}]}',
    });
    const basic = { authorization: `Basic ${Buffer.from('socdrill:wrong').toString('base64')}` };
    expect((await mgmt(sim, 'GET', '/services/data/indexes?output_mode=json', undefined, basic)).text).toBe(
      '{"messages":[{"type":"ERROR","text":"Unauthorized"}]}',
    );
    const hecToken = { authorization: `Bearer ${sim.token}` };
    expect(
      (await mgmt(sim, 'GET', '/services/data/indexes?output_mode=json', undefined, hecToken)).text,
    ).toBe('{"messages":[{"type":"WARN","text":"call not properly authenticated"}]}');
  });

  it('answers XML unless output_mode=json', async () => {
    const sim = await start();
    const res = await fetch(`${sim.managementUrl}/services/data/indexes/nope`, { headers: json(sim) });
    expect(res.status).toBe(404);
    expect(await res.text()).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<response>\n  <messages>\n    <msg type="ERROR">Could not find object id=nope</msg>\n  </messages>\n</response>\n',
    );
  });

  it('creates, reads and lists indexes like splunkd', async () => {
    const sim = await start();
    const created = await mgmt(sim, 'POST', '/services/data/indexes?output_mode=json', { name: 'lab_01' });
    expect(created.status).toBe(201);
    expect(created.body?.entry[0]?.name).toBe('lab_01');
    expect(created.body?.entry[0]?.content.datatype).toBe('event');
    expect(sim.indexes.has('lab_01')).toBe(true);
    const got = await mgmt(sim, 'GET', '/servicesNS/nobody/search/data/indexes/lab_01?output_mode=json');
    expect([got.status, got.body?.entry[0]?.content.totalEventCount]).toEqual([200, 0]);
    expect(
      await mgmt(sim, 'POST', '/services/data/indexes?output_mode=json', { name: 'lab_01' }),
    ).toMatchObject({
      status: 409,
      text: '{"messages":[{"type":"ERROR","text":"Index \'lab_01\' already exists"}]}',
    });
    expect((await mgmt(sim, 'POST', '/services/data/indexes?output_mode=json', { name: 'Lab' })).status).toBe(
      400,
    );
    expect(
      (await mgmt(sim, 'POST', '/services/data/indexes?output_mode=json', { name: 'x', colour: 'red' })).text,
    ).toBe(
      '{"messages":[{"type":"ERROR","text":"Argument \\"colour\\" is not supported by this handler."}]}',
    );
    await mgmt(sim, 'POST', '/services/data/indexes?output_mode=json', {
      name: 'metrics_01',
      datatype: 'metric',
    });
    const names = async (q: string) => {
      const res = await mgmt(sim, 'GET', `/services/data/indexes?output_mode=json&count=0${q}`);
      return (res.body?.entry ?? []).map((e) => e.name);
    };
    expect(await names('')).toEqual(['_audit', '_internal', 'history', 'lab_01', 'main', 'summary']);
    expect(await names('&datatype=all')).toContain('metrics_01');
  });

  it('wipes an index with a search job: sid, QUEUED → RUNNING → DONE, then the deleted count', async () => {
    const sim = await start({ indexes: ['lab'] });
    await post(
      sim,
      '{"event":"a","index":"lab","time":1000}{"event":"b","index":"lab","time":2000}{"event":"c"}',
    );
    const job = await mgmt(sim, 'POST', '/services/search/jobs', {
      search: 'search index=lab | delete',
      output_mode: 'json',
      earliest_time: '0',
      latest_time: 'now',
    });
    expect(job.status).toBe(201);
    const sid = job.body?.sid as string;
    expect(sid).toMatch(/^\d+\.\d+$/);
    const results = () => mgmt(sim, 'GET', `/services/search/jobs/${sid}/results?output_mode=json`);
    expect((await results()).status).toBe(204);
    const states: string[] = [];
    for (let i = 0; i < 3; i++) {
      const status = await mgmt(sim, 'GET', `/services/search/jobs/${sid}?output_mode=json`);
      states.push(`${status.body?.entry[0]?.content.dispatchState}:${status.body?.entry[0]?.content.isDone}`);
    }
    expect(states).toEqual(['QUEUED:false', 'RUNNING:false', 'DONE:true']);
    const done = await results();
    expect(done.body?.results).toEqual([
      { splunk_server: 'socdrill-hec-simulator', index: '__ALL__', deleted: '2', errors: '0' },
      { splunk_server: 'socdrill-hec-simulator', index: 'lab', deleted: '2', errors: '0' },
    ]);
    expect(sim.store.searchable('lab')).toEqual([]);
    expect(sim.store.searchable('main').map((e) => e.raw)).toEqual(['c']);
    expect(sim.store.events.filter((e) => e.deleted).map((e) => e.raw)).toEqual(['a', 'b']);
    const index = await mgmt(sim, 'GET', '/services/data/indexes/lab?output_mode=json');
    expect(index.body?.entry[0]?.content.totalEventCount).toBe(2);
  });

  it('keeps events dated after latest_time=now', async () => {
    const sim = await start({ indexes: ['lab'] });
    const future = NOW / 1000 + 3600;
    await post(
      sim,
      `{"event":"past","index":"lab","time":1000}{"event":"future","index":"lab","time":${future}}`,
    );
    const run = await mgmt(sim, 'POST', '/services/search/jobs?output_mode=json', {
      search: 'search index=lab | delete',
      exec_mode: 'oneshot',
      earliest_time: '0',
      latest_time: 'now',
    });
    expect(run.body?.results[0]).toEqual({
      splunk_server: 'socdrill-hec-simulator',
      index: '__ALL__',
      deleted: '1',
      errors: '0',
    });
    expect(sim.store.searchable('lab').map((e) => e.raw)).toEqual(['future']);
  });

  it('refuses delete for a user without can_delete and a query without the search command', async () => {
    const sim = await start({
      management: { users: [{ username: 'admin', password: 'pw', roles: ['admin'] }] },
    });
    const basic = { authorization: `Basic ${Buffer.from('admin:pw').toString('base64')}` };
    const denied = await mgmt(
      sim,
      'POST',
      '/services/search/jobs?output_mode=json',
      { search: 'search index=main | delete' },
      basic,
    );
    expect(denied).toMatchObject({
      status: 400,
      text: '{"messages":[{"type":"FATAL","text":"Error in \'delete\' command: You have insufficient privileges to delete events."}]}',
    });
    const bare = await mgmt(
      sim,
      'POST',
      '/services/search/jobs?output_mode=json',
      { search: 'index=main | delete' },
      basic,
    );
    expect(bare.text).toBe('{"messages":[{"type":"FATAL","text":"Unknown search command \'index\'."}]}');
  });

  it('answers a oneshot search with no results with an empty body', async () => {
    const sim = await start();
    const res = await mgmt(sim, 'POST', '/services/search/jobs', {
      search: 'search index=main',
      exec_mode: 'oneshot',
      output_mode: 'json',
    });
    expect([res.status, res.text]).toEqual([200, '']);
  });

  it('accepts a session key from /services/auth/login', async () => {
    const sim = await start();
    const login = await mgmt(
      sim,
      'POST',
      '/services/auth/login',
      {
        username: sim.managementUser.username,
        password: sim.managementUser.password,
        output_mode: 'json',
      },
      {} as never,
    );
    const key = login.body?.sessionKey as string;
    const res = await mgmt(sim, 'GET', '/services/server/info?output_mode=json', undefined, {
      authorization: `Splunk ${key}`,
    });
    expect(res.body?.entry[0]?.content.serverName).toBe('socdrill-hec-simulator');
  });

  it('injects faults on the management port separately', async () => {
    const sim = await start();
    sim.managementFaults.next(1, { status: 503 });
    const res = await mgmt(sim, 'GET', '/services/data/indexes/main?output_mode=json');
    expect([res.status, res.text]).toEqual([
      503,
      '{"messages":[{"type":"ERROR","text":"Service Unavailable"}]}',
    ]);
    expect((await post(sim, '{"event":"x"}')).status).toBe(200);
  });
});
