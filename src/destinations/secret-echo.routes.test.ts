import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shutdownOf, signedInAs, TEST_NOW, type TestApp, testConfig } from '../../test/helpers/test-app.ts';
import { openTestDatabase } from '../../test/helpers/test-db.ts';
import { manualClock } from '../clock.ts';
import { createContext } from '../context.ts';
import { buildApp } from '../http/build-app.ts';
import { createLogger } from '../logger.ts';

// A SIEM that repeats the credentials it was sent, in every form, anywhere in error answers of any
// length: for random secrets of each HTTP kind, nothing of a secret — no 6 characters of it, of its
// base64 or of its Basic base64 — reaches the answer of POST /api/destinations/:name/test, the
// wipe's 502 answer, the audit log or the service log.

const b64 = (s: string) => Buffer.from(s, 'latin1').toString('base64');

/** How the fake SIEM answers every request of one run. */
interface Plan {
  status: 401 | 403 | 500;
  json: boolean;
  /** Characters of filler text ('§': outside ASCII, so it never looks like a piece of a secret). */
  filler: number;
  /** Which echo goes where in the filler. */
  echoes: Array<[which: number, at: number]>;
}

/** What the SIEM can repeat of an `Authorization` header it received. */
const ECHOES: Array<(header: string) => string> = [
  (h) => h,
  (h) => credential(h),
  (h) => b64(credential(h)),
  (h) => Buffer.from(credential(h), 'latin1').toString('base64url'),
  (h) => encodeURIComponent(h),
  (h) => encodeURIComponent(credential(h)),
  (h) => new URLSearchParams({ k: credential(h) }).toString().slice(2),
  // Encoders written apart from the scrubber's list: RFC 3986 strict (Go, Python) and XML text.
  (h) =>
    encodeURIComponent(credential(h)).replace(
      /[!'()*]/g,
      (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
    ),
  (h) =>
    credential(h).replace(
      /[&<>"']/g,
      (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c,
    ),
  // Basic decoded (`user:password`), or the token as a query parameter.
  (h) =>
    h.startsWith('Basic ') ? Buffer.from(h.slice(6), 'base64').toString('latin1') : `token=${credential(h)}`,
];

/** The secret in a header: a token after its scheme, or a Basic credential's password. */
function credential(header: string): string {
  const space = header.indexOf(' ');
  const rest = space < 0 ? header : header.slice(space + 1);
  if (!header.startsWith('Basic ')) return rest;
  const decoded = Buffer.from(rest, 'base64').toString('latin1');
  return decoded.slice(decoded.indexOf(':') + 1);
}

/** The answer body: the echoes of `header` between pieces of filler, as JSON every kind reads or as text. */
function answerBody(plan: Plan, header: string): string {
  const filler = '§'.repeat(plan.filler);
  const cuts = plan.echoes.map(([, at]) => Math.min(at, filler.length)).sort((a, b) => a - b);
  let text = '';
  let from = 0;
  plan.echoes.forEach(([which], i) => {
    const at = cuts[i] ?? 0;
    text += `${filler.slice(from, at)} ${ECHOES[which]?.(header) ?? ''} `;
    from = at;
  });
  text += filler.slice(from);
  if (!plan.json) return text;
  return JSON.stringify({
    messages: [{ type: 'ERROR', text }],
    text,
    code: 4,
    error: { type: 'security_exception', reason: text },
  });
}

/** Every 6-character piece of `value`. */
function pieces(value: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 6 <= value.length; i++) out.push(value.slice(i, i + 6));
  return out;
}

/** Every string in a JSON value (so an escaped piece is compared unescaped too). */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([k, v]) => [k, ...strings(v)]);
  }
  return [];
}

