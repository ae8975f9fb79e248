import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../clock.ts';
import { createLogger } from '../logger.ts';
import type { OutboundEvent } from '../pipeline/shipment/outbound-event.ts';
import { createBulkDriver } from './bulk/bulk-driver.ts';
import type { BulkDestination } from './bulk/bulk-settings.ts';
import { createHecDriver } from './hec/hec-driver.ts';
import type { HecDestination } from './hec/hec-settings.ts';
import type { IndexingSiemClient } from './siem-client.ts';

// Regression tests of SIEMs that repeat the credentials they were sent in their error answers:
// nothing of a secret may reach a message, however long the answer and wherever the echo sits.

/** Every substring of 6 characters of `value`. */
function pieces(value: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 6 <= value.length; i++) out.push(value.slice(i, i + 6));
  return out;
}

/** Fails naming the first 6-character piece of a secret (or of an encoding of it) that `text` holds. */
function expectNoPiece(text: string, secrets: Record<string, string>): void {
  for (const [name, value] of Object.entries(secrets)) {
    const found = pieces(value).find((p) => text.includes(p));
    expect(found, `${name}: "${found}" of it in ${text}`).toBeUndefined();
  }
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

let servers: Server[] = [];
let drivers: IndexingSiemClient[] = [];
afterEach(async () => {
  await Promise.all(drivers.map((d) => d.close()));
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  servers = [];
  drivers = [];
});

/** A SIEM that answers every request with `answer(authorization header)`. */
async function echoing(
  answer: (authorization: string, req: IncomingMessage) => { status: number; body: string; type?: string },
): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const { status, body, type } = answer(req.headers.authorization ?? '', req);
      res.writeHead(status, { 'content-type': type ?? 'application/json' });
      res.end(req.method === 'HEAD' ? undefined : body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function hec(url: string, overrides: Partial<HecDestination>): IndexingSiemClient {
  const destination: HecDestination = {
    id: 'dest-hec',
    name: 'splunk-lab',
    driver: 'vendorA_hec',
    payload_format: 'leef',
    index: 'lab',
    enabled: true,
    url,
    token: 'collector-token-0000',
    management_url: url,
    management_token: null,
    management_username: null,
    management_password: null,
    sourcetype: null,
    source: null,
    channel: null,
    tls_verify: true,
    ca_pem: null,
    ...overrides,
  };
  const driver = createHecDriver(destination, { log: createLogger('silent'), clock: systemClock });
  drivers.push(driver);
  return driver;
}

function bulk(url: string, overrides: Partial<BulkDestination>): IndexingSiemClient {
  const destination: BulkDestination = {
    id: 'dest-bulk',
    name: 'elastic-lab',
    driver: 'vendorB_bulk',
    payload_format: 'ecs',
    index: 'lab-events',
    enabled: true,
    url,
    api_key: null,
    username: null,
    password: null,
    tls_verify: true,
    ca_pem: null,
    ...overrides,
  };
  const driver = createBulkDriver(destination, { log: createLogger('silent'), clock: systemClock });
  drivers.push(driver);
  return driver;
}

describe('SIEM answers that echo credentials', () => {
  it('scrubs a management token splunkd repeats across the 300-character cut (HEC wipe)', async () => {
    const token = 'mgmt-0123456789abcdefghijklmn'; // 28 characters
    // `WARN ` + 266 + ` got Bearer `: the token starts at 283, so a cut at 300 before the scrub kept
    // 17 of its 28 characters.
    const url = await echoing((auth) => ({
      status: 401,
      body: JSON.stringify({ messages: [{ type: 'WARN', text: `${'x'.repeat(266)} got ${auth}` }] }),
    }));
    const [outcome] = await hec(url, { management_token: token }).wipe(['lab']);
    expect(outcome?.ok).toBe(false);
    const error = outcome?.ok === false ? outcome.error : '';
    expect(error).toContain('[redacted]');
    expectNoPiece(error, { token });
  });

  it('scrubs HEC Basic management credentials, raw and as the Basic base64 of user:password', async () => {
    const password = 'S3cret-Qv7-kZp2-wXr9';
    const url = await echoing((auth) => ({
      status: 403,
      body: JSON.stringify({
        messages: [{ type: 'ERROR', text: `refused ${auth}; password ${password}; again ${b64(password)}` }],
      }),
    }));
    const driver = hec(url, { management_username: 'socdrill', management_password: password });
    const [outcome] = await driver.wipe(['lab']);
    const steps = await driver.check();
    const texts = [outcome?.ok === false ? outcome.error : '', ...steps.map((s) => s.message)];
    for (const text of texts) {
      expectNoPiece(text, {
        password,
        base64: b64(password),
        basic: b64(`socdrill:${password}`),
      });
    }
    expect(texts[0]).toContain('[redacted]');
  });

  it('scrubs bulk Basic credentials in a check step and a wipe error, plain-text answers included', async () => {
    const password = 'Zq8-pw-7f3a9c-Lm';
    const basic = b64(`elastic:${password}`);
    const url = await echoing((auth) => ({
      status: 401,
      type: 'text/plain',
      body: `${'Unauthorized. '.repeat(12)}Authorization: ${auth} (user:password ${Buffer.from(basic, 'base64')})`,
    }));
    const driver = bulk(url, { username: 'elastic', password });
    const steps = await driver.check();
    const [outcome] = await driver.wipe(['lab-events']);
    for (const text of [...steps.map((s) => s.message), outcome?.ok === false ? outcome.error : '']) {
      expect(text).toContain('[redacted]');
      expectNoPiece(text, { password, basic });
    }
  });

  it('scrubs an API key echoed URL-encoded, form-encoded and base64 in a 500 answer', async () => {
    const apiKey = 'key/with+symbols&=?~ ok';
    const url = await echoing(() => ({
      status: 500,
      body: JSON.stringify({
        error: {
          type: 'exception',
          reason: `${'y'.repeat(250)} ${encodeURIComponent(apiKey)} ${new URLSearchParams({ k: apiKey })} ${b64(apiKey)}`,
        },
      }),
    }));
    const [outcome] = await bulk(url, { api_key: apiKey }).wipe(['lab-events']);
    const error = outcome?.ok === false ? outcome.error : '';
    expectNoPiece(error, {
      apiKey,
      encoded: encodeURIComponent(apiKey),
      form: new URLSearchParams({ k: apiKey }).toString().slice(2),
      base64: b64(apiKey),
    });
  });

  it('scrubs the credentials a collector or cluster repeats while refusing a shipment', async () => {
    const token = 'hec-token-5b7e0c2a-9d41';
    const apiKey = 'bulk-key-Vx93-qq81-Lm02';
    const url = await echoing((auth) => ({
      status: 403,
      body: JSON.stringify({
        text: `${'z'.repeat(100)} ${auth} not allowed`,
        code: 4,
        error: { type: 'security_exception', reason: `${'z'.repeat(260)} ${auth}` },
      }),
    }));
    const events: OutboundEvent[] = [
      { line: 'LEEF:2.0|S|T|1|E|^|n=1', json: '{"message":"x"}', time: Date.now() },
    ];
    const batches = () =>
      (async function* () {
        yield events;
      })();
    for (const driver of [hec(url, { token }), bulk(url, { api_key: apiKey })]) {
      const result = await driver.send(batches());
      expect(result.failed).toBe(1);
      expect(result.errors.join('\n')).toContain('[redacted]');
      expectNoPiece(result.errors.join('\n'), { token, apiKey, base64: b64(apiKey) });
    }
  });
});
