import { afterEach, describe, expect, it } from 'vitest';
import {
  type SiemQSimulator,
  type SiemQSimulatorOptions,
  startSiemQSimulator,
} from '../../../../test/simulators/siem-q-simulator.ts';
import type { Wait } from '../../shared/backoff.ts';
import { secretScrubber } from '../../shared/secret-scrubber.ts';
import {
  CONSOLE_RETRY,
  compareVersions,
  filterString,
  MAX_LIST_ITEMS,
  PAGE_SIZE,
  readConsoleError,
  SiemQConsole,
  totalOf,
} from './siem-q-console.ts';

const NOW = Date.UTC(2026, 2, 1, 12, 0, 0);
const LOG_SOURCES = '/api/config/event_sources/log_source_management/log_sources';
const COLLECTORS = '/api/config/event_sources/event_collectors';
const VERSIONS = '/api/help/versions';

let sims: SiemQSimulator[] = [];
let consoles: SiemQConsole[] = [];
afterEach(async () => {
  await Promise.all(consoles.map((c) => c.close()));
  await Promise.all(sims.map((s) => s.close()));
  sims = [];
  consoles = [];
});

async function start(options: SiemQSimulatorOptions = {}): Promise<SiemQSimulator> {
  const sim = await startSiemQSimulator({ now: () => NOW, ...options });
  sims.push(sim);
  return sim;
}

/** A wait that returns at once and records the delays asked for. */
function recordingWait(): Wait & { delays: number[] } {
  const delays: number[] = [];
  const wait: Wait = async (ms, signal) => {
    delays.push(ms);
    return !signal.aborted;
  };
  return Object.assign(wait, { delays });
}

function consoleFor(
  sim: { url: string; token: string },
  over: { token?: string | null; wait?: Wait } = {},
): SiemQConsole & { delays: number[] } {
  const wait = recordingWait();
  const token = over.token === undefined ? sim.token : over.token;
  const api = new SiemQConsole(
    { console_url: sim.url, token, tls_verify: true, ca_pem: null },
    'siemq',
    secretScrubber({ secrets: [sim.token, token] }),
    {
      wait: over.wait ?? wait,
      now: () => NOW,
      random: () => 0.5,
      timeouts: { connectMs: 2_000, readMs: 5_000 },
    },
  );
  consoles.push(api);
  return Object.assign(api, { delays: wait.delays });
}

const live = () => new AbortController().signal;
const header = (h: string | string[] | undefined) => (Array.isArray(h) ? h[0] : h);

describe('SiemQConsole headers', () => {
  it('sends SEC and Accept on every call, and Version only once negotiated', async () => {
    const sim = await start();
    const api = consoleFor(sim);

    const negotiated = await api.negotiateVersion(live());
    expect(negotiated).toEqual({ ok: true, version: '26.0' });
    const answer = await api.call({ method: 'GET', path: COLLECTORS, signal: live() });
    expect(answer.ok).toBe(true);

    const [versions, collectors] = sim.requests;
    expect(versions?.path).toBe(VERSIONS);
    expect(header(versions?.headers.sec)).toBe(sim.token);
    expect(header(versions?.headers.accept)).toBe('application/json');
    expect(versions?.headers.version).toBeUndefined();
    expect(collectors?.path).toBe(COLLECTORS);
    expect(header(collectors?.headers.sec)).toBe(sim.token);
    expect(header(collectors?.headers.accept)).toBe('application/json');
    expect(header(collectors?.headers.version)).toBe('26.0');
    expect(sim.store.versionsUsed).toEqual(['26.0', '26.0']);
  });

  it('sends a JSON body with its content type, and Range only on a paged call', async () => {
    const sim = await start();
    const api = consoleFor(sim);
    await api.call({
      method: 'POST',
      path: LOG_SOURCES,
      body: {
        name: 'lab',
        type_id: 277,
        protocol_type_id: 0,
        protocol_parameters: [{ id: 0, name: 'identifier', value: 'lab-host' }],
      },
      signal: live(),
    });
    await api.call({ method: 'GET', path: LOG_SOURCES, range: { from: 0, to: 9 }, signal: live() });
    const [post, get] = sim.requests;
    expect(header(post?.headers['content-type'])).toBe('application/json');
    expect(JSON.parse(post?.body.toString() ?? '')).toMatchObject({ name: 'lab', type_id: 277 });
    expect(post?.headers.range).toBeUndefined();
    expect(header(get?.headers.range)).toBe('items=0-9');
    expect(get?.headers['content-type']).toBeUndefined();
  });

  it('encodes query parameters once and leaves out undefined ones', async () => {
    const sim = await start();
    const api = consoleFor(sim);
    await api.call({
      method: 'GET',
      path: LOG_SOURCES,
      query: { filter: 'name="a b&c"', fields: undefined },
      signal: live(),
    });
    expect(sim.requests[0]?.url).toBe(`${LOG_SOURCES}?filter=${encodeURIComponent('name="a b&c"')}`);
  });
});

