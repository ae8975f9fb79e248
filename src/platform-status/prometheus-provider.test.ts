import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrometheusProvider, PROMETHEUS_UNREACHABLE } from './prometheus-provider.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const vector = (result: unknown[]) =>
  JSON.stringify({ status: 'success', data: { resultType: 'vector', result } });

/** Answers like Prometheus for one up target with a firing alert. */
const healthy: Handler = (req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  res.setHeader('content-type', 'application/json');
  if (url.pathname === '/prom/api/v1/query' && url.searchParams.get('query') === 'up') {
    res.end(vector([{ metric: { __name__: 'up', job: 'app', instance: 'h:1' }, value: [1, '1'] }]));
  } else if (url.pathname === '/prom/api/v1/query') {
    res.end(vector([{ metric: { alertname: 'Busy', alertstate: 'firing', job: 'app' }, value: [1, '1'] }]));
  } else if (url.pathname === '/prom/api/v1/targets') {
    res.end(
      JSON.stringify({
        status: 'success',
        data: { activeTargets: [{ labels: { job: 'app', instance: 'h:1' }, health: 'up', lastError: '' }] },
      }),
    );
  } else {
    res.statusCode = 404;
    res.end('{}');
  }
};

describe('Prometheus provider', () => {
  let server: Server;
  let base: string;
  let handler: Handler = healthy;
  const seen: Array<{ url: string; authorization: string | undefined }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
      handler(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const poll = (url: string, options: { requestTimeoutMs?: number; maxResponseBytes?: number } = {}) =>
    createPrometheusProvider({ url, ...options }).poll(new AbortController().signal);

  it('queries up, firing alerts and targets under the path prefix, with basic auth from the URL', async () => {
    handler = healthy;
    seen.length = 0;
    const readings = await poll(`${base.replace('http://', 'http://ops:s%3Acret@')}/prom`);
    expect(seen.map((s) => s.url).sort()).toEqual([
      '/prom/api/v1/query?query=ALERTS%7Balertstate%3D%22firing%22%7D',
      '/prom/api/v1/query?query=up',
      '/prom/api/v1/targets?state=active',
    ]);
    expect(seen[0]?.authorization).toBe(`Basic ${Buffer.from('ops:s:cret').toString('base64')}`);
    expect(readings.map((r) => [r.id, r.state, r.reason])).toEqual([
      ['monitoring:prometheus', 'up', null],
      ['host:h', 'degraded', 'app h:1 degraded'],
      ['service:app/h:1', 'degraded', 'alert Busy firing'],
    ]);
    // The URL shown to users never carries the credentials.
    expect(readings[0]?.labels).toEqual({ url: `${base}/prom/` });
  });

  it('reports Prometheus down and the last components unknown when it stops answering', async () => {
    handler = healthy;
    const provider = createPrometheusProvider({ url: `${base}/prom` });
    const signal = new AbortController().signal;
    await provider.poll(signal);
    handler = (_req, res) => {
      res.statusCode = 503;
      res.end('busy');
    };
    const readings = await provider.poll(signal);
    expect(readings.map((r) => [r.id, r.state, r.reason])).toEqual([
      ['monitoring:prometheus', 'down', 'Prometheus answered HTTP 503'],
      ['host:h', 'unknown', PROMETHEUS_UNREACHABLE],
      ['service:app/h:1', 'unknown', PROMETHEUS_UNREACHABLE],
    ]);
  });

  it('names the failure: refused connection, error envelope, no JSON, too large, no answer', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const [refused] = await poll(`http://127.0.0.1:${closedPort}`);
    expect(refused?.reason).toBe('cannot reach Prometheus (ECONNREFUSED)');

    handler = (_req, res) =>
      res.end(JSON.stringify({ status: 'error', errorType: 'bad_data', error: 'parse error' }));
    expect((await poll(base))[0]?.reason).toBe('Prometheus refused the request: parse error');

    handler = (_req, res) => res.end('<html>');
    expect((await poll(base))[0]?.reason).toBe('Prometheus answered something that is not JSON');

    handler = (_req, res) => res.end(vector([{ metric: {}, value: [0, 'x'.repeat(5000)] }]));
    expect((await poll(base, { maxResponseBytes: 1000 }))[0]?.reason).toBe(
      'Prometheus answer larger than 1000 bytes',
    );

    handler = () => {};
    const [silent] = await poll(base, { requestTimeoutMs: 100 });
    expect(silent).toMatchObject({ state: 'down', reason: 'Prometheus did not answer within 0.1 s' });
    server.closeAllConnections();
  });

  it('throws when the poll itself is cancelled', async () => {
    handler = () => {};
    const controller = new AbortController();
    const pending = createPrometheusProvider({ url: base }).poll(controller.signal);
    controller.abort();
    await expect(pending).rejects.toThrow();
    server.closeAllConnections();
  });
});
