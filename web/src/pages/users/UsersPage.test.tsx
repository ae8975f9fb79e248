import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UsersPage } from './UsersPage.tsx';

const at = '2025-01-01T00:00:00Z';
const roles = [
  {
    name: 'admin',
    permissions: [
      'manage_exercises',
      'manage_noise_logs',
      'manage_destinations',
      'manage_users',
      'run_exercises',
    ],
    builtin: true,
  },
  { name: 'analyst', permissions: ['run_exercises'], builtin: true },
  { name: 'author', permissions: ['manage_exercises'], builtin: true },
  { name: 'wiper', permissions: ['manage_exercises', 'manage_destinations'], builtin: false },
].map((r) => ({ ...r, created_at: at, updated_at: at }));
const ada = {
  id: '6f1c2a3e-1111-4222-8333-944455556666',
  email: 'ada@example.test',
  display_name: 'Ada',
  roles: ['analyst'],
  capabilities: ['run_exercises'],
  disabled: false,
  created_at: at,
  updated_at: at,
};

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

type Handler = (request: Request, url: URL) => Response | Promise<Response> | undefined;

/** Stubs the API: roles and users lists, then `handler` for everything else; records requests. */
function stubApi(handler: Handler = () => undefined) {
  const requests: Request[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (request: Request) => {
      requests.push(request.clone());
      const url = new URL(request.url);
      const answer = await handler(request, url);
      if (answer) return answer;
      if (request.method === 'GET' && url.pathname === '/api/roles') return json(roles);
      if (request.method === 'GET' && url.pathname === '/api/users') return json([ada]);
      if (request.method === 'GET' && url.pathname === `/api/users/${ada.id}`) return json(ada);
      return json({ ok: false, error: { code: 'not_found', message: 'Not found' } }, 404);
    }),
  );
  return requests;
}

