import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Layout } from './Layout.tsx';

const ME = {
  ok: true,
  user: { id: 'u1', email: 'ops@example.test', display_name: 'Ops', capabilities: ['manage_noise_logs'] },
};

function stubApi(logoutStatus: number) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (request: Request) => {
      const { pathname } = new URL(request.url);
      if (pathname === '/api/me') return Response.json(ME);
      if (pathname === '/logout') {
        return logoutStatus === 200
          ? Response.json({ ok: true })
          : Response.json(
              { ok: false, error: { code: 'forbidden', message: 'Cross-origin request refused' } },
              { status: logoutStatus },
            );
      }
      return Response.json({}, { status: 404 });
    }),
  );
}

function renderLayout() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={['/noise']}>
        <Routes>
          <Route element={<Layout />}>
            <Route path="/noise" element={<h1>Noise page</h1>} />
          </Route>
          <Route path="/sign-in" element={<h1>Sign-in page</h1>} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('Layout', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('shows only the pages the capabilities allow', async () => {
    stubApi(200);
    renderLayout();
    expect(await screen.findByRole('link', { name: 'Noise' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'SIEM destinations' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Audit log' })).not.toBeInTheDocument();
  });

  it('signs out only when the service ended the session, and says so when it did not', async () => {
    stubApi(403);
    renderLayout();
    await screen.findByText('Ops');
    await userEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Cross-origin request refused');
    expect(screen.getByRole('heading', { name: 'Noise page' })).toBeInTheDocument();

    stubApi(200);
    await userEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('heading', { name: 'Sign-in page' })).toBeInTheDocument();
  });
});
