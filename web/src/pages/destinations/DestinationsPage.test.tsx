import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DestinationsPage } from './DestinationsPage.tsx';
import { fakeApi, view } from './fake-api.ts';
import { KINDS } from './kinds.fixture.ts';

function renderAt(path: string, client = new QueryClient({ defaultOptions: { queries: { retry: false } } })) {
  return render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/destinations/*" element={<DestinationsPage />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const STATUS = {
  ok: true,
  event_id: '1',
  provider: 'builtin',
  polled_at: null,
  components: [
    {
      id: 'siem:splunk-lab',
      kind: 'siem',
      name: 'splunk-lab',
      state: 'down',
      reason: 'connection refused',
      since: '2025-01-01T00:00:00.000Z',
      labels: {},
    },
  ],
};

afterEach(() => vi.unstubAllGlobals());

/** The container of one field: its label's setting block. */
function settingOf(label: RegExp): HTMLElement {
  const input = screen.getByLabelText(label);
  const block = input.closest('.setting');
  if (!(block instanceof HTMLElement)) throw new Error('no setting block');
  return block;
}

describe('list', () => {
  it('lists destinations with kind, format, index, enabled and state, linked to their pages', async () => {
    fakeApi({
      'GET /api/destinations': {
        body: [
          view(),
          view({
            id: 'x2',
            name: 'elastic',
            driver: 'vendorB_bulk',
            payload_format: 'ecs',
            enabled: false,
            index: null,
          }),
        ],
      },
      'GET /api/siem-kinds': { body: KINDS },
      'GET /api/platform-status': { body: STATUS },
    });
    renderAt('/destinations');
    const link = await screen.findByRole('link', { name: 'splunk-lab' });
    expect(link).toHaveAttribute('href', '/destinations/splunk-lab');
    const rows = screen.getAllByRole('row');
    expect(within(rows[1]!).getByText('HTTP Event Collector (SIEM A)')).toBeInTheDocument();
    expect(within(rows[1]!).getByText('LEEF')).toBeInTheDocument();
    expect(await within(rows[1]!).findByText('down')).toHaveClass('state-down');
    expect(within(rows[1]!).getByText('connection refused')).toBeInTheDocument();
    expect(within(rows[2]!).getByText('ECS')).toBeInTheDocument();
    expect(within(rows[2]!).getByText('not reported')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'New destination' })).toHaveAttribute(
      'href',
      '/destinations/new',
    );
  });

  it('disables and enables a destination', async () => {
    const seen = fakeApi({
      'GET /api/destinations': { body: [view()] },
      'GET /api/siem-kinds': { body: KINDS },
      'GET /api/platform-status': { body: STATUS },
      'PATCH /api/destinations/splunk-lab': { body: view({ enabled: false }) },
    });
    renderAt('/destinations');
    await userEvent.click(await screen.findByRole('button', { name: 'Disable splunk-lab' }));
    await waitFor(() =>
      expect(seen).toContainEqual({
        method: 'PATCH',
        path: '/api/destinations/splunk-lab',
        body: { enabled: false },
      }),
    );
  });
});

