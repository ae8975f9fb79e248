import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testTempDir } from '../../test/helpers/test-app.ts';
import { CONSOLE_PAGES, consoleRoutes } from './console.ts';

describe('the console at /', () => {
  const dir = testTempDir('console-');
  const app = Fastify();
  beforeAll(async () => {
    mkdirSync(path.join(dir, 'assets'));
    writeFileSync(
      path.join(dir, 'index.html'),
      '<!doctype html><script type="module" src="/assets/app-1a2b.js"></script>',
    );
    writeFileSync(path.join(dir, 'assets', 'app-1a2b.js'), 'console.log(1)');
    await app.register(consoleRoutes, { dir });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
  });

  it('answers index.html at every page path, never cached, under a CSP without inline script', async () => {
    for (const url of [
      '/',
      '/sign-in',
      '/destinations',
      '/destinations/new',
      '/noise/jobs/7',
      '/exercises/abc',
      '/audit',
    ]) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-cache');
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.body).toContain('/assets/app-1a2b.js');
    }
    expect(CONSOLE_PAGES).toContain('/wipe');
  });

  it('serves hashed assets for a year and nothing outside the assets folder', async () => {
    const asset = await app.inject({ url: '/assets/app-1a2b.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-type']).toMatch(/javascript/);
    for (const url of [
      '/assets/../index.html',
      '/assets/%2e%2e%2findex.html',
      '/assets/missing.js',
      '/assets/.hidden',
    ]) {
      expect((await app.inject({ url })).statusCode, url).toBe(404);
    }
  });
});
