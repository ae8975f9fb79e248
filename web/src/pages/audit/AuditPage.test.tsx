import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuditPage } from './AuditPage.tsx';
import {
  auditQuery,
  filtersFromSearch,
  filtersToSearch,
  PAGE_SIZE,
  pageOf,
  rangeProblem,
} from './audit-query.ts';

/** Records with ids from `top` down (newest first), `count` of them. */
function records(top: number, count: number) {
  return Array.from({ length: count }, (_, i) => ({
    id: String(top - i),
    at: new Date(Date.UTC(2025, 0, 1, 12, 0, 0) - i * 60_000).toISOString(),
    actor_type: 'user',
    actor_id: 'u1',
    actor: 'ada@example.test',
    action: i === 0 ? 'user.create' : 'role.update',
    target: `target-${top - i}`,
    ip: '10.0.0.1',
    outcome: i === 1 ? 'failure' : 'success',
    details: i === 0 ? { roles: ['analyst'] } : null,
  }));
}

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** Answers GET /api/audit from `answer(before)`; records each query. */
function stubAudit(answer: (query: URLSearchParams) => Response | Promise<Response>) {
  const queries: URLSearchParams[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (request: Request) => {
      const url = new URL(request.url);
      queries.push(url.searchParams);
      return answer(url.searchParams);
    }),
  );
  return queries;
}

function Where() {
  const location = useLocation();
  return <output data-testid="where">{location.search}</output>;
}