describe('SiemQConsole version negotiation', () => {
  it('picks the newest served version, skipping removed ones', async () => {
    const sim = await start({ versions: ['12.0', '19.0', '9.0'], removedVersions: ['20.0', '3.0'] });
    const api = consoleFor(sim);
    expect(await api.negotiateVersion(live())).toEqual({ ok: true, version: '19.0' });
    expect(api.version).toBe('19.0');
    await api.call({ method: 'GET', path: COLLECTORS, signal: live() });
    expect(header(sim.requests.at(-1)?.headers.version)).toBe('19.0');
  });

  it('orders versions numerically, not as text', async () => {
    const sim = await start({ versions: ['12.0', '9.5', '100.0', '20.10', '20.9'] });
    const api = consoleFor(sim);
    expect(await api.negotiateVersion(live())).toEqual({ ok: true, version: '100.0' });
  });

  it('refuses a console that serves no version 12.0 or newer, listing what it offered', async () => {
    const sim = await start({ versions: ['9.0', '11.0'], removedVersions: ['15.0'] });
    const api = consoleFor(sim);
    const result = await api.negotiateVersion(live());
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).toBe('refused');
    expect(result.message).toContain('no API version 12.0 or newer is served');
    expect(result.message).toContain('9.0, 11.0, 15.0');
    expect(result.message).toContain(`SIEM "siemq" SIEM Q console ${sim.url}${VERSIONS}`);
    expect(api.version).toBe('12.0');
  });

  it('keeps 12.0 when the console has no versions endpoint', async () => {
    const sim = await start();
    sim.faults.next(1, { status: 404, match: { path: VERSIONS } });
    const api = consoleFor(sim);
    expect(await api.negotiateVersion(live())).toEqual({ ok: true, version: '12.0' });
  });

  it('passes on an auth refusal of the versions call', async () => {
    const sim = await start();
    const api = consoleFor(sim, { token: 'not-the-token' });
    const result = await api.negotiateVersion(live());
    expect(result).toMatchObject({ ok: false, reason: 'auth', status: 401, code: 27 });
  });
});

