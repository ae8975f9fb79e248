import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, signedInAs, type TestApp } from '../../test/helpers/test-app.ts';

const LINES = [
  '<134>Mar 11 09:15:02 fw01 LEEF:2.0|Lab|Auth|1.0|login|^|devTime=1710148502000^src=10.0.0.1^usrName=alice',
  '<134>Mar 11 09:16:02 fw01 LEEF:2.0|Lab|Auth|1.0|logout|^|devTime=1710148562000^src=10.0.0.1^usrName=alice',
];

// Sends the token line and `lines` on one connection, then waits for the service to close or end it.
function send(port: number, token: string, lines: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.end(`${token}\n${lines.join('\r\n')}\n`);
    });
    socket.on('error', reject);
    socket.on('close', () => resolve());
    socket.resume();
  });
}

describe('live TCP intake routes', () => {
  let t: TestApp;
  let cookie: string;
  let exerciseId: string;
  let sectionId: string;
  beforeAll(async () => {
    t = await buildTestApp({ env: { INTAKE_HOST: '127.0.0.1' } });
    cookie = (await signedInAs(t, ['author'])).cookie;
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/exercises',
      headers: { cookie },
      payload: { title: 'Intake drill' },
    });
    exerciseId = created.json().id;
    const section = await t.app.inject({
      method: 'POST',
      url: `/api/exercises/${exerciseId}/sections`,
      headers: { cookie },
      payload: { name: 'Recon' },
    });
    sectionId = section.json().created_id;
  });
  afterAll(async () => {
    await t.close();
  });

  it('turns the lines a forwarder sent after the token into the section archive', async () => {
    const base = `/api/exercises/${exerciseId}/sections/${sectionId}/intake`;
    const opened = await t.app.inject({
      method: 'POST',
      url: base,
      headers: { cookie },
      payload: { max_seconds: 60 },
    });
    expect(opened.statusCode).toBe(201);
    const ticket = opened.json() as { host: string; port: number; token: string; expires_at: string };
    expect(ticket.host).toBe('127.0.0.1');

    await send(ticket.port, 'not-the-token', ['<134>Mar 11 09:00:00 x LEEF:2.0|Evil|X|1|y|^|a=b']);
    await send(ticket.port, ticket.token, LINES);
    const status = await t.app.inject({ method: 'GET', url: base, headers: { cookie } });
    expect(status.json()).toMatchObject({ lines: 2, rejected: 1, state: 'open' });

    const finished = await t.app.inject({ method: 'POST', url: `${base}/finish`, headers: { cookie } });
    expect(finished.statusCode).toBe(201);
    expect(finished.json()).toMatchObject({ format: 'leef', files: 1, events: 2 });
    const exercise = (
      await t.app.inject({ method: 'GET', url: `/api/exercises/${exerciseId}`, headers: { cookie } })
    ).json();
    expect(exercise.sections[0].archives).toHaveLength(1);
    expect((await t.app.inject({ method: 'GET', url: base, headers: { cookie } })).statusCode).toBe(404);
    const actions = (await t.ctx.db.selectFrom('audit_log').select('action').execute()).map((r) => r.action);
    expect(actions).toEqual(expect.arrayContaining(['exercise.intake.open', 'exercise.intake.finish']));
  });

  it('keeps the lines when the finish is refused: 412 on a stale If-Match, then stored at the right version', async () => {
    const base = `/api/exercises/${exerciseId}/sections/${sectionId}/intake`;
    const opened = await t.app.inject({ method: 'POST', url: base, headers: { cookie }, payload: {} });
    const ticket = opened.json() as { port: number; token: string };
    await send(ticket.port, ticket.token, LINES);
    const version = (
      await t.app.inject({ method: 'GET', url: `/api/exercises/${exerciseId}`, headers: { cookie } })
    ).json().version as number;

    const stale = await t.app.inject({
      method: 'POST',
      url: `${base}/finish`,
      headers: { cookie, 'if-match': String(version - 1) },
    });
    expect(stale.statusCode).toBe(412);
    expect((await t.app.inject({ method: 'GET', url: base, headers: { cookie } })).json()).toMatchObject({
      lines: 2,
    });

    const finished = await t.app.inject({
      method: 'POST',
      url: `${base}/finish`,
      headers: { cookie, 'if-match': String(version) },
    });
    expect(finished.statusCode).toBe(201);
    expect(finished.json()).toMatchObject({ format: 'leef', events: 2 });
    const exercise = (
      await t.app.inject({ method: 'GET', url: `/api/exercises/${exerciseId}`, headers: { cookie } })
    ).json();
    expect(exercise.version).toBe(version + 1);
    expect(exercise.sections[0].archives).toMatchObject([{ format: 'leef', events: 2 }]);
    expect((await t.app.inject({ method: 'GET', url: base, headers: { cookie } })).statusCode).toBe(404);
  });

  it('keeps the lines of content it cannot store (unknown_format) until the intake is cancelled', async () => {
    const base = `/api/exercises/${exerciseId}/sections/${sectionId}/intake`;
    const opened = await t.app.inject({ method: 'POST', url: base, headers: { cookie }, payload: {} });
    const ticket = opened.json() as { port: number; token: string };
    await send(ticket.port, ticket.token, ['plain text', 'that is no log format']);

    for (let i = 0; i < 2; i++) {
      const refused = await t.app.inject({ method: 'POST', url: `${base}/finish`, headers: { cookie } });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ error: { code: 'unknown_format' } });
      expect((await t.app.inject({ method: 'GET', url: base, headers: { cookie } })).json()).toMatchObject({
        lines: 2,
        state: 'finished',
      });
    }
    expect((await t.app.inject({ method: 'DELETE', url: base, headers: { cookie } })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: base, headers: { cookie } })).statusCode).toBe(404);
  });

  it('answers 404 for a section of no exercise and 400 for a finish with nothing received', async () => {
    const missing = await t.app.inject({
      method: 'POST',
      url: `/api/exercises/${exerciseId}/sections/00000000-0000-4000-8000-000000000000/intake`,
      headers: { cookie },
      payload: {},
    });
    expect(missing.statusCode).toBe(404);
    const base = `/api/exercises/${exerciseId}/sections/${sectionId}/intake`;
    expect(
      (await t.app.inject({ method: 'POST', url: base, headers: { cookie }, payload: {} })).statusCode,
    ).toBe(201);
    const empty = await t.app.inject({ method: 'POST', url: `${base}/finish`, headers: { cookie } });
    expect(empty.statusCode).toBe(400);
    expect((await t.app.inject({ method: 'DELETE', url: base, headers: { cookie } })).statusCode).toBe(200);
  });
});
