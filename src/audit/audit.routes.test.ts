import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, signedInAs, type TestApp } from '../../test/helpers/test-app.ts';

describe('GET /api/audit', () => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    t = await buildTestApp();
    admin = (await signedInAs(t, ['admin'])).cookie;
  });
  afterAll(async () => {
    await t.close();
  });

  const list = (query: string) => t.app.inject({ url: `/api/audit?${query}`, headers: { cookie: admin } });

  it('answers 400 naming `before` beyond the largest possible id (2^63 - 1), and pages from that id', async () => {
    const largest = await list('before=9223372036854775807');
    expect(largest.statusCode).toBe(200);
    expect(largest.json().length).toBeGreaterThan(0);
    for (const before of ['9223372036854775808', '9999999999999999999']) {
      const res = await list(`before=${before}`);
      expect(res.statusCode, before).toBe(400);
      expect(res.json(), before).toEqual({
        ok: false,
        error: {
          code: 'invalid_input',
          message: 'Invalid querystring: before',
          details: { in: 'querystring', fields: { before: 'must be at most 9223372036854775807' } },
        },
      });
    }
  });

  it('keeps records in a time range: since is inclusive, until exclusive', async () => {
    const at = (iso: string) =>
      t.ctx.db
        .insertInto('audit_log')
        .values({ at: iso, actor_type: 'system', action: 'range.test', outcome: 'success' })
        .execute();
    await at('2026-05-01T10:00:00.000Z');
    await at('2026-05-01T11:00:00.000Z');
    await at('2026-05-01T12:00:00.000Z');
    const res = await list('action=range.test&since=2026-05-01T10:00:00.000Z&until=2026-05-01T12:00:00.000Z');
    expect(res.statusCode).toBe(200);
    expect(res.json().map((r: { at: string }) => r.at)).toEqual([
      '2026-05-01T11:00:00.000Z',
      '2026-05-01T10:00:00.000Z',
    ]);
    expect((await list('until=yesterday')).statusCode).toBe(400);
  });
});