describe('SiemQConsole paging', () => {
  it('reads a list of 450 a page at a time with Range until Content-Range says it is complete', async () => {
    const sim = await start();
    for (let i = 0; i < 450; i++) sim.store.addLogSource({ name: `ls ${i}`, identifier: `h${i}` });
    const api = consoleFor(sim);
    const result = await api.list(LOG_SOURCES, { fields: 'id,name', sort: '+id' }, live());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.items).toHaveLength(450);
    expect(result.items.map((i) => i.id)).toEqual(Array.from({ length: 450 }, (_, i) => 101 + i));
    expect(result.items[0]).toEqual({ id: 101, name: 'ls 0' });
    expect(sim.requests.map((r) => header(r.headers.range))).toEqual([
      'items=0-199',
      'items=200-399',
      'items=400-599',
    ]);
    expect(sim.requests.map((r) => r.url.includes('fields=id%2Cname'))).toEqual([true, true, true]);
    expect(PAGE_SIZE).toBe(200);
  });

  it('stops after a full last page when Content-Range gives the total', async () => {
    const sim = await start();
    for (let i = 0; i < 400; i++) sim.store.addLogSource({ name: `ls ${i}`, identifier: `h${i}` });
    const api = consoleFor(sim);
    const result = await api.list(LOG_SOURCES, { fields: 'id' }, live());
    expect(result.ok && result.items.length).toBe(400);
    expect(sim.requests).toHaveLength(2);
  });

  it('asks for another page after a full one without Content-Range, and stops at the empty one', async () => {
    const sim = await start();
    const page = Array.from({ length: PAGE_SIZE }, (_, i) => ({ id: i }));
    sim.faults.next(1, { status: 200, body: page });
    sim.faults.next(1, { status: 200, body: [] });
    const api = consoleFor(sim);
    const result = await api.list(LOG_SOURCES, {}, live());
    expect(result.ok && result.items.length).toBe(PAGE_SIZE);
    expect(sim.requests).toHaveLength(2);
  });

  it('sends the filter, fields, sort and extra query parameters of a list', async () => {
    const sim = await start();
    sim.store.addLogSource({ name: 'wanted', identifier: 'w' });
    sim.store.addLogSource({ name: 'other', identifier: 'o' });
    const api = consoleFor(sim);
    const result = await api.list(
      '/api/siem/offense_closing_reasons',
      { filter: 'is_deleted=true', fields: 'id,text', query: { include_deleted: 'true' } },
      live(),
    );
    expect(result).toEqual({ ok: true, items: [{ id: 61, text: 'Retired Reason' }] });
    const named = await api.list(
      LOG_SOURCES,
      { filter: `name=${filterString('wanted')}`, fields: 'name' },
      live(),
    );
    expect(named).toEqual({ ok: true, items: [{ name: 'wanted' }] });
  });

  it('passes on a refused page', async () => {
    const sim = await start();
    const api = consoleFor(sim);
    const result = await api.list(LOG_SOURCES, { filter: 'nonsense=1' }, live());
    expect(result).toMatchObject({ ok: false, reason: 'refused', status: 422, code: 1001 });
  });

  it('refuses an answer that is not a list', async () => {
    const sim = await start();
    sim.faults.next(1, { status: 200, body: { id: 1 } });
    const api = consoleFor(sim);
    const result = await api.list(LOG_SOURCES, {}, live());
    expect(result).toMatchObject({ ok: false, reason: 'refused', status: 200 });
    expect(!result.ok && result.message).toContain('the answer is not a list');
  });

  it(`gives up past ${MAX_LIST_ITEMS} items`, async () => {
    const sim = await start();
    const page = Array.from({ length: PAGE_SIZE }, (_, i) => ({ id: i }));
    const pages = MAX_LIST_ITEMS / PAGE_SIZE + 1;
    sim.faults.next(pages, { status: 200, body: page, headers: { 'content-range': 'items 0-199/999999' } });
    const api = consoleFor(sim);
    const result = await api.list(LOG_SOURCES, {}, live());
    expect(result).toMatchObject({ ok: false, reason: 'refused' });
    expect(!result.ok && result.message).toContain(`more than ${MAX_LIST_ITEMS} items match`);
    expect(sim.requests).toHaveLength(MAX_LIST_ITEMS / PAGE_SIZE);
  });

  it('reads the total of a Content-Range', () => {
    expect(totalOf('items 0-49/120')).toBe(120);
    expect(totalOf('items 0--1/0')).toBe(0);
    expect(totalOf('items 200-199/150 ')).toBe(150);
    expect(totalOf('items 0-49/*')).toBeUndefined();
    expect(totalOf(undefined)).toBeUndefined();
    expect(totalOf('')).toBeUndefined();
  });
});

