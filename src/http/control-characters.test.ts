// The control-character corpus: every route's path parameters, query parameters and JSON body
// strings (read from the OpenAPI document, so a new route is covered the day it is added) get a NUL,
// and the answer must be a 400 naming that field — never a 500 from the database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, signedInAs, type TestApp } from '../../test/helpers/test-app.ts';

type Schema = Record<string, unknown>;
interface Operation {
  parameters?: Array<{ in: string; name: string; schema?: Schema }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

const BAD = 'a\u0000b';

/** Paths (segments) of every string leaf of a JSON schema, one branch of each union at a time. */
function stringLeaves(schema: Schema | undefined, prefix: string[] = []): string[][] {
  if (schema === undefined) return [];
  const out: string[][] = [];
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const branches = schema[key];
    if (Array.isArray(branches)) for (const b of branches) out.push(...stringLeaves(b as Schema, prefix));
  }
  const type = schema.type;
  if (type === 'string' || (Array.isArray(type) && type.includes('string'))) {
    if (schema.const === undefined && schema.enum === undefined) out.push(prefix);
  }
  const properties = schema.properties as Record<string, Schema> | undefined;
  for (const [name, property] of Object.entries(properties ?? {})) {
    out.push(...stringLeaves(property, [...prefix, name]));
  }
  const patterns = schema.patternProperties as Record<string, Schema> | undefined;
  for (const property of Object.values(patterns ?? {})) out.push(...stringLeaves(property, [...prefix, 'k']));
  if (typeof schema.items === 'object') out.push(...stringLeaves(schema.items as Schema, [...prefix, '0']));
  return out;
}

/** A body holding only `value` at `path` (numeric segments are array indexes). */
function bodyAt(path: string[], value: string): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [string, ...string[]];
  if (head === '0') return [bodyAt(rest, value)];
  return { [head]: bodyAt(rest, value) };
}

describe('control characters in any request string', () => {
  let t: TestApp;
  let admin: string;
  let paths: Record<string, Record<string, Operation>>;

  beforeAll(async () => {
    t = await buildTestApp();
    admin = (await signedInAs(t, ['admin'])).cookie;
    paths = (t.app.swagger() as unknown as { paths: typeof paths }).paths;
  });
  afterAll(async () => {
    await t.close();
  });

  const operations = () =>
    Object.entries(paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([method]) => method !== 'head')
        .map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
    );
  const urlOf = (path: string, bad?: string) =>
    path.replace(/\{([\w*]+)\}/g, (_, name: string) => (name === bad ? encodeURIComponent(BAD) : 'x'));
  const send = (method: string, url: string, payload?: unknown) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: { cookie: admin, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const expectRefused = (
    res: Awaited<ReturnType<typeof send>>,
    part: string,
    field: string,
    what: string,
  ) => {
    expect(res.statusCode, what).toBe(400);
    const error = res.json().error;
    expect(error.code, what).toBe('invalid_input');
    expect(error.details.in, what).toBe(part);
    expect(error.details.fields[field], what).toBe(
      'must not contain control characters (U+0000 at position 1)',
    );
  };

  it('answers 400 naming the path parameter, for every route with one', async () => {
    let checked = 0;
    for (const { path, method, op } of operations()) {
      for (const param of op.parameters ?? []) {
        if (param.in !== 'path') continue;
        // An upload route's body is the archive itself: send one, so the path is what is wrong.
        const res = op.requestBody?.content?.['application/octet-stream']
          ? await t.app.inject({
              method: method as 'PUT',
              url: urlOf(path, param.name),
              headers: { cookie: admin, 'content-type': 'application/octet-stream' },
              payload: Buffer.from('PK'),
            })
          : await send(method, urlOf(path, param.name));
        const field = typeof param.schema?.title === 'string' ? param.schema.title : param.name;
        expectRefused(res, 'params', field, `${method} ${path} :${param.name}`);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(10);
  });

  it('answers 400 naming the query parameter, for every route with string query parameters', async () => {
    let checked = 0;
    for (const { path, method, op } of operations()) {
      for (const param of op.parameters ?? []) {
        if (param.in !== 'query') continue;
        const url = `${urlOf(path)}?${param.name}=${encodeURIComponent(BAD)}`;
        const res = await send(method, url);
        expectRefused(res, 'querystring', param.name, `${method} ${path} ?${param.name}`);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(5);
  });

  it('answers 400 naming the body field, for every string of every JSON body (unions branch by branch)', async () => {
    let checked = 0;
    for (const { path, method, op } of operations()) {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      const leaves = new Map(stringLeaves(schema).map((leaf) => [leaf.join('.'), leaf]));
      for (const [name, leaf] of leaves) {
        const res = await send(method, urlOf(path), bodyAt(leaf, BAD));
        expectRefused(res, 'body', name, `${method} ${path} body ${name}`);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(40);
  });

  it('refuses a lone surrogate in a body, and every control character, not only NUL', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/users',
      headers: { cookie: admin, 'content-type': 'application/json' },
      payload:
        '{"email":"x\\ud800@example.com","display_name":"tab\\there","password":"long enough password"}',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details).toEqual({
      in: 'body',
      fields: {
        email: 'must be well-formed Unicode (a lone surrogate at position 1)',
        display_name: 'must not contain control characters (U+0009 at position 3)',
      },
    });
  });

  it('the requests an attacker tried: each a 400 naming its field, none a 500', async () => {
    const tried: Array<[string, string, unknown, string, string]> = [
      ['POST', '/api/users', { email: 'a\u0000@example.com', display_name: 'x' }, 'body', 'email'],
      ['POST', '/api/users', { email: 'a@example.com', display_name: 'x\u0000' }, 'body', 'display_name'],
      [
        'POST',
        '/api/sessions/start',
        { siem: 's\u0000', archiveDownloadUrl: 'https://a/b.zip' },
        'body',
        'siem',
      ],
      ['DELETE', '/api/sessions?siem=%00', undefined, 'querystring', 'siem'],
      ['GET', '/api/destinations/%00', undefined, 'params', 'name'],
      ['GET', '/api/audit?actor=%00', undefined, 'querystring', 'actor'],
    ];
    for (const [method, url, payload, part, field] of tried) {
      const res = await send(method, url, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(400);
      expect(res.json().error.details.in, `${method} ${url}`).toBe(part);
      expect(res.json().error.details.fields[field], `${method} ${url}`).toMatch(/U\+0000/);
    }
  });

  it('refuses a NUL in the unauthenticated sign-in e-mail with 400, not 500, and records nothing', async () => {
    const before = await t.ctx.db
      .selectFrom('audit_log')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const res = await t.app.inject({
      method: 'POST',
      url: '/login',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'admin\u0000@example.com', password: 'whatever-password' }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({
      code: 'invalid_input',
      details: { in: 'body', fields: { email: expect.stringMatching(/U\+0000/) } },
    });
    const after = await t.ctx.db
      .selectFrom('audit_log')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('still accepts line breaks where a field is multi-line text (a CA bundle) and refuses NUL there', async () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    const base = { name: 'pem-test', driver: 'vendorB_bulk', url: 'https://siem.example:9200', index: 'lab' };
    const withNul = await send('POST', '/api/destinations', { ...base, ca_pem: `${pem}\u0000` });
    expect(withNul.statusCode).toBe(400);
    expect(withNul.json().error.details.fields.ca_pem).toMatch(/U\+0000/);
    const withBreaks = await send('POST', '/api/destinations', { ...base, ca_pem: pem });
    // Line breaks pass the text rules (the PEM format check only looks for its markers).
    expect(withBreaks.statusCode, withBreaks.body).toBe(201);
  });
});
