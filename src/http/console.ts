import { existsSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { AppError } from '../errors.ts';

/** Where `npm run build` puts the console (web/dist). */
export const CONSOLE_DIR = path.resolve(import.meta.dirname, '../../web/dist');

/**
 * Paths of the console's pages (decisions.md §8: deep links work): each answers the app's
 * index.html, which routes in the browser. API routes keep answering JSON (a 404 stays JSON).
 */
export const CONSOLE_PAGES = [
  '/',
  '/sign-in',
  '/destinations',
  '/destinations/*',
  '/noise',
  '/noise/*',
  '/wipe',
  '/users',
  '/users/*',
  '/audit',
  '/exercises',
  '/exercises/*',
];

// The console loads its own script and styles only: no inline script or style, no other origin.
const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Serves the console built into `dir`: hashed assets under /assets/ cached for a year (their
 * names change with their content), index.html never cached, a strict Content-Security-Policy.
 * Every route is public: the page itself holds no data, the API it calls needs the session.
 */
export const consoleRoutes: FastifyPluginAsync<{ dir?: string }> = async (app, options) => {
  const dir = options.dir ?? CONSOLE_DIR;
  await app.register(fastifyStatic, {
    root: dir,
    serve: false,
    cacheControl: false,
    etag: true,
    lastModified: true,
  });
  const built = () => existsSync(path.join(dir, 'index.html'));
  const index = (reply: FastifyReply) => {
    if (!built()) {
      throw new AppError(
        'not_found',
        'The console is not built: run `npm run build` (npm start builds it when missing)',
      );
    }
    return reply
      .header('cache-control', 'no-cache')
      .header('content-security-policy', CONSOLE_CSP)
      .header('referrer-policy', 'same-origin')
      .type('text/html; charset=utf-8')
      .sendFile('index.html');
  };
  for (const url of CONSOLE_PAGES) {
    app.get(url, { config: { auth: 'public' }, schema: { hide: true } }, async (_request, reply) =>
      index(reply),
    );
  }
  app.get('/assets/*', { config: { auth: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const file = (request.params as { '*': string })['*'];
    // Names Vite writes: letters, digits, dots, dashes and underscores; nothing else is served.
    if (!/^[A-Za-z0-9._-]+$/.test(file) || file.startsWith('.'))
      throw new AppError('not_found', 'No such asset');
    if (!existsSync(path.join(dir, 'assets', file))) throw new AppError('not_found', `No asset ${file}`);
    return reply
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('content-security-policy', CONSOLE_CSP)
      .sendFile(`assets/${file}`);
  });
};
