// A stand-in for the service in this page's component tests: answers by method and path, records
// every request with its JSON body.
import { vi } from 'vitest';

export interface Recorded {
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
}

/** An answer: status and JSON body, or a promise of one (to hold a request pending). */
export type Answer = { status?: number; body: unknown } | Promise<{ status?: number; body: unknown }>;

/** Routes `METHOD /path` to answers; unknown routes answer 404. Returns the requests seen. */
export function fakeApi(routes: Record<string, Answer | ((request: Recorded) => Answer)>): Recorded[] {
  const seen: Recorded[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (request: Request) => {
      const url = new URL(request.url, 'http://localhost');
      const text = request.method === 'GET' ? '' : await request.text();
      const recorded = {
        method: request.method,
        path: url.pathname,
        body: text ? JSON.parse(text) : undefined,
      };
      seen.push(recorded);
      const route = routes[`${request.method} ${url.pathname}`];
      const answer = await (typeof route === 'function' ? route(recorded) : route);
      const { status = 200, body } = answer ?? {
        status: 404,
        body: {
          ok: false,
          error: { code: 'not_found', message: `no route ${request.method} ${url.pathname}` },
        },
      };
      return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    }),
  );
  return seen;
}

/** A destination as GET answers it. */
export function view(overrides: Record<string, unknown> = {}) {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    name: 'splunk-lab',
    driver: 'vendorA_hec',
    payload_format: 'leef',
    index: 'lab',
    enabled: true,
    url: 'https://siem-a:8088',
    management_url: null,
    management_username: null,
    sourcetype: null,
    source: null,
    channel: null,
    tls_verify: true,
    ca_pem: null,
    secrets_set: ['token'],
    created_at: '2025-01-01T00:00:00.000Z',
    updated_at: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
}