function renderAt(path: string) {
  return render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/users/*" element={<UsersPage />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

afterEach(() => vi.unstubAllGlobals());

describe('user form', () => {
  it('previews the union of the ticked roles and shows a 400 next to its field', async () => {
    const requests = stubApi((request, url) =>
      request.method === 'POST' && url.pathname === '/api/users'
        ? json(
            {
              ok: false,
              error: {
                code: 'invalid_input',
                message: 'Invalid user: password is too common',
                details: { fields: { password: 'is too common' } },
              },
            },
            400,
          )
        : undefined,
    );
    const user = userEvent.setup();
    renderAt('/users/new');

    await user.click(await screen.findByLabelText('analyst'));
    const preview = screen.getByRole('list', { name: 'Capabilities this user would get' });
    expect(
      within(preview)
        .getAllByRole('listitem')
        .map((li) => li.querySelector('code')?.textContent),
    ).toEqual(['run_exercises']);
    await user.click(screen.getByLabelText('wiper'));
    await user.click(screen.getByLabelText('author'));
    expect(
      within(preview)
        .getAllByRole('listitem')
        .map((li) => li.querySelector('code')?.textContent),
    ).toEqual(['manage_exercises', 'manage_destinations', 'run_exercises']);
    expect(within(preview).getByText('from author, wiper')).toBeInTheDocument();
    await user.click(screen.getByLabelText('analyst'));
    expect(within(preview).queryByText('run_exercises')).not.toBeInTheDocument();

    await user.type(screen.getByLabelText('E-mail'), 'bob@example.test');
    await user.type(screen.getByLabelText('Display name (optional)'), 'Bob');
    await user.type(screen.getByLabelText('Password'), 'password');
    await user.click(screen.getByRole('button', { name: 'Create user' }));

    const password = screen.getByLabelText('Password');
    expect(await screen.findByText('is too common')).toHaveAttribute('id', expect.any(String));
    expect(password).toHaveAttribute('aria-invalid', 'true');
    expect(password).toHaveAccessibleDescription(expect.stringContaining('is too common'));
    expect(password).toHaveFocus();
    expect(screen.getByLabelText('E-mail')).toHaveAttribute('aria-invalid', 'false');

    const post = requests.find((r) => r.method === 'POST');
    expect(await post!.json()).toEqual({
      email: 'bob@example.test',
      password: 'password',
      display_name: 'Bob',
      roles: ['wiper', 'author'],
    });
  });

  it('creates a user and returns to the list with a confirmation', async () => {
    stubApi((request, url) =>
      request.method === 'POST' && url.pathname === '/api/users'
        ? json({ ...ada, id: '7f1c2a3e-1111-4222-8333-944455556666', email: 'bob@example.test' }, 201)
        : undefined,
    );
    const user = userEvent.setup();
    renderAt('/users/new');
    await user.type(await screen.findByLabelText('E-mail'), 'bob@example.test');
    await user.type(screen.getByLabelText('Password'), 'long enough secret');
    await user.click(screen.getByRole('button', { name: 'Create user' }));
    expect(await screen.findByRole('status')).toHaveTextContent('User bob@example.test created.');
    expect(screen.getByRole('heading', { level: 1, name: 'Users' })).toBeInTheDocument();
  });
});

describe('user list and user page', () => {
  it('disables a user from the list', async () => {
    const requests = stubApi((request, url) =>
      request.method === 'PATCH' && url.pathname === `/api/users/${ada.id}`
        ? json({ ...ada, disabled: true, updated_at: '2025-01-02T00:00:00Z' })
        : undefined,
    );
    const user = userEvent.setup();
    renderAt('/users');
    await user.click(await screen.findByRole('button', { name: 'Disable ada@example.test' }));
    expect(await screen.findByRole('status')).toHaveTextContent('ada@example.test is now disabled');
    const patch = requests.find((r) => r.method === 'PATCH');
    expect(await patch!.json()).toEqual({ disabled: true });
  });

  it('sends only the changed roles and shows a password error beside the reset field', async () => {
    const requests = stubApi((request, url) => {
      if (request.method !== 'PATCH' || url.pathname !== `/api/users/${ada.id}`) return undefined;
      return request
        .clone()
        .json()
        .then((body: Record<string, unknown>) =>
          'password' in body
            ? json(
                {
                  ok: false,
                  error: {
                    code: 'invalid_input',
                    message: 'Invalid user: password must be at least 8 characters',
                    details: { fields: { password: 'must be at least 8 characters' } },
                  },
                },
                400,
              )
            : json({ ...ada, roles: ['analyst', 'author'], updated_at: '2025-01-02T00:00:00Z' }),
        );
    });
    const user = userEvent.setup();
    renderAt(`/users/${ada.id}`);
    expect(
      await screen.findByRole('heading', { level: 1, name: 'User ada@example.test' }),
    ).toBeInTheDocument();
    await user.click(await screen.findByLabelText('author'));
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByRole('status')).toHaveTextContent('Saved ada@example.test.');
    const patch = requests.find((r) => r.method === 'PATCH');
    expect(await patch!.json()).toEqual({ roles: ['analyst', 'author'] });

    await user.type(screen.getByLabelText('New password'), 'short');
    await user.click(screen.getByRole('button', { name: 'Set new password' }));
    const field = screen.getByLabelText('New password');
    expect(await screen.findByText('must be at least 8 characters')).toBeInTheDocument();
    expect(field).toHaveAccessibleDescription(expect.stringContaining('must be at least 8 characters'));
    expect(field).toHaveFocus();
  });

  it('moves focus into the delete confirmation, back to its trigger, and to a refusal', async () => {
    const requests = stubApi((request, url) =>
      request.method === 'DELETE' && url.pathname === `/api/users/${ada.id}`
        ? json({ ok: false, error: { code: 'conflict', message: 'The last admin cannot be deleted' } }, 409)
        : undefined,
    );
    const user = userEvent.setup();
    renderAt(`/users/${ada.id}`);
    await user.click(await screen.findByRole('button', { name: 'Delete user…' }));
    expect(screen.getByRole('button', { name: 'Delete ada@example.test for good' })).toHaveFocus();
    await user.click(screen.getByRole('button', { name: 'Keep user' }));
    expect(screen.getByRole('button', { name: 'Delete user…' })).toHaveFocus();
    expect(requests.filter((r) => r.method === 'DELETE')).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Delete user…' }));
    await user.click(screen.getByRole('button', { name: 'Delete ada@example.test for good' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The last admin cannot be deleted');
    expect(alert.parentElement).toHaveFocus();
    expect(screen.getByRole('button', { name: 'Delete ada@example.test for good' })).toBeEnabled();
  });
});

describe('roles', () => {
  it('protects built-in roles and shows a bad role name next to its field', async () => {
    stubApi((request, url) =>
      request.method === 'POST' && url.pathname === '/api/roles'
        ? json(
            {
              ok: false,
              error: {
                code: 'invalid_input',
                message: 'Invalid body: name',
                details: { fields: { name: 'must match pattern "^[a-z][a-z0-9_-]{0,62}$"' } },
              },
            },
            400,
          )
        : undefined,
    );
    const user = userEvent.setup();
    renderAt('/users/roles');
    const table = await screen.findByRole('table');
    const adminRow = within(table).getByRole('link', { name: 'admin' }).closest('tr')!;
    expect(within(adminRow).getByText('cannot be deleted')).toBeInTheDocument();
    expect(within(table).getByRole('button', { name: 'Delete role wiper…' })).toBeInTheDocument();

    await user.click(screen.getByRole('link', { name: 'New role' }));
    await user.type(await screen.findByLabelText('Name'), 'Bad Name');
    await user.click(screen.getByLabelText('manage_users'));
    await user.click(screen.getByRole('button', { name: 'Create role' }));
    const name = screen.getByLabelText('Name');
    expect(await screen.findByText(/must match pattern/)).toBeInTheDocument();
    expect(name).toHaveFocus();
  });

  it('shows the admin role read-only', async () => {
    stubApi();
    renderAt('/users/roles/admin');
    expect(await screen.findByText(/always holds every capability/)).toBeInTheDocument();
    expect(screen.getByLabelText('manage_users')).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Save role' })).toBeDisabled();
  });
});
