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

  it("a signed-in user's very next request sees a renamed user, a role's new permissions and a disabling", async () => {
    const role = await post('/api/roles', { name: 'cache-check', permissions: ['run_exercises'] });
    expect(role.statusCode, role.body).toBe(201);
    const u = await createTestUser(t.ctx, ['cache-check']);
    const cookie = await login(t.app, u.email, u.password);
    const me = () => t.app.inject({ url: '/api/me', headers: { cookie } });
    expect((await me()).json().user.capabilities).toEqual(['run_exercises']);
    await patch(`/api/users/${u.id}`, { display_name: 'Renamed' });
    expect((await me()).json().user.display_name).toBe('Renamed');
    const changed = await t.app.inject({
      method: 'PATCH',
      url: '/api/roles/cache-check',
      headers: { cookie: admin },
      payload: { permissions: ['manage_noise_logs'] },
    });
    expect(changed.statusCode).toBe(200);
    expect((await me()).json().user.capabilities).toEqual(['manage_noise_logs']);
    await patch(`/api/users/${u.id}`, { disabled: true });
    expect((await me()).statusCode).toBe(401);
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

  it('answers 404, not 400, for a role name longer than any role can have', async () => {
    for (const name of ['x'.repeat(64), 'x'.repeat(100)]) {
      for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
        const res = await t.app.inject({
          method,
          url: `/api/roles/${name}`,
          headers: { cookie: admin },
          ...(method === 'PATCH' ? { payload: { permissions: [] } } : {}),
        });
        expect(res.statusCode, `${method} ${name.length}`).toBe(404);
        expect(res.json().error.code).toBe('not_found');
      }
    }
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

// On PGlite (one connection) requests cannot interleave inside the database; these bite on PostgreSQL.
describe('users and roles API under concurrent requests', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await buildTestApp();
    admin = (await signedInAs(t, ['admin'])).cookie;
  });
  afterAll(async () => {
    await t.close();
  });

  const send = (method: 'POST' | 'PATCH' | 'DELETE', url: string, cookie: string, payload?: object) =>
    t.app.inject({ method, url, headers: { cookie }, ...(payload ? { payload } : {}) });

  /** Sends `create` twice at once, `tries` times; returns each try's answers and the refusals. */
  const createTwice = async (tries: number, create: (i: number) => ReturnType<typeof send>) => {
    const statuses: number[][] = [];
    const refusals: unknown[] = [];
    for (let i = 0; i < tries; i += 1) {
      const answers = await Promise.all([create(i), create(i)]);
      statuses.push(answers.map((a) => a.statusCode).sort());
      for (const a of answers) if (a.statusCode === 409) refusals.push(a.json().error);
    }
    return { statuses, refusals };
  };

  it('answers 409, not 500, to the loser of two concurrent creates of one e-mail', async () => {
    const { statuses, refusals } = await createTwice(10, (i) =>
      send('POST', '/api/users', admin, {
        email: `twin${i}@example.test`,
        password: 'a long enough password',
        roles: [],
      }),
    );
    expect(statuses).toEqual(Array(10).fill([201, 409]));
    expect(refusals[3]).toEqual({
      code: 'conflict',
      message: 'A user with e-mail twin3@example.test already exists',
      details: { email: 'twin3@example.test' },
    });
  });

  it('answers 409, not 500, to the loser of two concurrent creates of one role name', async () => {
    const { statuses, refusals } = await createTwice(10, (i) =>
      send('POST', '/api/roles', admin, { name: `twin-${i}`, permissions: [] }),
    );
    expect(statuses).toEqual(Array(10).fill([201, 409]));
    expect(refusals[3]).toEqual({
      code: 'conflict',
      message: 'Role "twin-3" already exists',
      details: { name: 'twin-3' },
    });
  });

  /** Leaves `keep` as the only enabled users, so they alone can manage users. */
  const onlyEnabled = async (keep: string[]) => {
    await t.ctx.db.updateTable('users').set({ disabled: true }).where('id', 'not in', keep).execute();
  };

  it('keeps one user manager when the last two disable each other at the same moment', async () => {
    for (let i = 0; i < 8; i += 1) {
      const a = await signedInAs(t, ['admin']);
      const b = await signedInAs(t, ['admin']);
      await onlyEnabled([a.user.id, b.user.id]);
      const answers = await Promise.all([
        send('PATCH', `/api/users/${b.user.id}`, a.cookie, { disabled: true }),
        send('PATCH', `/api/users/${a.user.id}`, b.cookie, { disabled: true }),
      ]);
      // The loser is refused by the invariant (409), or as signed out (401) when the winner
      // committed, ending its sessions, before the loser's request was authenticated.
      const [first, second] = answers.map((r) => r.statusCode).sort();
      expect(first, `try ${i}`).toBe(200);
      expect([401, 409], `try ${i}`).toContain(second);
      const left = await t.ctx.db
        .selectFrom('users')
        .select('id')
        .where('disabled', '=', false)
        .where('id', 'in', [a.user.id, b.user.id])
        .execute();
      expect(left, `try ${i}`).toHaveLength(1);
    }
  });

  it('keeps one user manager when a managing role is deleted while the other manager is disabled', async () => {
    for (let i = 0; i < 8; i += 1) {
      const role = `keepers-${i}`;
      const boss = await signedInAs(t, ['admin']);
      const created = await send('POST', '/api/roles', boss.cookie, {
        name: role,
        permissions: ['manage_users'],
      });
      expect(created.statusCode).toBe(201);
      const keeper = await signedInAs(t, [role]);
      await onlyEnabled([keeper.user.id, boss.user.id]);
      const answers = await Promise.all([
        send('DELETE', `/api/roles/${role}`, keeper.cookie),
        send('PATCH', `/api/users/${boss.user.id}`, boss.cookie, { disabled: true }),
      ]);
      expect(answers.map((r) => r.statusCode).sort(), `try ${i}`).toEqual([200, 409]);
    }
  });
});