describe('SiemQConsole retries', () => {
  it('retries 429 and 503 with backoff, honouring Retry-After in seconds', async () => {
    const sim = await start();
    sim.faults.next(1, { status: 429, headers: { 'retry-after': '1' } });
    sim.faults.next(1, { status: 503 });
    const api = consoleFor(sim);
    const answer = await api.call({ method: 'GET', path: COLLECTORS, signal: live() });
    expect(answer.ok).toBe(true);
    expect(sim.requests.map((r) => r.status)).toEqual([429, 503, 200]);
    // Retry 1: jitter 375 (of 250–500) but Retry-After asks 1000; retry 2: 750 (of 500–1000).
    expect(api.delays).toEqual([1000, 750]);
  });

  it('honours a Retry-After date, and caps a long one at the policy cap', async () => {
    const sim = await start();
    sim.faults.next(1, { status: 503, headers: { 'retry-after': new Date(NOW + 1_000).toUTCString() } });
    sim.faults.next(1, { status: 429, headers: { 'retry-after': '120' } });
    const api = consoleFor(sim);
    const answer = await api.call({ method: 'GET', path: COLLECTORS, signal: live() });
    expect(answer.ok).toBe(true);
    expect(api.delays).toEqual([1000, CONSOLE_RETRY.capMs]);
  });

  it('gives up a busy console after the policy attempts, as refused with the console code', async () => {
    const sim = await start();
    sim.faults.next(10, { status: 429 });
    const api = consoleFor(sim);
    const answer = await api.call({ method: 'GET', path: COLLECTORS, signal: live() });
    expect(answer).toMatchObject({ ok: false, reason: 'refused', status: 429, code: 1029 });
    expect(sim.requests).toHaveLength(CONSOLE_RETRY.attempts);
    expect(api.delays).toEqual([375, 750, 1500]);
    expect(!answer.ok && answer.message).toContain('HTTP 429 (code 1029)');
  });

  it('gives up a restarting console after the policy attempts, as unreachable', async () => {
    const sim = await start();
    sim.faults.next(10, { status: 503 });
    const api = consoleFor(sim);
    const answer = await api.call({ method: 'GET', path: COLLECTORS, signal: live() });
    expect(answer).toMatchObject({ ok: false, reason: 'unreachable', status: 503, code: 1020 });
    expect(sim.requests).toHaveLength(4);
    expect(api.delays).toHaveLength(3);
  });

  it('does not retry other errors', async () => {
    const sim = await start();
    sim.faults.next(2, { status: 500 });
    const api = consoleFor(sim);
    const answer = await api.call({ method: 'GET', path: COLLECTORS, signal: live() });
    expect(answer).toMatchObject({ ok: false, reason: 'refused', status: 500, code: 1020 });
    expect(sim.requests).toHaveLength(1);
    expect(api.delays).toEqual([]);
  });

  it('retries a POST body unchanged', async () => {
    const sim = await start();
    sim.faults.next(1, { status: 503 });
    const api = consoleFor(sim);
    const body = {
      name: 'lab',
      type_id: 277,
      protocol_type_id: 0,
      protocol_parameters: [{ id: 0, name: 'identifier', value: 'lab-host' }],
    };
    const answer = await api.call({ method: 'POST', path: LOG_SOURCES, body, signal: live() });
    expect(answer).toMatchObject({ ok: true, status: 201 });
    expect(sim.requests.map((r) => JSON.parse(r.body.toString()))).toEqual([body, body]);
    expect(sim.store.logSources.size).toBe(1);
  });
});

