import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, signedInAs, type TestApp } from '../../test/helpers/test-app.ts';
import type { UserView } from '../users/user-service.ts';

const DISPATCH_TOKEN = 'dispatch-token-for-tests-0123456789';

describe('refused requests in the audit log', () => {
  let t: TestApp;
  let admin: { cookie: string; user: UserView };

  beforeAll(async () => {
    t = await buildTestApp({ env: { DISPATCH_TOKEN } });
    admin = await signedInAs(t, ['admin']);
  });
  afterAll(async () => {
    await t.close();
  });

  /** Runs `send` and returns the audit records it added, oldest first. */
  async function auditedDuring(send: () => Promise<void>) {
    const last = await t.ctx.db
      .selectFrom('audit_log')
      .select(({ fn }) => fn.max('id').as('id'))
      .executeTakeFirstOrThrow();
    await send();
    const rows = await t.ctx.db
      .selectFrom('audit_log')
      .select(['actor_type', 'actor_id', 'action', 'target', 'outcome', 'details', 'ip'])
      .where('id', '>', last.id ?? '0')
      .orderBy('id')
      .execute();
    return rows.map((r) => ({
      ...r,
      details: typeof r.details === 'string' ? JSON.parse(r.details) : r.details,
    }));
  }

  it('records cross-origin and cross-site refusals, with who tried and from which origin', async () => {
    const rows = await auditedDuring(async () => {
      const foreign = await t.app.inject({
        method: 'POST',
        url: '/api/roles',
        remoteAddress: '203.0.113.7',
        headers: { cookie: admin.cookie, origin: 'https://evil.example' },
        payload: { name: 'evil', permissions: ['manage_users'] },
      });
      expect(foreign.statusCode).toBe(403);
      const crossSite = await t.app.inject({
        method: 'DELETE',
        url: `/api/users/${admin.user.id}`,
        headers: { cookie: admin.cookie, 'sec-fetch-site': 'cross-site' },
      });
      expect(crossSite.statusCode).toBe(403);
      const login = await t.app.inject({
        method: 'POST',
        url: '/login',
        headers: { origin: 'https://evil.example' },
        payload: { email: 'victim@example.test', password: 'attacker-password' },
      });
      expect(login.statusCode).toBe(403);
    });
    expect(rows).toEqual([
      {
        actor_type: 'user',
        actor_id: admin.user.id,
        action: 'authz.denied',
        target: 'POST /api/roles',
        outcome: 'denied',
        details: { reason: 'cross_origin', origin: 'https://evil.example' },
        ip: '203.0.113.7',
      },
      expect.objectContaining({
        actor_id: admin.user.id,
        action: 'authz.denied',
        target: 'DELETE /api/users/:id',
        outcome: 'denied',
        details: { reason: 'cross_site' },
      }),
      expect.objectContaining({
        actor_type: 'anonymous',
        action: 'authz.denied',
        target: 'POST /login',
        outcome: 'denied',
        details: { reason: 'cross_origin', origin: 'https://evil.example' },
      }),
    ]);
  });

  it('records misplaced and wrong Bearer tokens, never the token itself; a missing session is not recorded', async () => {
    const rows = await auditedDuring(async () => {
      const guesses = [
        { method: 'POST', url: '/api/noise/run', token: 'guess-1' },
        { method: 'GET', url: '/api/users', token: DISPATCH_TOKEN },
        { method: 'GET', url: '/api/no-such-route?x=1', token: DISPATCH_TOKEN },
      ] as const;
      for (const g of guesses) {
        const res = await t.app.inject({
          method: g.method,
          url: g.url,
          headers: { authorization: `Bearer ${g.token}` },
          ...(g.method === 'POST' ? { payload: {} } : {}),
        });
        expect(res.statusCode, g.url).toBe(401);
      }
      // An anonymous probe without any credential: too common to record each one.
      expect((await t.app.inject({ url: '/api/users' })).statusCode).toBe(401);
    });
    expect(rows).toEqual([
      expect.objectContaining({
        actor_type: 'anonymous',
        action: 'authz.denied',
        target: 'POST /api/noise/run',
        outcome: 'denied',
        details: { reason: 'invalid_bearer_token' },
      }),
      expect.objectContaining({
        target: 'GET /api/users',
        outcome: 'denied',
        details: { reason: 'bearer_not_accepted' },
      }),
      expect.objectContaining({
        target: 'GET /api/no-such-route',
        outcome: 'denied',
        details: { reason: 'bearer_not_accepted' },
      }),
    ]);
    expect(JSON.stringify(rows)).not.toContain('guess-1');
    expect(JSON.stringify(rows)).not.toContain(DISPATCH_TOKEN);
  });

  it('still answers 401 and 403 when the audit record cannot be written', async () => {
    const audit = vi.spyOn(t.ctx, 'audit').mockRejectedValue(new Error('audit table unavailable'));
    try {
      const foreign = await t.app.inject({
        method: 'POST',
        url: '/api/roles',
        headers: { cookie: admin.cookie, origin: 'https://evil.example' },
        payload: { name: 'evil', permissions: [] },
      });
      expect(foreign.statusCode).toBe(403);
      const bearer = await t.app.inject({
        method: 'POST',
        url: '/api/noise/run',
        headers: { authorization: 'Bearer guess-2' },
        payload: {},
      });
      expect(bearer.statusCode).toBe(401);
      expect(audit).toHaveBeenCalledTimes(2);
    } finally {
      audit.mockRestore();
    }
  });
});
