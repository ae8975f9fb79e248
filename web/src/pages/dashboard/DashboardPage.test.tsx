import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DashboardPage } from './DashboardPage.tsx';
import type { StatusComponent } from './platform-status-state.ts';

/** Stands in for the browser's EventSource: the test pushes events and failures. */
class FakeEventSource extends EventTarget {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  static instances: FakeEventSource[] = [];
  readonly url: string;
  readyState = 0;

  constructor(url: string | URL) {
    super();
    this.url = String(url);
    FakeEventSource.instances.push(this);
  }

  close(): void {
    this.readyState = 2;
  }

  open(): void {
    this.readyState = 1;
    act(() => {
      this.dispatchEvent(new Event('open'));
    });
  }

  emit(type: string, data: unknown, lastEventId = ''): void {
    act(() => {
      this.dispatchEvent(new MessageEvent(type, { data: JSON.stringify(data), lastEventId }));
    });
  }

  fail(closed = false): void {
    this.readyState = closed ? 2 : 0;
    act(() => {
      this.dispatchEvent(new Event('error'));
    });
  }
}

const latest = (): FakeEventSource => {
  const source = FakeEventSource.instances.at(-1);
  if (!source) throw new Error('no EventSource opened');
  return source;
};

const database: StatusComponent = {
  id: 'database',
  kind: 'database',
  name: 'Database',
  state: 'up',
  reason: null,
  since: '2026-03-01T09:00:00.000Z',
  labels: { engine: 'postgres' },
};
const siem: StatusComponent = {
  id: 'siem:splunk-lab',
  kind: 'siem',
  name: 'splunk-lab',
  state: 'degraded',
  reason: 'search: HTTP 503',
  since: '2026-03-01T11:00:00.000Z',
  labels: { driver: 'vendorA_hec' },
};

const firstPaint = {
  ok: true,
  event_id: 'p-16',
  provider: 'builtin',
  polled_at: '2026-03-01T12:00:00.000Z',
  components: [database, siem],
};

function stubFetch(status = 200, body: unknown = firstPaint) {
  const fetch = vi.fn(
    async (_request: Request) =>
      new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } }),
  );
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

function SignIn() {
  const location = useLocation();
  return <p data-testid="sign-in">{location.pathname + location.search}</p>;
}