describe('credentials a SIEM repeats in its error answers', () => {
  let t: TestApp;
  let cookie: string;
  let siem: Server;
  let siemUrl = '';
  let plan: Plan = { status: 401, json: true, filler: 0, echoes: [] };
  const logLines: string[] = [];

  beforeAll(async () => {
    siem = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(plan.status, { 'content-type': plan.json ? 'application/json' : 'text/plain' });
        res.end(req.method === 'HEAD' ? undefined : answerBody(plan, req.headers.authorization ?? ''));
      });
    });
    await new Promise<void>((r) => siem.listen(0, '127.0.0.1', r));
    siemUrl = `http://127.0.0.1:${(siem.address() as AddressInfo).port}`;
    // The test app of test/helpers, with a service log that is kept instead of discarded.
    const clock = manualClock(TEST_NOW);
    const ctx = await createContext(testConfig(), {
      clock,
      log: createLogger('debug', { write: (line: string) => void logLines.push(line) }),
      database: await openTestDatabase(),
      platformStatus: { siemChecks: false },
    });
    const app = await buildApp(ctx);
    await app.ready();
    ctx.start();
    t = { app, ctx, clock, ...shutdownOf(app, ctx) };
    cookie = (await signedInAs(t, ['admin'])).cookie;
  });
  afterAll(async () => {
    await t?.close();
    siem.closeAllConnections();
    await new Promise((r) => siem.close(r));
  });

  const printable = fc.string({
    unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    minLength: 6,
    maxLength: 48,
  });
  const user = fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/);
  const hecManagement = fc.oneof(
    printable.map((token) => ({ management_token: token })),
    fc.record({ management_username: user, management_password: printable }),
  );
  const bulkAuth = fc.oneof(
    printable.map((key) => ({ api_key: key })),
    fc.record({ username: user, password: printable }),
  );
  const plans: fc.Arbitrary<Plan> = fc.record({
    status: fc.constantFrom(401 as const, 403 as const, 500 as const),
    json: fc.boolean(),
    filler: fc.nat(1200),
    echoes: fc.array(fc.tuple(fc.nat(ECHOES.length - 1), fc.nat(1200)), { minLength: 1, maxLength: 8 }),
  });

  let run = 0;
  it('reach no test answer, wipe answer, audit record or log line, in any form', async () => {
    await fc.assert(
      fc.asyncProperty(
        printable,
        hecManagement,
        bulkAuth,
        plans,
        async (hecToken, management, bulk, answer) => {
          run += 1;
          plan = answer;
          const names = { hec: `echo-hec-${run}`, bulk: `echo-bulk-${run}` };
          const send = (method: 'POST' | 'DELETE', url: string, payload?: object) =>
            t.app.inject({ method, url, headers: { cookie }, ...(payload ? { payload } : {}) });
          const hecCreated = await send('POST', '/api/destinations', {
            name: names.hec,
            driver: 'vendorA_hec',
            url: siemUrl,
            management_url: siemUrl,
            token: hecToken,
            index: 'lab',
            ...management,
          });
          expect(hecCreated.statusCode, hecCreated.body).toBe(201);
          const bulkCreated = await send('POST', '/api/destinations', {
            name: names.bulk,
            driver: 'vendorB_bulk',
            url: siemUrl,
            index: 'lab-events',
            ...bulk,
          });
          expect(bulkCreated.statusCode, bulkCreated.body).toBe(201);
          logLines.length = 0;

          const tests = [
            await send('POST', `/api/destinations/${names.hec}/test`),
            await send('POST', `/api/destinations/${names.bulk}/test`),
          ];
          for (const res of tests) {
            expect(res.statusCode, res.body).toBe(200);
            expect(res.json().ok).toBe(false);
          }
          const wipe = await send('DELETE', `/api/sessions?siem=${names.hec}&siem=${names.bulk}`);
          expect(wipe.statusCode, wipe.body).toBe(502);
          expect(wipe.json().errors).toHaveLength(2);
          const audit = await t.ctx.db
            .selectFrom('audit_log')
            .selectAll()
            .where('target', 'in', [names.hec, names.bulk])
            .execute();
          expect(audit.filter((a) => a.action === 'session.wipe' && a.outcome === 'failure')).toHaveLength(2);
          // The clients log each failed wipe with the SIEM's words: the log is a place to look at.
          expect(logLines.filter((line) => line.includes('Index wipe failed.'))).toHaveLength(2);

          const places: Array<[place: string, texts: string[]]> = [
            ['test answers', tests.flatMap((res) => [res.body, ...strings(res.json())])],
            ['wipe answer', [wipe.body, ...strings(wipe.json())]],
            ['audit log', audit.flatMap((row) => [JSON.stringify(row), ...strings(row)])],
            ['service log', logLines.flatMap((line) => [line, ...strings(JSON.parse(line))])],
          ];
          const secrets: Record<string, string> = { hecToken, 'hecToken base64': b64(hecToken) };
          for (const [name, value] of [...Object.entries(management), ...Object.entries(bulk)]) {
            if (name === 'management_username' || name === 'username') continue;
            secrets[name] = value;
            secrets[`${name} base64`] = b64(value);
          }
          if ('management_password' in management) {
            secrets['HEC Basic'] = b64(`${management.management_username}:${management.management_password}`);
          }
          if ('password' in bulk) secrets['bulk Basic'] = b64(`${bulk.username}:${bulk.password}`);
          for (const [place, texts] of places) {
            for (const [name, value] of Object.entries(secrets)) {
              for (const piece of pieces(value)) {
                const text = texts.find((s) => s.includes(piece));
                expect(text, `${place}: "${piece}" of ${name} ${JSON.stringify(value)}`).toBeUndefined();
              }
            }
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