describe('SiemQConsole errors', () => {
  it('reports a refused token as auth, naming the console and hinting siem_q.token', async () => {
    const sim = await start();
    const api = consoleFor(sim, { token: 'wrong-token-value' });
    const answer = await api.call({ method: 'GET', path: COLLECTORS, signal: live() });
    expect(answer).toMatchObject({ ok: false, reason: 'auth', status: 401, code: 27 });
    if (answer.ok) return;
    expect(answer.message).toContain(`SIEM "siemq" SIEM Q console ${sim.url}${COLLECTORS}`);
    expect(answer.message).toContain('HTTP 401 (code 27)');
    expect(answer.message).toContain('You are unauthorized to access the requested resource.');
    expect(answer.message).toContain('check siem_q.token');
    expect(answer.message).not.toContain('wrong-token-value');
  });

  it('reports a missing token capability as auth with its own hint', async () => {
    const sim = await start();
    sim.faults.next(1, { status: 403 });
    const api = consoleFor(sim);
    const answer = await api.call({ method: 'GET', path: COLLECTORS, signal: live() });
    expect(answer).toMatchObject({ ok: false, reason: 'auth', status: 403, code: 26 });
    expect(!answer.ok && answer.message).toContain('the token lacks a capability');
  });

  it('reads code and message of the console error body', async () => {
    const sim = await start();
    const api = consoleFor(sim);
    const answer = await api.call({ method: 'GET', path: `${LOG_SOURCES}/999`, signal: live() });
    expect(answer).toMatchObject({ ok: false, reason: 'not_found', status: 404, code: 1002 });
    expect(!answer.ok && answer.message).toBe(
      `SIEM "siemq" SIEM Q console ${sim.url}${LOG_SOURCES}/999: HTTP 404 (code 1002): No log source with id 999 was found.`,
    );
  });

  it('reads a conflict code for the caller to act on', async () => {
    const sim = await start();
    sim.store.addLogSource({ name: 'taken', identifier: 'x' });
    const api = consoleFor(sim);
    const answer = await api.call({
      method: 'POST',
      path: LOG_SOURCES,
      body: { name: 'taken', type_id: 277, protocol_parameters: [{ name: 'identifier', value: 'y' }] },
      signal: live(),
    });
    expect(answer).toMatchObject({ ok: false, reason: 'refused', status: 409, code: 1001 });
  });

  it('quotes a non-JSON error body, clipped', async () => {
    const sim = await start();
    sim.faults.next(1, { status: 502, body: `<html><body>proxy error ${'x'.repeat(400)}</body></html>` });
    const api = consoleFor(sim);
    const answer = await api.call({ method: 'GET', path: COLLECTORS, signal: live() });
    expect(answer).toMatchObject({ ok: false, reason: 'unreachable', status: 502 });
    if (answer.ok) return;
    expect('code' in answer).toBe(false);
    expect(answer.message).toContain('HTTP 502: <html><body>proxy error xxx');
    expect(answer.message).toContain('…');
    expect(answer.message.length).toBeLessThan(400);
  });

  it('refuses a success answer whose body is not JSON', async () => {
    const sim = await start();
    sim.faults.next(1, { status: 200, body: 'OK then' });
    const api = consoleFor(sim);
    const answer = await api.call({ method: 'GET', path: COLLECTORS, signal: live() });
    expect(answer).toMatchObject({ ok: false, reason: 'refused', status: 200 });
    expect(!answer.ok && answer.message).toContain('HTTP 200 with a body that is not JSON: OK then');
  });

  it('reads an empty success body as null', async () => {
    const sim = await start();
    sim.store.addLogSource({ id: 300, name: 'gone soon' });
    const api = consoleFor(sim);
    const answer = await api.call({ method: 'DELETE', path: `${LOG_SOURCES}/300`, signal: live() });
    expect(answer).toEqual({ ok: true, status: 204, body: null, contentRange: undefined });
  });

  it('reports a closed port as unreachable, naming the console', async () => {
    const gone = await startSiemQSimulator();
    const url = gone.url;
    await gone.close();
    const api = consoleFor({ url, token: 'some-secret-token' });
    const answer = await api.call({ method: 'GET', path: COLLECTORS, signal: live() });
    expect(answer).toMatchObject({ ok: false, reason: 'unreachable' });
    if (answer.ok) return;
    expect(answer.message).toContain(`SIEM "siemq" SIEM Q console ${url}${COLLECTORS}`);
    expect(answer.message).not.toContain('some-secret-token');
    // The console's address for messages (with the base path's slash).
    expect(api.label.replace(/\/$/, '')).toBe(url);
  });

  it('reports a refused negotiation through a closed port as unreachable', async () => {
    const sim = await start();
    await sim.faults.refuse();
    const api = consoleFor(sim);
    expect(await api.negotiateVersion(live())).toMatchObject({ ok: false, reason: 'unreachable' });
  });
});

