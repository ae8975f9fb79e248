import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, login, type TestApp } from '../../test/helpers/test-app.ts';

describe('sign-in routes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('signs in, sets an HttpOnly SameSite=Lax cookie and returns the user with capabilities', async () => {
    const u = await createTestUser(t.ctx, ['author', 'noise_operator']);
    const res = await t.app.inject({
      method: 'POST',
      url: '/login',
      payload: { email: u.email, password: u.password },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      ok: true,
      user: {
        id: u.id,
        email: u.email,
        display_name: '',
        capabilities: ['manage_exercises', 'manage_noise_logs'],
      },
    });
    const cookie = res.cookies.find((c) => c.name === 'socdrill_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(cookie?.secure).toBeFalsy();
    expect(cookie?.value.length).toBeGreaterThanOrEqual(43);

    const me = await t.app.inject({
      url: '/api/me',
      headers: { cookie: `socdrill_session=${cookie?.value}` },
    });
    expect(me.statusCode).toBe(200);
    expect(me.json().user.email).toBe(u.email);
  });

  it('signs in case-insensitively by e-mail', async () => {
    const u = await createTestUser(t.ctx, ['analyst']);
    const res = await t.app.inject({
      method: 'POST',
      url: '/login',
      payload: { email: u.email.toUpperCase(), password: u.password },
    });
    expect(res.statusCode).toBe(200);
  });

  it('answers a wrong password and an unknown account identically with 401', async () => {
    const u = await createTestUser(t.ctx, ['analyst']);
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/login',
      payload: { email: u.email, password: 'nope-nope-nope' },
    });
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/login',
      payload: { email: 'nobody@example.test', password: 'nope-nope-nope' },
    });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual(unknown.json());
    expect(wrong.json().error.code).toBe('unauthenticated');
  });

  it('refuses a disabled user like a wrong password', async () => {
    const u = await createTestUser(t.ctx, ['analyst']);
    await t.ctx.db.updateTable('users').set({ disabled: true }).where('id', '=', u.id).execute();
    const res = await t.app.inject({
      method: 'POST',
      url: '/login',
      payload: { email: u.email, password: u.password },
    });
    expect(res.statusCode).toBe(401);
  });

  it('rejects a password differing only in its last character (no truncation)', async () => {
    const long = `${'x'.repeat(127)}a`;
    const u = await createTestUser(t.ctx, ['analyst'], { password: long });
    const bad = await t.app.inject({
      method: 'POST',
      url: '/login',
      payload: { email: u.email, password: `${'x'.repeat(127)}b` },
    });
    expect(bad.statusCode).toBe(401);
    const good = await t.app.inject({
      method: 'POST',
      url: '/login',
      payload: { email: u.email, password: long },
    });
    expect(good.statusCode).toBe(200);
  });

  it('rotates the session at sign-in: the cookie held before no longer works', async () => {
    const u = await createTestUser(t.ctx, ['analyst']);
    const first = await login(t.app, u.email, u.password);
    const res = await t.app.inject({
      method: 'POST',
      url: '/login',
      headers: { cookie: first },
      payload: { email: u.email, password: u.password },
    });
    const second = res.cookies.find((c) => c.name === 'socdrill_session')?.value;
    expect(`socdrill_session=${second}`).not.toBe(first);
    expect((await t.app.inject({ url: '/api/me', headers: { cookie: first } })).statusCode).toBe(401);
    expect(
      (await t.app.inject({ url: '/api/me', headers: { cookie: `socdrill_session=${second}` } })).statusCode,
    ).toBe(200);
  });

  it('ends the session at logout; replaying the cookie is 401', async () => {
    const u = await createTestUser(t.ctx, ['analyst']);
    const cookie = await login(t.app, u.email, u.password);
    const out = await t.app.inject({ method: 'POST', url: '/logout', headers: { cookie } });
    expect(out.statusCode).toBe(200);
    expect(out.json()).toEqual({ ok: true });
    expect((await t.app.inject({ url: '/api/me', headers: { cookie } })).statusCode).toBe(401);
  });

  it('expires an idle session and an old session (idle and absolute timeouts)', async () => {
    const u = await createTestUser(t.ctx, ['analyst']);
    const idle = await login(t.app, u.email, u.password);
    t.clock.advance(t.ctx.config.sessionIdleSeconds * 1000 + 1000);
    expect((await t.app.inject({ url: '/api/me', headers: { cookie: idle } })).statusCode).toBe(401);

    const active = await login(t.app, u.email, u.password);
    const step = (t.ctx.config.sessionIdleSeconds * 1000) / 2;
    let elapsed = 0;
    while (elapsed + step < t.ctx.config.sessionAbsoluteSeconds * 1000) {
      t.clock.advance(step);
      elapsed += step;
      expect((await t.app.inject({ url: '/api/me', headers: { cookie: active } })).statusCode).toBe(200);
    }
    t.clock.advance(step);
    expect((await t.app.inject({ url: '/api/me', headers: { cookie: active } })).statusCode).toBe(401);
  });

  it('throttles an account after 10 failures and clears by itself after the window', async () => {
    const u = await createTestUser(t.ctx, ['analyst']);
    for (let i = 0; i < 10; i++) {
      const r = await t.app.inject({
        method: 'POST',
        url: '/login',
        remoteAddress: `10.0.0.${i + 1}`,
        payload: { email: u.email, password: 'wrong-password' },
      });
      expect(r.statusCode).toBe(401);
    }
    const blocked = await t.app.inject({
      method: 'POST',
      url: '/login',
      remoteAddress: '10.0.1.1',
      payload: { email: u.email, password: u.password },
    });
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().error.code).toBe('rate_limited');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    t.clock.advance(15 * 60_000 + 1000);
    const later = await t.app.inject({
      method: 'POST',
      url: '/login',
      payload: { email: u.email, password: u.password },
    });
    expect(later.statusCode).toBe(200);
  });

  it('throttles one address across accounts', async () => {
    for (let i = 0; i < 50; i++) {
      await t.app.inject({
        method: 'POST',
        url: '/login',
        remoteAddress: '192.0.2.99',
        payload: { email: `spray${i}@example.test`, password: 'wrong-password' },
      });
    }
    const u = await createTestUser(t.ctx, ['analyst']);
    const res = await t.app.inject({
      method: 'POST',
      url: '/login',
      remoteAddress: '192.0.2.99',
      payload: { email: u.email, password: u.password },
    });
    expect(res.statusCode).toBe(429);
    t.clock.advance(15 * 60_000 + 1000);
  });

  it('refuses a sign-in posted from another origin', async () => {
    const u = await createTestUser(t.ctx, ['analyst']);
    const res = await t.app.inject({
      method: 'POST',
      url: '/login',
      headers: { origin: 'https://evil.example' },
      payload: { email: u.email, password: u.password },
    });
    expect(res.statusCode).toBe(403);
  });

  it('validates the sign-in body with a 400 naming the field', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/login', payload: { email: 'a@b.c' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details.fields).toHaveProperty('password');
  });

  it('serves the sign-in page at GET /login', async () => {
    const res = await t.app.inject({ url: '/login' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body).toContain('Sign in');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
  });

  it('audits sign-ins with outcome and address, never the password', async () => {
    const u = await createTestUser(t.ctx, ['analyst']);
    await t.app.inject({
      method: 'POST',
      url: '/login',
      remoteAddress: '198.51.100.7',
      payload: { email: u.email, password: 'bad-password-1' },
    });
    await login(t.app, u.email, u.password);
    const rows = await t.ctx.db
      .selectFrom('audit_log')
      .selectAll()
      .where('target', '=', u.email)
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.action, r.outcome])).toEqual([
      ['auth.login', 'failure'],
      ['auth.login', 'success'],
    ]);
    expect(rows[0]?.ip).toBe('198.51.100.7');
    expect(JSON.stringify(rows)).not.toContain(u.password);
  });
});
