import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, signedInAs, type TestApp } from '../../test/helpers/test-app.ts';
import { CONSOLE_PAGES } from './console.ts';
import type { RouteInfo } from './route-auth.ts';

const DISPATCH_TOKEN = 'dispatch-token-for-tests-0123456789';

/** Fills route parameters with plausible values so the request reaches the auth hook. */
function concreteUrl(route: RouteInfo): string {
  return route.url.replace(':id', randomUUID()).replace(':name', 'nothing-here').replace('*', 'x.zip');
}

describe('authorization matrix (spec parts 5 and 7, every route)', () => {
  let t: TestApp;
  let noRoles: string;
  let admin: string;
  let protectedRoutes: RouteInfo[];

  beforeAll(async () => {
    t = await buildTestApp({ env: { DISPATCH_TOKEN } });
    noRoles = (await signedInAs(t, [])).cookie;
    admin = (await signedInAs(t, ['admin'])).cookie;
    protectedRoutes = t.app.routeTable.filter((r) => r.auth !== 'public');
  });
  afterAll(async () => {
    await t.close();
  });

  it('declares auth on every route and leaves only health, sign-in, sign-out and the console page public', () => {
    // The console's pages and assets hold no data: the API they call needs the session.
    const consoleRoutes = new Set([...CONSOLE_PAGES, '/assets/*'].map((url) => `GET ${url}`));
    const publicRoutes = t.app.routeTable
      .filter((r) => r.auth === 'public')
      .map((r) => `${r.method} ${r.url}`)
      .filter((route) => !consoleRoutes.has(route))
      .sort();
    expect(publicRoutes).toEqual(['GET /api/health', 'GET /login', 'POST /login', 'POST /logout']);
    expect(t.app.routeTable.filter((r) => consoleRoutes.has(`${r.method} ${r.url}`))).toHaveLength(
      consoleRoutes.size,
    );
    expect(protectedRoutes.length).toBeGreaterThan(10);
  });

  it('answers 401 without a session, before looking at the body', async () => {
    for (const route of protectedRoutes) {
      const res = await t.app.inject({
        method: route.method as 'GET',
        url: concreteUrl(route),
        ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { payload: { nonsense: true } }),
      });
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(401);
      expect(res.json().error.code).toBe('unauthenticated');
    }
  });

  it('answers 401 to a Bearer token on every route but dispatch, even with a valid cookie', async () => {
    for (const route of t.app.routeTable) {
      if (typeof route.auth === 'object' && route.auth.bearer) continue;
      const res = await t.app.inject({
        method: route.method as 'GET',
        url: concreteUrl(route),
        headers: { authorization: `Bearer ${DISPATCH_TOKEN}`, cookie: admin },
      });
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(401);
    }
    // Also where no route matches, and on the dispatch path with another method.
    for (const [method, url] of [
      ['GET', '/api/no-such-route'],
      ['GET', '/api/noise/run'],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: { authorization: `Bearer ${DISPATCH_TOKEN}` } });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
      expect(res.json().error.code).toBe('unauthenticated');
    }
  });

  it('answers 403 to a signed-in user without the capability, before validating the body', async () => {
    for (const route of protectedRoutes) {
      if (typeof route.auth !== 'object' || !route.auth.capability) continue;
      const res = await t.app.inject({
        method: route.method as 'GET',
        url: concreteUrl(route),
        headers: { cookie: noRoles },
        ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { payload: { nonsense: true } }),
      });
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(403);
      expect(res.json().error.code).toBe('forbidden');
    }
  });

  it('lets any signed-in user reach routes that need no capability', async () => {
    const res = await t.app.inject({ url: '/api/me', headers: { cookie: noRoles } });
    expect(res.statusCode).toBe(200);
  });

  it('ignores session tokens in the query string', async () => {
    const token = admin.split('=')[1];
    const res = await t.app.inject({ url: `/api/me?socdrill_session=${token}&session=${token}` });
    expect(res.statusCode).toBe(401);
  });

  it('refuses cookie-authenticated state changes from another origin or site', async () => {
    const foreign = await t.app.inject({
      method: 'POST',
      url: '/api/roles',
      headers: { cookie: admin, origin: 'https://evil.example' },
      payload: { name: 'evil', permissions: [] },
    });
    expect(foreign.statusCode).toBe(403);
    const crossSite = await t.app.inject({
      method: 'POST',
      url: '/api/roles',
      headers: { cookie: admin, 'sec-fetch-site': 'cross-site' },
      payload: { name: 'evil2', permissions: [] },
    });
    expect(crossSite.statusCode).toBe(403);
    const same = await t.app.inject({
      method: 'POST',
      url: '/api/roles',
      headers: { cookie: admin, origin: 'http://socdrill.test' },
      payload: { name: 'fine', permissions: [] },
    });
    expect(same.statusCode).toBe(201);
    const roles = await t.ctx.db.selectFrom('roles').select('name').where('name', 'like', 'evil%').execute();
    expect(roles).toEqual([]);
  });

  it('refuses text/plain and form bodies on JSON routes', async () => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/roles',
        headers: { cookie: admin, 'content-type': type },
        payload: 'name=evil3&permissions=',
      });
      expect(res.statusCode, type).toBe(415);
      expect(res.json().error.code).toBe('unsupported_media_type');
    }
  });

  it('records denied requests in the audit log', async () => {
    await t.app.inject({ url: '/api/users', headers: { cookie: noRoles } });
    const rows = await t.ctx.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'authz.denied')
      .execute();
    expect(rows.some((r) => r.target === 'GET /api/users' && r.outcome === 'denied')).toBe(true);
  });

  it('renders unknown routes as the standard 404 error body', async () => {
    const res = await t.app.inject({ url: '/api/nope', headers: { cookie: admin } });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      ok: false,
      error: { code: 'not_found', message: 'No route GET /api/nope' },
    });
  });

  it('answers health without authentication and without the database', async () => {
    await t.ctx.db.destroy().catch(() => {});
    const res = await t.app.inject({ url: '/api/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
  });
});