describe('SiemQConsole secrets', () => {
  it('never quotes the token a console echoes in an error body, in any form', async () => {
    const token = 'Tok3n/with+chars=';
    const sim = await start({ token });
    sim.faults.next(1, {
      status: 401,
      body: { code: 27, message: `The SEC token ${token} is not valid.`, description: '' },
    });
    sim.faults.next(1, {
      status: 422,
      body: {
        code: 1005,
        message: `bad ${encodeURIComponent(token)} and ${Buffer.from(token).toString('base64')}`,
      },
    });
    sim.faults.next(1, { status: 400, body: `plain text with ${token}` });
    const api = consoleFor(sim);
    const messages: string[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await api.call({ method: 'GET', path: COLLECTORS, signal: live() });
      expect(answer.ok).toBe(false);
      if (!answer.ok) messages.push(answer.message);
    }
    expect(messages[0]).toContain('The SEC token [redacted] is not valid.');
    for (const m of messages) {
      expect(m).toContain('[redacted]');
      expect(m).not.toContain(token);
      expect(m).not.toContain(encodeURIComponent(token));
      expect(m).not.toContain(Buffer.from(token).toString('base64'));
    }
  });

  it('scrubs the token from a success body and from the versions a console lists', async () => {
    const sim = await start();
    sim.faults.next(1, { status: 200, body: [{ id: 1, name: `collector of ${sim.token}` }] });
    sim.faults.next(1, { status: 200, body: [{ version: `${sim.token}` }] });
    const api = consoleFor(sim);
    const answer = await api.call({ method: 'GET', path: COLLECTORS, signal: live() });
    expect(answer).toMatchObject({ ok: true, body: [{ id: 1, name: 'collector of [redacted]' }] });
    const negotiated = await api.negotiateVersion(live());
    expect(negotiated.ok).toBe(false);
    if (negotiated.ok) return;
    expect(negotiated.message).toContain('offered: [redacted]');
    expect(negotiated.message).not.toContain(sim.token);
  });

  it('never quotes the token in a non-JSON success body', async () => {
    const sim = await start();
    sim.faults.next(1, { status: 200, body: `token=${sim.token}` });
    const api = consoleFor(sim);
    const answer = await api.call({ method: 'GET', path: COLLECTORS, signal: live() });
    expect(answer.ok).toBe(false);
    expect(!answer.ok && answer.message).toContain('token=[redacted]');
    expect(!answer.ok && answer.message).not.toContain(sim.token);
  });
});

