import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { vi } from 'vitest';
import { NoisePage } from './NoisePage.tsx';

/** A request the fake service saw. */
export interface SeenRequest {
  method: string;
  path: string;
  search: string;
  body: unknown;
}

/** An answer of the fake service: status and JSON body. */
export type Answer = { status: number; body: unknown };
type Handler = (request: SeenRequest) => Answer | undefined;

/** Stubs fetch with `handler` (404 for what it does not answer); returns the requests seen. */
export function stubService(handler: Handler): SeenRequest[] {
  const seen: SeenRequest[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (request: Request) => {
      const url = new URL(request.url);
      const text = request.method === 'GET' || request.method === 'DELETE' ? '' : await request.text();
      const entry: SeenRequest = {
        method: request.method,
        path: url.pathname,
        search: url.search,
        body: text ? (JSON.parse(text) as unknown) : undefined,
      };
      seen.push(entry);
      const answer = handler(entry) ?? {
        status: 404,
        body: {
          ok: false,
          error: { code: 'not_found', message: `no stub for ${entry.method} ${entry.path}` },
        },
      };
      return new Response(JSON.stringify(answer.body), {
        status: answer.status,
        headers: { 'content-type': 'application/json' },
      });
    }),
  );
  return seen;
}

/** Renders the noise page at `entry` as App mounts it (`/noise/*`). */
export function renderNoise(entry: string) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[entry]}>
        <Routes>
          <Route path="/noise/*" element={<NoisePage />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}