function renderAt(path: string) {
  return render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route
            path="/audit"
            element={
              <>
                <AuditPage />
                <Where />
              </>
            }
          />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

afterEach(() => vi.unstubAllGlobals());

describe('audit query', () => {
  it('keeps only non-empty filters, trims them and asks for one more than a page', () => {
    expect(auditQuery({ actor: ' ', action: '', outcome: '', since: '', until: '' })).toEqual({
      limit: PAGE_SIZE + 1,
    });
    expect(
      auditQuery(
        {
          actor: ' ada@example.test ',
          action: 'user.',
          outcome: 'denied',
          since: '2025-03-01T10:30',
          until: '2025-03-02T08:00',
        },
        '42',
      ),
    ).toEqual({
      limit: PAGE_SIZE + 1,
      actor: 'ada@example.test',
      action: 'user.',
      outcome: 'denied',
      since: '2025-03-01T10:30:00.000Z',
      until: '2025-03-02T08:00:00.000Z',
      before: '42',
    });
  });

  it('round-trips filters through the address and drops an unknown outcome', () => {
    const filters = {
      actor: 'ada',
      action: 'wipe',
      outcome: 'failure' as const,
      since: '2025-03-01T10:30',
      until: '2025-03-02T08:00',
    };
    expect(filtersFromSearch(filtersToSearch(filters))).toEqual(filters);
    expect(filtersFromSearch(new URLSearchParams('outcome=bogus')).outcome).toBe('');
  });

  it('refuses a From later than the Until, and only that', () => {
    expect(rangeProblem({ since: '2025-03-02T08:01', until: '2025-03-02T08:00' })).toMatch(/later than/);
    expect(rangeProblem({ since: '2025-03-02T08:00', until: '2025-03-02T08:00' })).toBeUndefined();
    expect(rangeProblem({ since: '2025-03-01T10:30', until: '2025-03-02T08:00' })).toBeUndefined();
    expect(rangeProblem({ since: '', until: '2025-03-02T08:00' })).toBeUndefined();
    expect(rangeProblem({ since: '2025-03-02T08:00', until: '' })).toBeUndefined();
  });

  it('pages: a full page plus one has an older page whose cursor is the last shown id', () => {
    expect(pageOf(records(200, PAGE_SIZE + 1))).toMatchObject({ next: String(200 - PAGE_SIZE + 1) });
    expect(pageOf(records(200, PAGE_SIZE + 1)).rows).toHaveLength(PAGE_SIZE);
    expect(pageOf(records(200, PAGE_SIZE)).next).toBeNull();
  });
});

describe('AuditPage', () => {
  it('sends the filters as the query string and keeps them in the address', async () => {
    const queries = stubAudit(() => json(records(10, 3)));
    const user = userEvent.setup();
    renderAt('/audit');
    expect(await screen.findByText('user.create')).toBeInTheDocument();
    expect(queries[0]?.toString()).toBe(`limit=${PAGE_SIZE + 1}`);

    await user.type(screen.getByLabelText('Actor'), 'ada@example.test');
    await user.type(screen.getByLabelText('Action'), 'user.');
    await user.selectOptions(screen.getByLabelText('Outcome'), 'failure');
    await user.type(screen.getByLabelText('From (your time)'), '2025-03-01T10:30');
    await user.type(screen.getByLabelText('Until (your time)'), '2025-03-02T08:00');
    await user.click(screen.getByRole('button', { name: 'Apply filters' }));

    await vi.waitFor(() => expect(queries).toHaveLength(2));
    const sent = queries[1]!;
    expect(Object.fromEntries(sent)).toEqual({
      limit: String(PAGE_SIZE + 1),
      actor: 'ada@example.test',
      action: 'user.',
      outcome: 'failure',
      since: '2025-03-01T10:30:00.000Z',
      until: '2025-03-02T08:00:00.000Z',
    });
    expect(screen.getByTestId('where')).toHaveTextContent(
      '?actor=ada%40example.test&action=user.&outcome=failure&since=2025-03-01T10%3A30&until=2025-03-02T08%3A00',
    );
    expect(screen.getByRole('heading', { name: 'Records' })).toHaveFocus();
  });

  it('takes the time range from the address', async () => {
    const queries = stubAudit(() => json(records(10, 1)));
    renderAt('/audit?since=2025-03-01T10%3A30&until=2025-03-02T08%3A00');
    expect(await screen.findByText('user.create')).toBeInTheDocument();
    expect(queries[0]?.get('since')).toBe('2025-03-01T10:30:00.000Z');
    expect(queries[0]?.get('until')).toBe('2025-03-02T08:00:00.000Z');
    expect(screen.getByLabelText('From (your time)')).toHaveValue('2025-03-01T10:30');
    expect(screen.getByLabelText('Until (your time)')).toHaveValue('2025-03-02T08:00');
  });

  it('refuses a From later than the Until before sending', async () => {
    const queries = stubAudit(() => json(records(10, 1)));
    const user = userEvent.setup();
    renderAt('/audit');
    expect(await screen.findByText('user.create')).toBeInTheDocument();

    await user.type(screen.getByLabelText('From (your time)'), '2025-03-02T09:00');
    await user.type(screen.getByLabelText('Until (your time)'), '2025-03-02T08:00');
    await user.click(screen.getByRole('button', { name: 'Apply filters' }));

    const message = '“From” must not be later than “Until”.';
    expect(await screen.findByText(message)).toBeInTheDocument();
    const until = screen.getByLabelText('Until (your time)');
    expect(until).toHaveAccessibleDescription(message);
    expect(until).toBeInvalid();
    expect(until).toHaveFocus();
    expect(queries).toHaveLength(1);
    expect(screen.getByTestId('where')).toHaveTextContent(/^$/);

    await user.clear(screen.getByLabelText('From (your time)'));
    await user.type(screen.getByLabelText('From (your time)'), '2025-03-02T07:00');
    expect(screen.queryByText(message)).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Apply filters' }));
    await vi.waitFor(() => expect(queries).toHaveLength(2));
    expect(queries[1]?.get('since')).toBe('2025-03-02T07:00:00.000Z');
    expect(queries[1]?.get('until')).toBe('2025-03-02T08:00:00.000Z');
  });

  it('moves to older and back to newer pages with the before cursor', async () => {
    const queries = stubAudit((q) => {
      const before = q.get('before');
      if (before === null) return json(records(300, PAGE_SIZE + 1));
      if (before === String(300 - PAGE_SIZE + 1)) return json(records(300 - PAGE_SIZE, 3));
      return json([]);
    });
    const user = userEvent.setup();
    renderAt('/audit?action=role.');
    expect(await screen.findByText('target-300')).toBeInTheDocument();
    expect(queries[0]?.get('action')).toBe('role.');
    const previous = screen.getByRole('button', { name: 'Previous (newer)' });
    const next = screen.getByRole('button', { name: 'Next (older)' });
    expect(previous).toBeDisabled();
    expect(within(screen.getByRole('table')).getAllByRole('row')).toHaveLength(PAGE_SIZE + 1);

    await user.click(next);
    expect(await screen.findByText('target-250')).toBeInTheDocument();
    expect(queries.at(-1)?.get('before')).toBe('251');
    expect(queries.at(-1)?.get('action')).toBe('role.');
    expect(screen.getByRole('heading', { name: 'Records, page 2' })).toHaveFocus();
    expect(screen.getByRole('button', { name: 'Next (older)' })).toBeDisabled();

    await user.click(screen.getByRole('button', { name: 'Previous (newer)' }));
    expect(await screen.findByText('target-300')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Records' })).toHaveFocus();
    expect(screen.getByRole('button', { name: 'Previous (newer)' })).toBeDisabled();
  });

  it('locks the pager while the next page loads, so a double click moves one page', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const queries = stubAudit((q) => {
      if (q.get('before') === null) return json(records(300, PAGE_SIZE + 1));
      // The older page is held until the test releases it.
      return held.then(() => json(records(300 - PAGE_SIZE, PAGE_SIZE + 1)));
    });
    const user = userEvent.setup();
    renderAt('/audit');
    expect(await screen.findByText('target-300')).toBeInTheDocument();
    const next = screen.getByRole('button', { name: 'Next (older)' });
    await user.dblClick(next);
    expect(next).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Previous (newer)' })).toBeDisabled();
    release();
    expect(await screen.findByText('target-250')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Records, page 2' })).toBeInTheDocument();
    expect(queries.filter((q) => q.has('before')).map((q) => q.get('before'))).toEqual(['251']);
    expect(screen.getByRole('button', { name: 'Next (older)' })).toBeEnabled();
  });

  it('shows details collapsed and a 400 next to its filter', async () => {
    stubAudit((q) =>
      q.get('actor') === 'x'.repeat(3)
        ? json(
            {
              ok: false,
              error: {
                code: 'invalid_input',
                message: 'Invalid querystring: actor',
                details: { in: 'querystring', fields: { actor: 'must NOT have more than 320 characters' } },
              },
            },
            400,
          )
        : json(records(10, 2)),
    );
    const user = userEvent.setup();
    renderAt('/audit');
    const summary = await screen.findByText('Show');
    const pre = summary.closest('details')!.querySelector('pre')!;
    expect(summary.closest('details')).not.toHaveAttribute('open');
    expect(JSON.parse(pre.textContent ?? '')).toEqual({ roles: ['analyst'] });

    await user.type(screen.getByLabelText('Actor'), 'xxx');
    await user.click(screen.getByRole('button', { name: 'Apply filters' }));
    expect(await screen.findByText('must NOT have more than 320 characters')).toBeInTheDocument();
    expect(screen.getByLabelText('Actor')).toHaveAccessibleDescription(
      'must NOT have more than 320 characters',
    );
  });

  it('shows a 400 about until next to the Until field', async () => {
    stubAudit((q) =>
      q.has('until')
        ? json(
            {
              ok: false,
              error: {
                code: 'invalid_input',
                message: 'Invalid querystring: until',
                details: { in: 'querystring', fields: { until: 'must match format "date-time"' } },
              },
            },
            400,
          )
        : json(records(10, 1)),
    );
    const user = userEvent.setup();
    renderAt('/audit');
    expect(await screen.findByText('user.create')).toBeInTheDocument();
    await user.type(screen.getByLabelText('Until (your time)'), '2025-03-02T08:00');
    await user.click(screen.getByRole('button', { name: 'Apply filters' }));
    expect(await screen.findByText('must match format "date-time"')).toBeInTheDocument();
    expect(screen.getByLabelText('Until (your time)')).toHaveAccessibleDescription(
      'must match format "date-time"',
    );
  });
});