function renderPage() {
  return render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MemoryRouter initialEntries={['/']}>
        <Routes>
          <Route path="/" element={<DashboardPage />} />
          <Route path="/sign-in" element={<SignIn />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const row = (id: string) => {
  const found = document.querySelector(`tr[data-component="${id}"]`);
  if (!(found instanceof HTMLElement)) throw new Error(`no row for ${id}`);
  return found;
};

beforeEach(() => {
  FakeEventSource.instances = [];
  vi.stubGlobal('EventSource', FakeEventSource);
});
afterEach(() => vi.unstubAllGlobals());

describe('DashboardPage', () => {
  it('shows the components of the first paint, then those of the stream snapshot', async () => {
    const fetch = stubFetch();
    renderPage();
    expect(screen.getByRole('heading', { level: 1, name: 'Platform status' })).toBeInTheDocument();
    expect(await screen.findByRole('rowheader', { name: /Database/ })).toBeInTheDocument();
    expect(new URL(fetch.mock.calls[0]?.[0].url ?? '').pathname).toBe('/api/platform-status');
    expect(within(row('siem:splunk-lab')).getByText('degraded')).toHaveClass('state-degraded');
    expect(within(row('siem:splunk-lab')).getByText('search: HTTP 503')).toBeInTheDocument();
    expect(within(row('database')).getByText('up')).toHaveClass('state-up');

    const source = latest();
    expect(source.url).toBe('/api/platform-status/events');
    source.open();
    source.emit(
      'snapshot',
      { ...firstPaint, ok: undefined, cause: 'connect', event_id: 'p-17', components: [database] },
      'p-17',
    );
    expect(screen.queryByRole('rowheader', { name: /splunk-lab/ })).not.toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Live');
    // The removal seen between the first paint and the snapshot is in the log.
    const log = screen.getByRole('heading', { name: 'Recent changes' }).closest('section');
    expect(log).toHaveTextContent(/splunk-lab: removed \(was degraded\)/);
  });

  it('updates a component on a status event and keeps the change in its history', async () => {
    stubFetch();
    renderPage();
    await screen.findByRole('rowheader', { name: /Database/ });
    const source = latest();
    source.open();
    source.emit('snapshot', { ...firstPaint, cause: 'connect', event_id: 'p-17' }, 'p-17');
    source.emit(
      'status',
      {
        change: 'changed',
        at: '2026-03-01T12:00:30.000Z',
        component: {
          ...database,
          state: 'down',
          reason: 'no answer within 10 s',
          since: '2026-03-01T12:00:30.000Z',
        },
        previous: { state: 'up', reason: null, since: database.since },
      },
      'p-18',
    );
    const databaseRow = row('database');
    expect(within(databaseRow).getByText('down', { selector: 'td > span' })).toHaveClass('state-down');
    expect(within(databaseRow).getByText('no answer within 10 s', { selector: 'td' })).toBeInTheDocument();
    expect(within(databaseRow).getByText('1 change')).toBeInTheDocument();
    const changed = within(databaseRow).getAllByRole('listitem')[0];
    expect(changed).toHaveTextContent(/up → down/);
    expect(changed?.querySelector('time')).toHaveAttribute('datetime', '2026-03-01T12:00:30.000Z');
    expect(screen.getByText('Database', { selector: 'strong' })).toBeInTheDocument();

    source.emit(
      'status',
      {
        change: 'added',
        at: '2026-03-01T12:01:00.000Z',
        component: { ...database, id: 'storage', name: 'Storage' },
        previous: null,
      },
      'p-19',
    );
    expect(screen.getByRole('rowheader', { name: /Storage/ })).toBeInTheDocument();
    source.emit(
      'status',
      { change: 'removed', at: '2026-03-01T12:01:30.000Z', component: siem, previous: null },
      'p-20',
    );
    expect(screen.queryByRole('rowheader', { name: /splunk-lab/ })).not.toBeInTheDocument();
  });

  it('shows a stale state after a stream error and clears it on the next event', async () => {
    stubFetch();
    renderPage();
    await screen.findByRole('rowheader', { name: /Database/ });
    const source = latest();
    source.open();
    source.emit('snapshot', { ...firstPaint, cause: 'connect', event_id: 'p-17' }, 'p-17');
    expect(screen.getByRole('status')).not.toHaveTextContent(/stale/i);

    source.fail();
    const status = screen.getByRole('status');
    expect(status).toHaveTextContent(/Stale since .+Reconnecting/);
    expect(status.querySelector('time')?.getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    // The components stay visible meanwhile.
    expect(screen.getByRole('rowheader', { name: /Database/ })).toBeInTheDocument();

    source.emit(
      'status',
      {
        change: 'changed',
        at: '2026-03-01T12:02:00.000Z',
        component: { ...siem, state: 'up', reason: null },
        previous: { state: 'degraded', reason: 'search: HTTP 503', since: siem.since },
      },
      'p-18',
    );
    expect(screen.getByRole('status')).not.toHaveTextContent(/stale/i);
    expect(screen.getByRole('status')).toHaveTextContent('Live');
  });

  it('offers to reconnect when the browser gave up, and opens a new stream', async () => {
    const fetch = stubFetch();
    renderPage();
    await screen.findByRole('rowheader', { name: /Database/ });
    const source = latest();
    source.fail(true);
    expect(screen.getByRole('status')).toHaveTextContent(/Stale since .+stopped reconnecting/);
    // The service is asked once whether the session is still there.
    await vi.waitFor(() => expect(fetch).toHaveBeenCalledTimes(2));
    await userEvent.click(screen.getByRole('button', { name: 'Reconnect' }));
    expect(FakeEventSource.instances).toHaveLength(2);
    expect(source.readyState).toBe(2);
    expect(screen.getByRole('heading', { level: 1 })).toHaveFocus();
    latest().emit('snapshot', { ...firstPaint, cause: 'connect', event_id: 'p-30' }, 'p-30');
    expect(screen.getByRole('status')).not.toHaveTextContent(/stale/i);
  });

  it('goes to sign-in when the session ended, and closes the stream', async () => {
    stubFetch();
    renderPage();
    await screen.findByRole('rowheader', { name: /Database/ });
    const source = latest();
    source.open();
    source.emit('end', { reason: 'session_expired' });
    expect(await screen.findByTestId('sign-in')).toHaveTextContent('/sign-in?expired=1&next=/');
    expect(source.readyState).toBe(2);
  });

  it('shows a shutdown and lets the browser reconnect', async () => {
    stubFetch();
    renderPage();
    await screen.findByRole('rowheader', { name: /Database/ });
    const source = latest();
    source.open();
    source.emit('end', { reason: 'shutdown' });
    expect(screen.getByRole('status')).toHaveTextContent(/restarting/);
    expect(source.readyState).toBe(1);
    source.fail();
    expect(screen.getByRole('status')).toHaveTextContent(/Stale since .+restarting/);
    source.open();
    expect(screen.getByRole('status')).toHaveTextContent('Live');
  });

  it('shows an API error when the first paint fails', async () => {
    stubFetch(500, { ok: false, error: { code: 'internal', message: 'Something broke' } });
    renderPage();
    expect(await screen.findByRole('alert')).toHaveTextContent('Something broke');
  });
});