describe('new destination', () => {
  it('shows only the chosen kind’s fields, with required marked, hints and defaults', async () => {
    fakeApi({ 'GET /api/siem-kinds': { body: KINDS } });
    renderAt('/destinations/new');
    expect(screen.queryByLabelText(/^URL/)).not.toBeInTheDocument();
    await userEvent.click(await screen.findByLabelText(/HTTP Event Collector/));
    expect(screen.getByLabelText(/^Token/)).toHaveAttribute('type', 'password');
    expect(screen.getByLabelText(/^Management URL/)).toBeInTheDocument();
    expect(screen.queryByLabelText(/^API key/)).not.toBeInTheDocument();
    expect(screen.queryByLabelText(/^Host/)).not.toBeInTheDocument();
    expect(screen.getByLabelText(/^URL/)).toHaveAccessibleName('URL (required)');
    expect(screen.getByLabelText(/^URL/)).toHaveAccessibleDescription(
      'collector base URL, e.g. https://siem-a:8088',
    );
    expect(screen.getByLabelText(/^CA PEM/).tagName).toBe('TEXTAREA');

    await userEvent.click(screen.getByLabelText(/Syslog over TCP/));
    expect(screen.queryByLabelText(/^Token \(required\)/)).not.toBeInTheDocument();
    expect(screen.getByLabelText(/^Facility/)).toHaveAttribute('placeholder', '16');
    expect(screen.getByLabelText(/^Framing/)).toHaveDisplayValue('default (lf)');
    expect(screen.getByLabelText(/^Console URL/)).toHaveAccessibleName(
      'Console URL (required when this group is used)',
    );
    expect(screen.getByRole('group', { name: 'SIEM Q' })).toBeInTheDocument();
  });

  it('creates with the filled fields only and opens the new destination', async () => {
    const seen = fakeApi({
      'GET /api/siem-kinds': { body: KINDS },
      'POST /api/destinations': { status: 201, body: view({ name: 'b1', driver: 'vendorB_bulk' }) },
      'GET /api/destinations/b1': { body: view({ name: 'b1', driver: 'vendorB_bulk' }) },
      'POST /api/destinations/b1/test': {
        body: { ok: true, siem: 'b1', driver: 'vendorB_bulk', checks: [], duration_ms: 1 },
      },
    });
    renderAt('/destinations/new?kind=vendorB_bulk');
    await userEvent.type(await screen.findByLabelText(/^Name/), 'b1');
    await userEvent.type(screen.getByLabelText(/^Index/), 'lab');
    await userEvent.type(screen.getByLabelText(/^URL/), 'https://b:9200');
    await userEvent.type(screen.getByLabelText(/^API key/), 'k3y');
    await userEvent.click(screen.getByRole('button', { name: 'Create destination' }));
    // The heading takes focus in an effect after the page renders: on a busy machine the heading
    // can be found before that effect has run.
    await waitFor(() => expect(screen.getByRole('heading', { level: 1, name: 'b1' })).toHaveFocus());
    expect(screen.getByText('Created b1.')).toBeInTheDocument();
    expect(seen.find((r) => r.method === 'POST')?.body).toEqual({
      name: 'b1',
      index: 'lab',
      url: 'https://b:9200',
      api_key: 'k3y',
      driver: 'vendorB_bulk',
    });
  });

  it('shows a 400’s field messages next to their fields and focuses the first', async () => {
    fakeApi({
      'GET /api/siem-kinds': { body: KINDS },
      'POST /api/destinations': {
        status: 400,
        body: {
          ok: false,
          error: {
            code: 'invalid_input',
            message:
              'Invalid destination: url is required; siem_q.console_url must be an absolute http(s) URL',
            details: {
              fields: {
                host: 'must be a host name or address',
                'siem_q.console_url': 'must be an absolute http(s) URL',
              },
            },
          },
        },
      },
    });
    renderAt('/destinations/new?kind=syslog_tcp');
    await userEvent.type(await screen.findByLabelText(/^Name/), 'q');
    await userEvent.type(screen.getByLabelText(/^Host/), 'bad host');
    await userEvent.type(screen.getByLabelText(/^Port/), '514');
    await userEvent.type(screen.getByLabelText(/^Console URL/), 'nope');
    await userEvent.click(screen.getByRole('button', { name: 'Create destination' }));
    const host = screen.getByLabelText(/^Host/);
    await waitFor(() => expect(host).toHaveFocus());
    expect(within(settingOf(/^Host/)).getByText('must be a host name or address')).toBeInTheDocument();
    expect(host).toHaveAttribute('aria-invalid', 'true');
    expect(host).toHaveAccessibleDescription(/must be a host name or address/);
    expect(
      within(settingOf(/^Console URL/)).getByText('must be an absolute http(s) URL'),
    ).toBeInTheDocument();
    expect(within(settingOf(/^Port/)).queryByRole('alert')).not.toBeInTheDocument();
  });

  it('names a number that is not one without asking the service', async () => {
    const seen = fakeApi({ 'GET /api/siem-kinds': { body: KINDS } });
    renderAt('/destinations/new?kind=syslog_tcp');
    await userEvent.type(await screen.findByLabelText(/^Port/), 'five');
    await userEvent.click(screen.getByRole('button', { name: 'Create destination' }));
    expect(await within(settingOf(/^Port/)).findByText('must be a whole number')).toBeInTheDocument();
    expect(seen.filter((r) => r.method === 'POST')).toEqual([]);
  });
});

