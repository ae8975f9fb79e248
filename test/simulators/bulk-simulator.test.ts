import { gzipSync } from 'node:zlib';
import { Client, fetch as undiciFetch } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { sharedTlsFixtures } from '../helpers/tls-fixtures.ts';
import { type BulkSimulator, type BulkSimulatorOptions, startBulkSimulator } from './bulk-simulator.ts';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');
let sims: BulkSimulator[] = [];
afterEach(async () => {
  await Promise.all(sims.map((s) => s.close()));
  sims = [];
});

async function start(options: Partial<BulkSimulatorOptions> = {}): Promise<BulkSimulator> {
  const sim = await startBulkSimulator({ flavor: 'elasticsearch', now: () => NOW, ...options });
  sims.push(sim);
  return sim;
}

const basic = (sim: BulkSimulator) =>
  `Basic ${Buffer.from(`${sim.username}:${sim.password}`).toString('base64')}`;

async function call(
  sim: BulkSimulator,
  method: string,
  path: string,
  body?: string | Buffer,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${sim.url}${path}`, {
    method,
    headers: {
      authorization: basic(sim),
      ...(body !== undefined ? { 'content-type': 'application/x-ndjson' } : {}),
      ...headers,
    },
    body,
  });
  const text = await res.text();
  let json: EsJson | undefined;
  try {
    json = text ? (JSON.parse(text) as EsJson) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json: json as EsJson, headers: res.headers };
}

/** The parts of Elasticsearch answers the tests read. */
interface EsItem {
  _index: string;
  _id: string;
  _version: number;
  result: string;
  status: number;
  forced_refresh?: boolean;
  error?: { type: string; reason: string };
}
interface EsJson {
  version: Record<string, unknown>;
  tagline: string;
  error: { type: string; reason: string; caused_by: { type: string; reason: string } };
  errors: boolean;
  items: Array<Record<string, EsItem>>;
  deleted: number;
  version_conflicts: number;
  failures: unknown[];
  task: string;
  completed: boolean;
  response: { deleted: number };
  count: number;
}
type Answer = Awaited<ReturnType<typeof call>>;
/** The result object of every bulk item, whatever its op. */
const items = (res: Answer): EsItem[] => res.json.items.map((i) => Object.values(i)[0]!);
const item = (res: Answer, n: number): EsItem => items(res)[n]!;
const statuses = (res: Answer) => items(res).map((i) => i.status);

const ndjson = (...lines: object[]) => `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;

describe('bulk simulator: product info and auth', () => {
  it('answers GET / as Elasticsearch with the product header', async () => {
    const sim = await start();
    const res = await call(sim, 'GET', '/');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-elastic-product')).toBe('Elasticsearch');
    expect(res.json).toMatchObject({
      name: 'socdrill-bulk-simulator',
      cluster_name: 'socdrill-simulator',
      version: {
        number: '8.15.0',
        build_flavor: 'default',
        lucene_version: '9.11.1',
        minimum_wire_compatibility_version: '7.17.0',
      },
      tagline: 'You Know, for Search',
    });
  });

  it('answers GET / as OpenSearch without the product header', async () => {
    const sim = await start({ flavor: 'opensearch' });
    const res = await call(sim, 'GET', '/');
    expect(res.headers.get('x-elastic-product')).toBeNull();
    expect(res.json.version).toMatchObject({
      distribution: 'opensearch',
      number: '2.17.1',
      minimum_wire_compatibility_version: '7.10.0',
    });
    expect(res.json.tagline).toBe('The OpenSearch Project: https://opensearch.org/');
  });

  it('answers missing credentials with the security_exception body and challenges', async () => {
    const sim = await start();
    const res = await call(sim, 'GET', '/?pretty', undefined, { authorization: '' });
    const challenges = ['Basic realm="security", charset="UTF-8"', 'Bearer realm="security"', 'ApiKey'];
    const cause = {
      type: 'security_exception',
      reason: 'missing authentication credentials for REST request [/?pretty]',
      header: { 'WWW-Authenticate': challenges },
    };
    expect(res.status).toBe(401);
    expect(JSON.parse(res.text)).toEqual({ error: { root_cause: [cause], ...cause }, status: 401 });
    expect(res.headers.get('www-authenticate')).toBe(challenges.join(', '));
    expect(res.headers.get('x-elastic-product')).toBeNull();
  });

  it('tells wrong Basic credentials and unknown API keys apart', async () => {
    const sim = await start();
    const wrong = `Basic ${Buffer.from('elastic:nope').toString('base64')}`;
    const res = await call(sim, 'POST', '/_bulk', ndjson({ create: { _index: 'a' } }, {}), {
      authorization: wrong,
    });
    expect(res.json.error.reason).toBe('unable to authenticate user [elastic] for REST request [/_bulk]');
    const key = Buffer.from('keyid:secret').toString('base64');
    const bad = await call(sim, 'GET', '/', undefined, { authorization: `ApiKey ${key}` });
    expect(bad.json.error).toMatchObject({
      reason:
        'unable to authenticate with provided credentials and anonymous access is not allowed for this request',
      additional_unsuccessful_credentials: 'API key: unable to find apikey with id keyid',
    });
    expect((await call(sim, 'GET', '/', undefined, { authorization: `ApiKey ${sim.apiKey}` })).status).toBe(
      200,
    );
  });

  it('answers OpenSearch auth failures with a plain Unauthorized and has no API keys', async () => {
    const sim = await start({ flavor: 'opensearch' });
    expect(sim.apiKey).toBeUndefined();
    const res = await call(sim, 'GET', '/', undefined, {
      authorization: `ApiKey ${Buffer.from('a:b').toString('base64')}`,
    });
    expect([res.status, res.text, res.headers.get('www-authenticate')]).toEqual([
      401,
      'Unauthorized',
      'Basic realm="OpenSearch Security"',
    ]);
  });
});

describe('bulk simulator: _bulk', () => {
  it('creates documents and reports a duplicate _id as a 409 item inside an HTTP 200', async () => {
    const sim = await start();
    const first = await call(
      sim,
      'POST',
      '/_bulk',
      ndjson({ create: { _index: 'lab', _id: 'e1' } }, { msg: 'one' }),
    );
    expect(first.status).toBe(200);
    expect(first.json).toEqual({
      took: 0,
      errors: false,
      items: [
        {
          create: {
            _index: 'lab',
            _id: 'e1',
            _version: 1,
            result: 'created',
            _shards: { total: 2, successful: 1, failed: 0 },
            _seq_no: 0,
            _primary_term: 1,
            status: 201,
          },
        },
      ],
    });
    const again = await call(
      sim,
      'POST',
      '/lab/_bulk',
      ndjson({ create: { _id: 'e1' } }, { msg: 'dup' }, { create: { _id: 'e2' } }, { msg: 'two' }),
    );
    expect(again.status).toBe(200);
    expect(again.json.errors).toBe(true);
    expect(item(again, 0)).toEqual({
      _index: 'lab',
      _id: 'e1',
      status: 409,
      error: {
        type: 'version_conflict_engine_exception',
        reason: '[e1]: version conflict, document already exists (current version [1])',
        index_uuid: sim.store.indexes.get('lab')?.uuid,
        shard: '0',
        index: 'lab',
      },
    });
    expect(item(again, 1).status).toBe(201);
    expect(sim.store.sources('lab')).toEqual([{ msg: 'one' }, { msg: 'two' }]);
    expect(sim.store.docs('lab')[1]?.sourceText).toBe('{"msg":"two"}');
  });

  it('refuses a body without the final newline', async () => {
    const sim = await start();
    const res = await call(sim, 'POST', '/_bulk', '{"create":{"_index":"lab"}}\n{"a":1}');
    expect(res.status).toBe(400);
    expect(res.text).toBe(
      '{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"The bulk request must be terminated by a newline [\\\\n]"}],"type":"illegal_argument_exception","reason":"The bulk request must be terminated by a newline [\\\\n]"},"status":400}',
    );
  });

  it('refuses unsupported or missing content types before authentication', async () => {
    const sim = await start();
    const plain = await call(sim, 'POST', '/_bulk', ndjson({ create: { _index: 'a' } }, {}), {
      'content-type': 'text/plain;charset=UTF-8',
      authorization: '',
    });
    expect([plain.status, plain.text]).toEqual([
      406,
      '{"error":"Content-Type header [text/plain;charset=UTF-8] is not supported","status":406}',
    ]);
    const res = await fetch(`${sim.url}/_bulk`, {
      method: 'POST',
      headers: { authorization: basic(sim) },
      body: new TextEncoder().encode(ndjson({ create: { _index: 'a' } }, {})),
    });
    expect([res.status, await res.text()]).toEqual([
      406,
      '{"error":"Content-Type header is missing","status":406}',
    ]);
  });

  it('checks compatible-with versions in Elasticsearch mode and refuses vendor types in OpenSearch mode', async () => {
    const es = await start();
    const v9 = 'application/vnd.elasticsearch+json; compatible-with=9';
    const refused = await call(es, 'GET', '/', undefined, { accept: v9 });
    expect(refused.status).toBe(400);
    expect(refused.json.error.type).toBe('media_type_header_exception');
    expect(refused.json.error.caused_by.reason).toBe(
      `Accept version must be either version 8 or 7, but found 9. Accept=${v9}`,
    );
    const ok = await call(es, 'GET', '/', undefined, {
      accept: 'application/vnd.elasticsearch+json; compatible-with=8',
    });
    expect([ok.status, ok.headers.get('content-type')]).toEqual([
      200,
      'application/vnd.elasticsearch+json;compatible-with=8',
    ]);
    const os = await start({ flavor: 'opensearch' });
    const v8 = 'application/vnd.elasticsearch+x-ndjson; compatible-with=8';
    const res = await call(os, 'POST', '/_bulk', ndjson({ create: { _index: 'a' } }, {}), {
      'content-type': v8,
    });
    expect([res.status, res.text]).toEqual([
      406,
      `{"error":"Content-Type header [${v8}] is not supported","status":406}`,
    ]);
  });

  it('fails documents that conflict with the dynamic mapping, in each flavor spelling', async () => {
    const es = await start();
    const body = ndjson(
      { create: { _index: 'lab', _id: '1' } },
      { host: { name: 'a' } },
      { create: { _index: 'lab', _id: '2' } },
      { host: 'b' },
    );
    const res = await call(es, 'POST', '/_bulk', body);
    expect(item(res, 1).error).toEqual({
      type: 'document_parsing_exception',
      reason:
        '[1:9] object mapping for [host] tried to parse field [host] as object, but found a concrete value',
    });
    const os = await start({ flavor: 'opensearch' });
    const osRes = await call(os, 'POST', '/_bulk', body);
    expect(item(osRes, 1).error).toEqual({
      type: 'mapper_parsing_exception',
      reason: 'object mapping for [host] tried to parse field [host] as object, but found a concrete value',
    });
  });

  it('fails documents chosen by rejectDocument with a 400 mapping error', async () => {
    const sim = await start({
      rejectDocument: (doc) => ((doc as { bad?: boolean }).bad ? 'failed to parse field [bad]' : undefined),
    });
    const res = await call(
      sim,
      'POST',
      '/_bulk',
      ndjson(
        { create: { _index: 'lab', _id: 'x' } },
        { bad: true },
        { create: { _index: 'lab' } },
        { ok: 1 },
      ),
    );
    expect(statuses(res)).toEqual([400, 201]);
    expect(item(res, 0).error).toEqual({
      type: 'document_parsing_exception',
      reason: 'failed to parse field [bad]',
    });
  });

  it('rejects injected items with 429 in each flavor spelling', async () => {
    const es = await start();
    es.rejectItems(1, { where: (item) => item.position === 1 });
    const body = ndjson(
      { create: { _index: 'lab' } },
      { a: 1 },
      { create: { _index: 'lab' } },
      { a: 2 },
      { create: { _index: 'lab' } },
      { a: 3 },
    );
    const res = await call(es, 'POST', '/_bulk', body);
    expect(statuses(res)).toEqual([201, 429, 201]);
    expect(item(res, 1).error?.type).toBe('es_rejected_execution_exception');
    expect(es.store.sources('lab')).toEqual([{ a: 1 }, { a: 3 }]);
    const os = await start({ flavor: 'opensearch' });
    os.rejectItems(1);
    const osRes = await call(os, 'POST', '/_bulk', body);
    expect(item(osRes, 0).error?.type).toBe('rejected_execution_exception');
  });

  it('rejects injected items with the disk flood-stage block when asked to', async () => {
    const sim = await start();
    sim.rejectItems(1, { errorType: 'cluster_block_exception' });
    const res = await call(sim, 'POST', '/_bulk', ndjson({ create: { _index: 'lab' } }, { a: 1 }));
    expect(statuses(res)).toEqual([429]);
    expect(item(res, 0).error).toEqual({
      type: 'cluster_block_exception',
      reason:
        'index [lab] blocked by: [TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has read-only-allow-delete block];',
    });
  });

  it('overwrites with index, deletes with delete and reports missing documents', async () => {
    const sim = await start();
    await call(sim, 'POST', '/_bulk', ndjson({ index: { _index: 'lab', _id: '1' } }, { v: 1 }));
    const res = await call(
      sim,
      'POST',
      '/_bulk',
      ndjson(
        { index: { _index: 'lab', _id: '1' } },
        { v: 2 },
        { delete: { _index: 'lab', _id: '1' } },
        { delete: { _index: 'lab', _id: '9' } },
      ),
    );
    expect(items(res).map((r) => [r.result, r.status, r._version])).toEqual([
      ['updated', 200, 2],
      ['deleted', 200, 3],
      ['not_found', 404, 1],
    ]);
  });

  it('accepts gzip bodies and refuses bodies over max_content_length with 413', async () => {
    const sim = await start({ maxContentLength: 200 });
    const zipped = await call(
      sim,
      'POST',
      '/_bulk',
      gzipSync(ndjson({ create: { _index: 'lab' } }, { z: 1 })),
      {
        'content-encoding': 'gzip',
      },
    );
    expect(zipped.json.errors).toBe(false);
    const big = await call(
      sim,
      'POST',
      '/_bulk',
      ndjson({ create: { _index: 'lab' } }, { z: 'x'.repeat(300) }),
    );
    expect([big.status, big.text]).toEqual([413, '']);
  });

  it('filters the answer with filter_path', async () => {
    const sim = await start();
    const res = await call(
      sim,
      'POST',
      '/_bulk?filter_path=errors,items.*.error',
      ndjson({ create: { _index: 'lab' } }, {}),
    );
    expect(res.text).toBe('{"errors":false}');
  });
});

describe('bulk simulator: indexes and data streams', () => {
  it('creates an index once, refuses bad names and answers HEAD', async () => {
    const sim = await start();
    expect((await call(sim, 'HEAD', '/lab')).status).toBe(404);
    const created = await call(sim, 'PUT', '/lab', '{"settings":{"number_of_shards":1}}', {
      'content-type': 'application/json',
    });
    expect(created.json).toEqual({ acknowledged: true, shards_acknowledged: true, index: 'lab' });
    expect((await call(sim, 'HEAD', '/lab')).status).toBe(200);
    const dup = await call(sim, 'PUT', '/lab');
    const uuid = sim.store.indexes.get('lab')?.uuid;
    expect(dup.status).toBe(400);
    expect(dup.json.error).toMatchObject({
      type: 'resource_already_exists_exception',
      reason: `index [lab/${uuid}] already exists`,
      index_uuid: uuid,
      index: 'lab',
    });
    const bad = await call(sim, 'PUT', '/Lab');
    expect([bad.status, bad.json.error.type, bad.json.error.reason]).toEqual([
      400,
      'invalid_index_name_exception',
      'Invalid index name [Lab], must be lowercase',
    ]);
  });

  it('turns logs-*-* names into data streams in Elasticsearch mode', async () => {
    const sim = await start();
    const put = await call(sim, 'PUT', '/logs-lab-default');
    expect(put.json.error.reason).toBe(
      'cannot create index with name [logs-lab-default], because it matches with template [logs] that creates data streams only, use create data stream api instead',
    );
    const res = await call(
      sim,
      'POST',
      '/_bulk',
      ndjson(
        { index: { _index: 'logs-lab-default' } },
        { '@timestamp': '2026-03-01T00:00:00Z' },
        { create: { _index: 'logs-lab-default' } },
        { msg: 'no time' },
        { create: { _index: 'logs-lab-default', _id: 'a' } },
        { '@timestamp': '2026-03-01T00:00:00Z' },
      ),
    );
    const [index, missing, ok] = [item(res, 0), item(res, 1), item(res, 2)];
    expect(index.error?.reason).toBe('only write ops with an op_type of create are allowed in data streams');
    expect(missing.error).toEqual({
      type: 'document_parsing_exception',
      reason: '[1:1] data stream timestamp field [@timestamp] is missing',
    });
    expect([ok.status, ok._index]).toEqual([201, '.ds-logs-lab-default-2026.03.01-000001']);
    expect((await call(sim, 'HEAD', '/logs-lab-default')).status).toBe(200);
  });

  it('keeps logs-*-* names plain indexes in OpenSearch mode', async () => {
    const sim = await start({ flavor: 'opensearch' });
    expect((await call(sim, 'PUT', '/logs-lab-default')).status).toBe(200);
  });

  it('answers unknown endpoints and wrong methods like Elasticsearch', async () => {
    const sim = await start();
    expect((await call(sim, 'GET', '/_bulk')).text).toBe(
      '{"error":"Incorrect HTTP method for uri [/_bulk] and method [GET], allowed: [POST, PUT]","status":405}',
    );
    expect((await call(sim, 'GET', '/a/b/c')).text).toBe(
      '{"error":"no handler found for uri [/a/b/c] and method [GET]","status":400}',
    );
  });
});

describe('bulk simulator: _delete_by_query', () => {
  const seed = async (sim: BulkSimulator, n: number, refresh = '') =>
    call(
      sim,
      'POST',
      `/_bulk${refresh}`,
      ndjson(
        ...Array.from({ length: n }, (_, i) => [{ create: { _index: 'lab', _id: `d${i}` } }, { i }]).flat(),
      ),
    );
  const wipe = (sim: BulkSimulator, index = 'lab', params = 'conflicts=proceed&refresh=true') =>
    call(sim, 'POST', `/${index}/_delete_by_query?${params}`, '{"query":{"match_all":{}}}', {
      'content-type': 'application/json',
    });

  it('deletes everything and answers with the real response fields', async () => {
    const sim = await start();
    await seed(sim, 3);
    const res = await wipe(sim);
    expect(res.json).toEqual({
      took: 0,
      timed_out: false,
      total: 3,
      deleted: 3,
      batches: 1,
      version_conflicts: 0,
      noops: 0,
      retries: { bulk: 0, search: 0 },
      throttled_millis: 0,
      requests_per_second: -1,
      throttled_until_millis: 0,
      failures: [],
    });
    expect(sim.store.docs('lab')).toEqual([]);
  });

  it('answers 404 index_not_found_exception for a missing index unless ignore_unavailable', async () => {
    const sim = await start();
    const res = await wipe(sim, 'nope');
    const cause = {
      type: 'index_not_found_exception',
      reason: 'no such index [nope]',
      'resource.type': 'index_or_alias',
      'resource.id': 'nope',
      index_uuid: '_na_',
      index: 'nope',
    };
    expect([res.status, res.json]).toEqual([404, { error: { root_cause: [cause], ...cause }, status: 404 }]);
    expect((await wipe(sim, 'nope', 'ignore_unavailable=true')).json.deleted).toBe(0);
  });

  it('misses unrefreshed writes in on_refresh mode, then refreshes after deleting', async () => {
    const sim = await start({ visibility: 'on_refresh' });
    const count = async () => (await call(sim, 'GET', '/lab/_count')).json.count;
    await seed(sim, 2);
    expect(await count()).toBe(0);
    expect((await wipe(sim)).json.deleted).toBe(0);
    expect(await count()).toBe(2);
    expect((await wipe(sim)).json.deleted).toBe(2);
  });

  it('makes writes searchable with refresh=true on _bulk or with _refresh', async () => {
    const sim = await start({ visibility: 'on_refresh' });
    const count = async () => (await call(sim, 'GET', '/lab/_count')).json.count;
    await seed(sim, 2);
    const refreshed = await call(
      sim,
      'POST',
      '/_bulk?refresh=true',
      ndjson({ create: { _index: 'lab', _id: 'x' } }, {}),
    );
    expect(item(refreshed, 0).forced_refresh).toBe(true);
    expect(await count()).toBe(3);
    await call(sim, 'POST', '/_bulk', ndjson({ create: { _index: 'lab', _id: 'y' } }, {}));
    expect(await count()).toBe(3);
    expect((await call(sim, 'POST', '/lab/_refresh')).json).toEqual({
      _shards: { total: 2, successful: 1, failed: 0 },
    });
    expect(await count()).toBe(4);
  });

  it('counts injected version conflicts with proceed and fails with 409 on abort', async () => {
    const sim = await start();
    await seed(sim, 3);
    sim.deleteByQueryConflicts = 1;
    const proceed = await wipe(sim);
    expect([
      proceed.status,
      proceed.json.deleted,
      proceed.json.version_conflicts,
      proceed.json.failures,
    ]).toEqual([200, 2, 1, []]);
    sim.deleteByQueryConflicts = 1;
    const abort = await wipe(sim, 'lab', 'refresh=true');
    expect(abort.status).toBe(409);
    expect(abort.json.failures[0]).toMatchObject({
      index: 'lab',
      id: 'd0',
      status: 409,
      cause: { type: 'version_conflict_engine_exception' },
    });
  });

  it('runs as a task with wait_for_completion=false', async () => {
    const sim = await start();
    await seed(sim, 2);
    const started = await wipe(sim, 'lab', 'conflicts=proceed&wait_for_completion=false');
    expect(started.json.task).toMatch(/^[\w-]+:1$/);
    const task = await call(sim, 'GET', `/_tasks/${started.json.task}`);
    expect([task.json.completed, task.json.response.deleted]).toEqual([true, 2]);
  });
});

describe('bulk simulator: faults and TLS', () => {
  it('answers injected 429 and 503 with the product bodies', async () => {
    const sim = await start();
    sim.faults.next(1, { status: 429 });
    sim.faults.next(1, { status: 429, errorType: 'circuit_breaking_exception' });
    sim.faults.next(1, { status: 503 });
    const body = ndjson({ create: { _index: 'lab' } }, {});
    const types = [];
    for (let i = 0; i < 3; i++) {
      const res = await call(sim, 'POST', '/_bulk', body);
      types.push([res.status, res.json.error.type]);
    }
    expect(types).toEqual([
      [429, 'es_rejected_execution_exception'],
      [429, 'circuit_breaking_exception'],
      [503, 'cluster_block_exception'],
    ]);
    expect(sim.store.indexes.size).toBe(0);
    expect((await call(sim, 'POST', '/_bulk', body)).json.errors).toBe(false);
  });

  it('answers injected 401 and 403 with the security_exception bodies Elasticsearch sends', async () => {
    const sim = await start();
    const body = ndjson({ create: { _index: 'lab' } }, {});
    sim.faults.next(1, { status: 401 });
    const refused = await call(sim, 'POST', '/_bulk', body);
    const challenges = ['Basic realm="security", charset="UTF-8"', 'Bearer realm="security"', 'ApiKey'];
    const auth = {
      type: 'security_exception',
      reason: 'unable to authenticate user [elastic] for REST request [/_bulk]',
      header: { 'WWW-Authenticate': challenges },
    };
    expect([refused.status, refused.json]).toEqual([
      401,
      { error: { root_cause: [auth], ...auth }, status: 401 },
    ]);
    expect(refused.headers.get('www-authenticate')).toBe(challenges.join(', '));

    sim.faults.next(1, { status: 403 });
    const forbidden = await call(sim, 'POST', '/lab/_bulk', body);
    const privilege = {
      type: 'security_exception',
      reason:
        'action [indices:data/write/bulk] is unauthorized for user [elastic] with effective roles [socdrill_lab_writer] on indices [lab], this action is granted by the index privileges [create_doc,create,delete,index,write,all]',
    };
    expect([forbidden.status, forbidden.json]).toEqual([
      403,
      { error: { root_cause: [privilege], ...privilege }, status: 403 },
    ]);
    expect(forbidden.headers.get('x-elastic-product')).toBeNull();

    sim.faults.next(1, { status: 403 });
    const keyId = Buffer.from(sim.apiKey ?? '', 'base64')
      .toString('utf8')
      .split(':')[0];
    const root = await call(sim, 'GET', '/', undefined, { authorization: `ApiKey ${sim.apiKey}` });
    expect(root.json.error.reason).toBe(
      `action [cluster:monitor/main] is unauthorized for API key id [${keyId}] of user [elastic], this action is granted by the cluster privileges [monitor,manage,all]`,
    );
    expect(sim.store.indexes.size).toBe(0);
  });

  it('answers injected 401 and 403 as the OpenSearch security plugin does', async () => {
    const sim = await start({ flavor: 'opensearch' });
    sim.faults.next(1, { status: 401 });
    const refused = await call(sim, 'GET', '/');
    expect([refused.status, refused.text]).toEqual([401, 'Unauthorized']);
    sim.faults.next(1, { status: 403 });
    const forbidden = await call(sim, 'GET', '/');
    expect([forbidden.status, forbidden.json.error]).toEqual([
      403,
      {
        root_cause: [
          {
            type: 'security_exception',
            reason:
              'no permissions for [cluster:monitor/main] and User [name=admin, backend_roles=[], requestedTenant=null]',
          },
        ],
        type: 'security_exception',
        reason:
          'no permissions for [cluster:monitor/main] and User [name=admin, backend_roles=[], requestedTenant=null]',
      },
    ]);
  });

  it('drops a connection mid-batch without storing anything', async () => {
    const sim = await start();
    sim.faults.closeAfter(20);
    await expect(
      call(sim, 'POST', '/_bulk', ndjson({ create: { _index: 'lab' } }, { a: 'b'.repeat(100) })),
    ).rejects.toThrow('fetch failed');
    expect(sim.store.indexes.size).toBe(0);
  });

  it('serves HTTPS with the fixture CA', async () => {
    const tls = sharedTlsFixtures();
    const sim = await start({ tls: { cert: tls.serverCert, key: tls.serverKey } });
    const res = await undiciFetch(`${sim.url}/`, {
      headers: { authorization: basic(sim) },
      dispatcher: new Client(sim.url, { connect: { ca: tls.caCert } }),
    });
    expect([res.status, res.headers.get('x-elastic-product')]).toEqual([200, 'Elasticsearch']);
    const err = (await undiciFetch(`${sim.url}/`, {
      dispatcher: new Client(sim.url, { connect: { ca: tls.otherCaCert } }),
    }).catch((e: unknown) => e)) as { cause: { code: string } };
    expect(err.cause.code).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });
});