describe('SiemQConsole cancellation', () => {
  it('throws for a signal cancelled before the call', async () => {
    const sim = await start();
    const api = consoleFor(sim);
    const controller = new AbortController();
    controller.abort(new Error('stop now'));
    await expect(api.call({ method: 'GET', path: COLLECTORS, signal: controller.signal })).rejects.toThrow(
      'stop now',
    );
    await expect(api.list(LOG_SOURCES, {}, controller.signal)).rejects.toThrow('stop now');
    await expect(api.negotiateVersion(controller.signal)).rejects.toThrow('stop now');
    expect(sim.requests).toHaveLength(0);
  });

  it('throws for a signal cancelled while the console answers', async () => {
    const sim = await start();
    sim.faults.delayMs = 2_000;
    const api = consoleFor(sim);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('cancelled mid-call')), 50);
    await expect(api.call({ method: 'GET', path: COLLECTORS, signal: controller.signal })).rejects.toThrow(
      'cancelled mid-call',
    );
  });

  it('throws for a signal cancelled during the backoff wait, without another request', async () => {
    const sim = await start();
    sim.faults.next(5, { status: 503 });
    const controller = new AbortController();
    const delays: number[] = [];
    const wait: Wait = async (ms) => {
      delays.push(ms);
      controller.abort(new Error('cancelled while waiting'));
      return false;
    };
    const api = consoleFor(sim, { wait });
    await expect(api.call({ method: 'GET', path: COLLECTORS, signal: controller.signal })).rejects.toThrow(
      'cancelled while waiting',
    );
    expect(delays).toHaveLength(1);
    expect(sim.requests).toHaveLength(1);
  });
});

describe('console helpers', () => {
  it('filterString quotes and escapes quotes and backslashes', () => {
    expect(filterString('Non-Issue')).toBe('"Non-Issue"');
    expect(filterString('say "hi"')).toBe('"say \\"hi\\""');
    expect(filterString('a\\b')).toBe('"a\\\\b"');
    expect(filterString('\\"')).toBe('"\\\\\\""');
    expect(filterString('')).toBe('""');
  });

  it('filterString matches awkward names exactly on the console', async () => {
    const sim = await start();
    const awkward = 'lab "quoted" \\ back\\slash';
    sim.store.addLogSource({ name: awkward, identifier: 'a' });
    sim.store.addLogSource({ name: 'lab "quoted" ', identifier: 'b' });
    const api = consoleFor(sim);
    const result = await api.list(
      LOG_SOURCES,
      { filter: `name=${filterString(awkward)}`, fields: 'name' },
      live(),
    );
    expect(result).toEqual({ ok: true, items: [{ name: awkward }] });
  });

  it('readConsoleError reads code and the most specific text of the error body', () => {
    expect(readConsoleError(JSON.stringify({ code: 1002, message: 'm', description: 'd' }))).toEqual({
      code: 1002,
      text: 'm',
    });
    expect(readConsoleError(JSON.stringify({ code: 27, message: ' ', description: 'd' }))).toEqual({
      code: 27,
      text: 'd',
    });
    expect(readConsoleError(JSON.stringify({ http_response: { code: 500, message: 'hr' } }))).toEqual({
      text: 'hr',
    });
    expect(readConsoleError(JSON.stringify({ code: '12', message: 'x' }))).toEqual({ text: 'x' });
    expect(readConsoleError('{}')).toEqual({ text: '' });
  });

  it('readConsoleError quotes a non-JSON body as text, clipped to 200', () => {
    expect(readConsoleError('<html>Bad Gateway</html>')).toEqual({ text: '<html>Bad Gateway</html>' });
    expect(readConsoleError('')).toEqual({ text: '' });
    const long = readConsoleError(`line\n${'y'.repeat(500)}`);
    expect(long.text.startsWith('line yyy')).toBe(true);
    expect(long.text).toHaveLength(201);
    expect(long.text.endsWith('…')).toBe(true);
    expect(readConsoleError('null')).toEqual({ text: 'null' });
  });

  it('compareVersions orders x.y numerically', () => {
    expect(compareVersions('20.0', '9.0')).toBeGreaterThan(0);
    expect(compareVersions('12.0', '12')).toBe(0);
    expect(compareVersions('19.10', '19.9')).toBeGreaterThan(0);
    expect(['26.0', '12.0', '9.5', '20.10', '20.9'].sort(compareVersions)).toEqual([
      '9.5',
      '12.0',
      '20.9',
      '20.10',
      '26.0',
    ]);
  });
});
