import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTestApp,
  createTestUser,
  login,
  signedInAs,
  type TestApp,
} from '../../test/helpers/test-app.ts';

describe('users and roles API', () => {
  let t: TestApp;
  let admin: string;
  let adminId: string;

  beforeAll(async () => {
    t = await buildTestApp();
    const a = await signedInAs(t, ['admin']);
    admin = a.cookie;
    adminId = a.user.id;
  });
  afterAll(async () => {
    await t.close();
  });

  const post = (url: string, payload: object) =>
    t.app.inject({ method: 'POST', url, headers: { cookie: admin }, payload });
  const patch = (url: string, payload: object) =>
    t.app.inject({ method: 'PATCH', url, headers: { cookie: admin }, payload });

  it('creates a user with roles and never returns the password or its hash', async () => {
    const res = await post('/api/users', {
      email: 'Ana@Example.test',
      password: 'a long enough password',
      display_name: 'Ana',
      roles: ['author', 'analyst'],
    });
    expect(res.statusCode).toBe(201);
    const user = res.json();
    expect(user).toMatchObject({
      email: 'ana@example.test',
      display_name: 'Ana',
      roles: ['analyst', 'author'],
      capabilities: ['manage_exercises', 'run_exercises'],
      disabled: false,
    });
    expect(res.body).not.toContain('password');
    const list = await t.app.inject({ url: '/api/users', headers: { cookie: admin } });
    expect(list.statusCode).toBe(200);
    expect(list.json().map((u: { email: string }) => u.email)).toContain('ana@example.test');
    expect(list.body).not.toContain('argon2');
  });

  it('refuses a duplicate e-mail with 409', async () => {
    await post('/api/users', { email: 'dup@example.test', password: 'a long enough password', roles: [] });
    const res = await post('/api/users', {
      email: 'DUP@example.test',
      password: 'another long password',
      roles: [],
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('conflict');
  });

  it('names every bad field of a user in a 400', async () => {
    const res = await post('/api/users', { email: 'not-an-email', password: 'short', roles: ['nope'] });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_input');
    expect(Object.keys(res.json().error.details.fields).sort()).toEqual(['email', 'password', 'roles']);
    const roles = await post('/api/users', {
      email: 'r@example.test',
      password: 'a long enough password',
      roles: ['nope'],
    });
    expect(roles.statusCode).toBe(400);
    expect(roles.json().error.details.fields.roles).toContain('nope');
    const unknownField = await post('/api/users', {
      email: 'x@example.test',
      password: 'a long enough password',
      roles: [],
      is_admin: true,
    });
    expect(unknownField.statusCode).toBe(400);
    expect(unknownField.json().error.details.fields).toEqual({ is_admin: 'is not a known field' });
    const missing = await post('/api/users', {});
    expect(missing.statusCode).toBe(400);
    expect(Object.keys(missing.json().error.details.fields).sort()).toEqual(['email', 'password', 'roles']);
  });

  it('ends all sessions of a user whose password changes or who is disabled', async () => {
    const u = await createTestUser(t.ctx, ['analyst']);
    const cookie = await login(t.app, u.email, u.password);
    const res = await patch(`/api/users/${u.id}`, { password: 'a brand new password' });
    expect(res.statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/me', headers: { cookie } })).statusCode).toBe(401);
    await login(t.app, u.email, 'a brand new password');

    const again = await login(t.app, u.email, 'a brand new password');
    await patch(`/api/users/${u.id}`, { disabled: true });
    expect((await t.app.inject({ url: '/api/me', headers: { cookie: again } })).statusCode).toBe(401);
    const refused = await t.app.inject({
      method: 'POST',
      url: '/login',
      payload: { email: u.email, password: 'a brand new password' },
    });
    expect(refused.statusCode).toBe(401);
  });

  it('announces ended sessions so open streams can close at once', async () => {
    const seen: unknown[] = [];
    const listener = (e: unknown) => seen.push(e);
    t.ctx.sessionEvents.on('ended', listener);
    const u = await createTestUser(t.ctx, ['analyst']);
    const cookie = await login(t.app, u.email, u.password);
    await patch(`/api/users/${u.id}`, { disabled: true });
    await t.app.inject({ method: 'DELETE', url: `/api/users/${u.id}`, headers: { cookie: admin } });
    const v = await createTestUser(t.ctx, ['analyst']);
    const vCookie = await login(t.app, v.email, v.password);
    await t.app.inject({ method: 'POST', url: '/logout', headers: { cookie: vCookie } });
    t.ctx.sessionEvents.off('ended', listener);
    expect(seen).toEqual([
      { userId: u.id },
      { userId: u.id },
      { sessionHash: expect.stringMatching(/^[0-9a-f]{64}$/) },
    ]);
    expect(cookie).toBeTruthy();
  });

  it('applies a role change at once: the user signs in again with the new capabilities', async () => {
    const u = await createTestUser(t.ctx, ['analyst']);
    const res = await patch(`/api/users/${u.id}`, { roles: ['noise_operator'] });
    expect(res.json().capabilities).toEqual(['manage_noise_logs']);
    const cookie = await login(t.app, u.email, u.password);
    const me = await t.app.inject({ url: '/api/me', headers: { cookie } });
    expect(me.json().user.capabilities).toEqual(['manage_noise_logs']);
  });

  it('deletes a user and answers 404 for unknown ids', async () => {
    const u = await createTestUser(t.ctx, ['analyst']);
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/api/users/${u.id}`,
      headers: { cookie: admin },
    });
    expect(del.statusCode).toBe(200);
    const again = await t.app.inject({
      method: 'DELETE',
      url: `/api/users/${u.id}`,
      headers: { cookie: admin },
    });
    expect(again.statusCode).toBe(404);
    // Text that is no id names no user either.
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const bad = await t.app.inject({
        method,
        url: '/api/users/not-a-uuid',
        headers: { cookie: admin },
        ...(method === 'PATCH' ? { payload: { display_name: 'x' } } : {}),
      });
      expect(bad.statusCode, method).toBe(404);
      expect(bad.json().error.code).toBe('not_found');
    }
  });

  it('refuses to remove the last user who can manage users', async () => {
    const others = await t.ctx.db.selectFrom('users').select('id').where('id', '!=', adminId).execute();
    for (const o of others) {
      await t.ctx.db
        .deleteFrom('user_roles')
        .where('user_id', '=', o.id)
        .where('role_name', '=', 'admin')
        .execute();
    }
    const disable = await patch(`/api/users/${adminId}`, { disabled: true });
    expect(disable.statusCode).toBe(409);
    const demote = await patch(`/api/users/${adminId}`, { roles: ['author'] });
    expect(demote.statusCode).toBe(409);
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/api/users/${adminId}`,
      headers: { cookie: admin },
    });
    expect(del.statusCode).toBe(409);
    expect((await t.app.inject({ url: '/api/me', headers: { cookie: admin } })).statusCode).toBe(200);
  });

  it('creates, changes and deletes a custom role; unknown capabilities are 400', async () => {
    const bad = await post('/api/roles', { name: 'ops', permissions: ['manage_exercises', 'fly'] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toContain('fly');

    const created = await post('/api/roles', {
      name: 'ops',
      permissions: ['manage_noise_logs', 'manage_destinations'],
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({
      name: 'ops',
      builtin: false,
      permissions: ['manage_noise_logs', 'manage_destinations'],
    });
    expect((await post('/api/roles', { name: 'ops', permissions: [] })).statusCode).toBe(409);

    const u = await createTestUser(t.ctx, ['ops', 'author']);
    const cookie = await login(t.app, u.email, u.password);
    const me = await t.app.inject({ url: '/api/me', headers: { cookie } });
    expect(me.json().user.capabilities).toEqual([
      'manage_destinations',
      'manage_exercises',
      'manage_noise_logs',
    ]);

    const changed = await patch('/api/roles/ops', { permissions: ['run_exercises'] });
    expect(changed.statusCode).toBe(200);
    const me2 = await t.app.inject({ url: '/api/me', headers: { cookie } });
    expect(me2.json().user.capabilities).toEqual(['manage_exercises', 'run_exercises']);

    const del = await t.app.inject({ method: 'DELETE', url: '/api/roles/ops', headers: { cookie: admin } });
    expect(del.statusCode).toBe(200);
    const me3 = await t.app.inject({ url: '/api/me', headers: { cookie } });
    expect(me3.json().user.capabilities).toEqual(['manage_exercises']);
  });

  it('keeps built-in roles: admin cannot change, none can be deleted', async () => {
    const roles = await t.app.inject({ url: '/api/roles', headers: { cookie: admin } });
    expect(
      roles
        .json()
        .filter((r: { builtin: boolean }) => r.builtin)
        .map((r: { name: string }) => r.name),
    ).toEqual(['admin', 'analyst', 'author', 'noise_operator']);
    expect((await patch('/api/roles/admin', { permissions: [] })).statusCode).toBe(409);
    const del = await t.app.inject({
      method: 'DELETE',
      url: '/api/roles/author',
      headers: { cookie: admin },
    });
    expect(del.statusCode).toBe(409);
    expect((await t.app.inject({ url: '/api/roles/ghost', headers: { cookie: admin } })).statusCode).toBe(
      404,
    );
  });

  it('writes user and role changes to the audit log, readable by manage_users', async () => {
    await post('/api/roles', { name: 'auditme', permissions: [] });
    const res = await t.app.inject({ url: '/api/audit?action=role.&limit=5', headers: { cookie: admin } });
    expect(res.statusCode).toBe(200);
    const rows = res.json();
    expect(rows[0]).toMatchObject({
      action: 'role.create',
      target: 'auditme',
      outcome: 'success',
      actor_type: 'user',
    });
    expect(rows[0].ip).toBe('127.0.0.1');
    expect(new Date(rows[0].at).toISOString()).toBe(rows[0].at);
    const page2 = await t.app.inject({
      url: `/api/audit?before=${rows[0].id}&limit=1`,
      headers: { cookie: admin },
    });
    expect(Number(page2.json()[0].id)).toBeLessThan(Number(rows[0].id));
    const bad = await t.app.inject({ url: '/api/audit?limit=0', headers: { cookie: admin } });
    expect(bad.statusCode).toBe(400);
  });
});
