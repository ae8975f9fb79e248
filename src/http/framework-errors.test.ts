import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, signedInAs, type TestApp } from '../../test/helpers/test-app.ts';
import { MAX_PARAM_LENGTH } from './framework-errors.ts';

const DISPATCH_TOKEN = 'dispatch-token-for-tests-0123456789';
const BEARER = `Bearer ${DISPATCH_TOKEN}`;
/** Over Fastify's default limit of 100, under ours: the router lets it through. */
const LONG_ID = 'a'.repeat(150);
/** Over our limit: the router itself refuses it. */
const OVERLONG_ID = 'a'.repeat(MAX_PARAM_LENGTH + 1);
/** Truncated percent-encoding: the router cannot decode the path. */
const BAD_ENCODING = '%E0%A4%A';

describe('URLs the router refuses (malformed, overlong path parameter)', () => {
  let t: TestApp;
  let admin: string;
  let noRoles: string;

  beforeAll(async () => {
    t = await buildTestApp({ env: { DISPATCH_TOKEN, TRUST_PROXY: 'true' } });
    admin = (await signedInAs(t, ['admin'])).cookie;
    noRoles = (await signedInAs(t, [])).cookie;
  });
  afterAll(async () => {
    await t.close();
  });

  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ url, headers });

  it('lets a path parameter over 100 characters reach the auth hook and the lookup', async () => {
    const anonymous = await get(`/api/users/${LONG_ID}`);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ ok: false, error: { code: 'unauthenticated' } });

    const found = await get(`/api/users/${LONG_ID}`, { cookie: admin });
    expect(found.statusCode).toBe(404);
    expect(found.json()).toMatchObject({ ok: false, error: { code: 'not_found' } });
    // Up to the router's limit an id that names nothing is 404, users and noise jobs alike.
    for (const url of [`/api/users/${'a'.repeat(MAX_PARAM_LENGTH)}`, `/api/noise/jobs/${'b'.repeat(500)}`]) {
      expect((await get(url, { cookie: admin })).statusCode, url.slice(0, 20)).toBe(404);
    }
  });

  it('answers 401 without a session, in the error shape, before refusing the URL', async () => {
    for (const url of [`/api/users/${OVERLONG_ID}`, `/api/roles/${BAD_ENCODING}`]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(401);
      expect(res.json(), url).toMatchObject({ ok: false, error: { code: 'unauthenticated' } });
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['cache-control'], url).toBe('no-store');
    }
  });

  it('answers 401 to a Bearer header even with a valid cookie, also where no route matches', async () => {
    for (const url of [
      `/api/destinations/${OVERLONG_ID}`,
      `/api/roles/${BAD_ENCODING}`,
      `/api/no-such-route/${BAD_ENCODING}`,
    ]) {
      const res = await get(url, { authorization: BEARER, cookie: admin });
      expect(res.statusCode, url).toBe(401);
      expect(res.json(), url).toMatchObject({ ok: false, error: { code: 'unauthenticated' } });
    }
  });

  it('answers 403 to a signed-in user without the capability, and audits it with the client address', async () => {
    const denied = () =>
      t.ctx.db
        .selectFrom('audit_log')
        .select(['target', 'ip'])
        .where('action', '=', 'authz.denied')
        .where('ip', '=', '203.0.113.9')
        .orderBy('id')
        .execute();
    expect(await denied()).toEqual([]);
    for (const url of [`/api/users/${OVERLONG_ID}`, `/api/roles/${BAD_ENCODING}`]) {
      const res = await get(url, { cookie: noRoles, 'x-forwarded-for': '203.0.113.9, 10.0.0.2' });
      expect(res.statusCode, url).toBe(403);
      expect(res.json(), url).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    }
    expect(await denied()).toEqual([
      { target: 'GET /api/users/:id', ip: '203.0.113.9' },
      { target: 'GET /api/roles/:name', ip: '203.0.113.9' },
    ]);
  });

  it('answers 400 invalid_input naming the path parameter once the caller may use the route', async () => {
    const overlong = await get(`/api/users/${OVERLONG_ID}`, { cookie: admin });
    expect(overlong.statusCode).toBe(400);
    expect(overlong.json()).toEqual({
      ok: false,
      error: {
        code: 'invalid_input',
        message: 'Invalid params: id',
        details: { in: 'params', fields: { id: `must NOT have more than ${MAX_PARAM_LENGTH} characters` } },
      },
    });

    const malformed = await get(`/api/roles/${BAD_ENCODING}`, { cookie: admin });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_input',
        details: { in: 'params', fields: { name: 'is not valid percent-encoding' } },
      },
    });
  });

  it('answers 400 invalid_input to a malformed URL that names no route', async () => {
    const res = await get(`/api/no-such-route/${BAD_ENCODING}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });
});
