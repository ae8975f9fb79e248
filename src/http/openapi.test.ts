import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, signedInAs, type TestApp } from '../../test/helpers/test-app.ts';

describe('OpenAPI document and reference page', () => {
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await buildTestApp();
    // Any signed-in user, no capability needed.
    cookie = (await signedInAs(t, [])).cookie;
  });
  afterAll(async () => {
    await t.close();
  });

  it('needs a signed-in user for the document and the reference page, like every API route but health', async () => {
    for (const url of ['/api/openapi.json', '/api/docs/', '/api/docs/json']) {
      const res = await t.app.inject({ url });
      expect(res.statusCode, url).toBe(401);
      expect(res.json().error.code, url).toBe('unauthenticated');
    }
  });

  it('serves an OpenAPI 3.1 document generated from the route schemas to a signed-in user', async () => {
    const res = await t.app.inject({ url: '/api/openapi.json', headers: { cookie } });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBe('Socdrill API');
    for (const [path, method] of [
      ['/api/health', 'get'],
      ['/login', 'post'],
      ['/api/me', 'get'],
      ['/api/users', 'post'],
      ['/api/roles/{name}', 'patch'],
      ['/api/destinations/{name}/test', 'post'],
      ['/api/sessions/start', 'post'],
      ['/api/sessions', 'delete'],
      ['/api/noise/jobs', 'post'],
      ['/api/audit', 'get'],
    ] as const) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
    const start = doc.paths['/api/sessions/start'].post;
    expect(start.requestBody.content['application/json'].schema.required.sort()).toEqual([
      'archiveDownloadUrl',
      'siem',
    ]);
    expect(Object.keys(start.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '409',
      '413',
      '500',
      '502',
      '503',
    ]);
    expect(doc.paths['/api/sessions'].delete.description).toMatch(/PERMANENT/);
    expect(JSON.stringify(doc)).not.toMatch(/~kind/);
  });

  it('serves a reference page', async () => {
    const res = await t.app.inject({ url: '/api/docs/', headers: { cookie } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body).toMatch(/swagger/i);
  });
});