describe('edit', () => {
  it('shows a stored secret as set, never its value, and sends it only when replaced', async () => {
    const seen = fakeApi({
      'GET /api/siem-kinds': { body: KINDS },
      'GET /api/destinations/splunk-lab': { body: view({ token: 'should-never-show' }) },
      'PATCH /api/destinations/splunk-lab': ({ body }) => ({ body: view(body as Record<string, unknown>) }),
    });
    const { container } = renderAt('/destinations/splunk-lab');
    const token = await screen.findByRole('group', { name: /^Token/ });
    expect(within(token).getByText('set')).toBeInTheDocument();
    expect(within(token).queryByRole('textbox')).not.toBeInTheDocument();
    expect(container.innerHTML).not.toContain('should-never-show');
    // A secret that is not set is an empty input.
    expect(screen.getByLabelText(/^Management token/)).toHaveValue('');

    await userEvent.clear(screen.getByLabelText(/^Sourcetype/));
    await userEvent.type(screen.getByLabelText(/^Sourcetype/), 'lab:leef');
    await userEvent.click(screen.getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(seen.filter((r) => r.method === 'PATCH')).toHaveLength(1));
    expect(seen.find((r) => r.method === 'PATCH')?.body).toEqual({ sourcetype: 'lab:leef' });

    await userEvent.click(await screen.findByRole('button', { name: 'Replace Token' }));
    const input = screen.getByLabelText(/^Token/);
    expect(input).toHaveAttribute('type', 'password');
    expect(input).toHaveValue('');
    await waitFor(() => expect(input).toHaveFocus());
    await userEvent.type(input, 'rotated');
    await userEvent.click(screen.getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(seen.filter((r) => r.method === 'PATCH')).toHaveLength(2));
    expect(seen.filter((r) => r.method === 'PATCH')[1]?.body).toEqual({ token: 'rotated' });
  });

  it('clears a stored secret of a group as null, and shows a PATCH 400 next to its field', async () => {
    const syslog = view({
      name: 'q',
      driver: 'syslog_tcp',
      host: 'q.lab',
      port: 514,
      siem_q: { console_url: 'https://q.lab', token: null, log_source_type: 'Universal LEEF' },
      secrets_set: ['siem_q.token'],
    });
    const seen = fakeApi({
      'GET /api/siem-kinds': { body: KINDS },
      'GET /api/destinations/q': { body: syslog },
      'PATCH /api/destinations/q': {
        status: 400,
        body: {
          ok: false,
          error: {
            code: 'invalid_input',
            message: 'Invalid destination: siem_q.token is required when provision_log_source is on',
            details: { fields: { 'siem_q.token': 'is required when provision_log_source is on' } },
          },
        },
      },
    });
    renderAt('/destinations/q');
    const token = await screen.findByRole('group', { name: /^Token/ });
    await userEvent.click(within(token).getByRole('button', { name: 'Clear Token' }));
    expect(within(token).getByText('cleared on save')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Save changes' }));
    expect(await within(token).findByText('is required when provision_log_source is on')).toBeInTheDocument();
    expect(seen.find((r) => r.method === 'PATCH')?.body).toEqual({ siem_q: { token: null } });
    expect(within(token).getByRole('button', { name: 'Undo' })).toHaveFocus();
  });

  it('sends only the fields this user changed when the destination is fetched again meanwhile', async () => {
    let stored = view();
    const seen = fakeApi({
      'GET /api/siem-kinds': { body: KINDS },
      'GET /api/destinations/splunk-lab': () => ({ body: stored }),
      'PATCH /api/destinations/splunk-lab': ({ body }) => ({
        body: { ...stored, ...(body as Record<string, unknown>) },
      }),
    });
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    renderAt('/destinations/splunk-lab', client);
    await userEvent.type(await screen.findByLabelText(/^Sourcetype/), 'lab:leef');
    // Another admin changes the index and sets the management token; a window-focus refetch sees it.
    stored = view({ index: 'other', secrets_set: ['token', 'management_token'] });
    await client.refetchQueries({ queryKey: ['destinations', 'one', 'splunk-lab'] });
    await userEvent.click(screen.getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(seen.filter((r) => r.method === 'PATCH')).toHaveLength(1));
    expect(seen.find((r) => r.method === 'PATCH')?.body).toEqual({ sourcetype: 'lab:leef' });
  });

  it('says when nothing changed instead of saving', async () => {
    const seen = fakeApi({
      'GET /api/siem-kinds': { body: KINDS },
      'GET /api/destinations/splunk-lab': { body: view() },
    });
    renderAt('/destinations/splunk-lab');
    await userEvent.click(await screen.findByRole('button', { name: 'Save changes' }));
    expect(await screen.findByText('Nothing changed.')).toBeInTheDocument();
    expect(seen.filter((r) => r.method === 'PATCH')).toEqual([]);
  });

  it('deletes after confirmation and returns to the list', async () => {
    const seen = fakeApi({
      'GET /api/siem-kinds': { body: KINDS },
      'GET /api/destinations/splunk-lab': { body: view() },
      'DELETE /api/destinations/splunk-lab': { body: { ok: true } },
      'GET /api/destinations': { body: [] },
      'GET /api/platform-status': { body: STATUS },
    });
    renderAt('/destinations/splunk-lab');
    await userEvent.click(await screen.findByRole('button', { name: 'Delete destination…' }));
    expect(seen.filter((r) => r.method === 'DELETE')).toEqual([]);
    const confirm = screen.getByRole('button', { name: 'Delete splunk-lab' });
    expect(confirm).toHaveFocus();
    await userEvent.click(confirm);
    expect(await screen.findByRole('heading', { level: 1, name: 'SIEM destinations' })).toHaveFocus();
    expect(screen.getByText('Deleted splunk-lab.')).toBeInTheDocument();
    expect(seen.filter((r) => r.method === 'DELETE')).toHaveLength(1);
  });

  it('shows why a delete was refused', async () => {
    fakeApi({
      'GET /api/siem-kinds': { body: KINDS },
      'GET /api/destinations/splunk-lab': { body: view() },
      'DELETE /api/destinations/splunk-lab': {
        status: 409,
        body: {
          ok: false,
          error: { code: 'conflict', message: 'Destination "splunk-lab" is a target of noise jobs: "n1"' },
        },
      },
    });
    renderAt('/destinations/splunk-lab');
    await userEvent.click(await screen.findByRole('button', { name: 'Delete destination…' }));
    await userEvent.click(screen.getByRole('button', { name: 'Delete splunk-lab' }));
    expect(await screen.findByText(/is a target of noise jobs/)).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('button', { name: 'Delete splunk-lab' })).toHaveFocus());
  });

  it('returns focus to the delete button when the confirmation is cancelled', async () => {
    const seen = fakeApi({
      'GET /api/siem-kinds': { body: KINDS },
      'GET /api/destinations/splunk-lab': { body: view() },
    });
    renderAt('/destinations/splunk-lab');
    await userEvent.click(await screen.findByRole('button', { name: 'Delete destination…' }));
    expect(screen.getByRole('button', { name: 'Delete splunk-lab' })).toHaveFocus();
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.getByRole('button', { name: 'Delete destination…' })).toHaveFocus();
    expect(seen.filter((r) => r.method === 'DELETE')).toEqual([]);
  });
});
