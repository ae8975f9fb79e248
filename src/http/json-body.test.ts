import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, signedInAs, type TestApp } from '../../test/helpers/test-app.ts';

describe('JSON request bodies', () => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    t = await buildTestApp();
    admin = (await signedInAs(t, ['admin'])).cookie;
  });
  afterAll(async () => {
    await t.close();
  });

  const post = (payload: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/destinations',
      headers: { cookie: admin, 'content-type': 'application/json' },
      payload,
    });

  it('an empty body labelled JSON is no body: a route that needs one answers 400 in the error shape', async () => {
    const res = await post('');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });

  it('still refuses malformed JSON and prototype keys with 400', async () => {
    for (const payload of [
      '{',
      '{"__proto__":{"admin":true},"name":"x"}',
      '{"constructor":{"prototype":{}}}',
    ]) {
      const res = await post(payload);
      expect(res.statusCode, payload).toBe(400);
      expect(res.json(), payload).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    }
  });
});
