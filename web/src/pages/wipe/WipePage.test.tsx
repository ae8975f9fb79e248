import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WipePage } from './WipePage.tsx';
import { confirmationText, isConfirmed } from './wipe.ts';

/** GET /api/siems rows, in the list's order. */
const siems = [
  {
    name: 'splunk-lab',
    driver: 'vendorA_hec',
    payload_format: 'leef',
    index: 'lab',
    enabled: true,
    can_wipe: true,
    closes_offenses: false,
    indexes: 'native',
  },
  {
    name: 'syslog-lab',
    driver: 'syslog_tcp',
    payload_format: 'leef',
    index: null,
    enabled: true,
    can_wipe: false,
    closes_offenses: false,
    indexes: 'label',
  },
  {
    name: 'elastic-lab',
    driver: 'vendorB_bulk',
    payload_format: 'ecs',
    index: 'lab',
    enabled: true,
    can_wipe: true,
    closes_offenses: false,
    indexes: 'native',
  },
];

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** Stubs the API: the SIEM list, and `wipe` for DELETE /api/sessions; records the requests. */
function stubApi(wipe: () => Response | Promise<Response>, list: () => Response = () => json(siems)) {
  const requests: Request[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (request: Request) => {
      requests.push(request);
      const url = new URL(request.url, 'http://localhost');
      if (url.pathname === '/api/siems') return list();
      if (url.pathname === '/api/sessions' && request.method === 'DELETE') return wipe();
      return json({ ok: false, error: { code: 'not_found', message: 'no' } }, 404);
    }),
  );
  return requests;
}

function renderPage() {
  return render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MemoryRouter initialEntries={['/wipe']}>
        <WipePage />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

afterEach(() => vi.unstubAllGlobals());

/** Renders the page and wipes splunk-lab through the typed confirmation. */
async function wipeFirstSiem() {
  const user = userEvent.setup();
  renderPage();
  await user.click(await screen.findByLabelText('splunk-lab'));
  await user.type(screen.getByLabelText('Confirmation'), 'wipe splunk-lab');
  await user.click(screen.getByRole('button', { name: 'Wipe permanently' }));
}

describe('wipe confirmation text', () => {
  it('names the SIEMs in order and must match exactly', () => {
    expect(confirmationText(['splunk-lab', 'elastic-lab'])).toBe('wipe splunk-lab, elastic-lab');
    expect(isConfirmed(['a'], 'wipe a')).toBe(true);
    expect(isConfirmed(['a'], 'wipe a ')).toBe(false);
    expect(isConfirmed(['a'], 'Wipe a')).toBe(false);
    expect(isConfirmed([], 'wipe ')).toBe(false);
  });
});

describe('WipePage', () => {
  it('enables the button only with the exact text, then shows the result', async () => {
    const requests = stubApi(() =>
      json({
        ok: true,
        wiped: ['splunk-lab', 'elastic-lab'],
        skipped: [],
        re_fired: [{ siem: 'splunk-lab', job_ids: ['j1', 'j2'] }],
        re_fire_errors: ['job j3 on elastic-lab: timeout'],
      }),
    );
    const user = userEvent.setup();
    renderPage();

    expect(await screen.findByLabelText('syslog-lab')).toBeDisabled();
    expect(screen.getByText(/has no delete API/)).toBeInTheDocument();
    expect(screen.getByText(/The deletion is permanent/)).toBeInTheDocument();

    await user.click(screen.getByLabelText('elastic-lab'));
    await user.click(screen.getByLabelText('splunk-lab'));
    // The list's order, not the clicking order.
    expect(screen.getByText('wipe splunk-lab, elastic-lab')).toBeInTheDocument();

    const button = screen.getByRole('button', { name: 'Wipe permanently' });
    const confirm = screen.getByLabelText('Confirmation');
    expect(button).toBeDisabled();
    await user.type(confirm, 'wipe splunk-lab');
    expect(button).toBeDisabled();
    await user.type(confirm, ', elastic-lab ');
    expect(button).toBeDisabled();
    await user.type(confirm, '{Backspace}');
    expect(button).toBeEnabled();

    await user.click(button);
    const heading = await screen.findByRole('heading', { name: 'Wipe finished' });
    expect(heading).toHaveFocus();
    expect(confirm).toHaveValue('');
    expect(button).toBeDisabled();
    expect(screen.getByText('splunk-lab, elastic-lab')).toBeInTheDocument();
    expect(screen.getByText(/2 jobs/)).toBeInTheDocument();
    expect(screen.getByText('job j3 on elastic-lab: timeout')).toBeInTheDocument();

    const wipe = requests.find((r) => r.method === 'DELETE');
    expect(new URL(wipe!.url).searchParams.getAll('siem')).toEqual(['splunk-lab', 'elastic-lab']);
  });

  it('locks the SIEM choice while the wipe runs and names what is being wiped', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    stubApi(() =>
      held.then(() =>
        json({ ok: true, wiped: ['splunk-lab'], skipped: [], re_fired: [], re_fire_errors: [] }),
      ),
    );
    const user = userEvent.setup();
    renderPage();
    await user.click(await screen.findByLabelText('splunk-lab'));
    await user.type(screen.getByLabelText('Confirmation'), 'wipe splunk-lab');
    await user.click(screen.getByRole('button', { name: 'Wipe permanently' }));

    expect(await screen.findByRole('heading', { name: 'Wiping' })).toBeInTheDocument();
    expect(screen.getByRole('group', { name: 'SIEM destinations' })).toBeDisabled();
    expect(screen.getByLabelText('elastic-lab')).toBeDisabled();
    expect(screen.getByText(/Deleting from splunk-lab\./)).toBeInTheDocument();
    // A click on the locked list changes nothing.
    await user.click(screen.getByLabelText('elastic-lab'));
    expect(screen.getByLabelText('elastic-lab')).not.toBeChecked();

    release();
    expect(await screen.findByRole('heading', { name: 'Wipe finished' })).toHaveFocus();
    expect(screen.getByLabelText('elastic-lab')).toBeEnabled();
  });

  it('shows the per-SIEM errors of a 502 with what was wiped', async () => {
    stubApi(() =>
      json(
        {
          ok: false,
          wiped: ['splunk-lab'],
          skipped: [],
          re_fired: [],
          re_fire_errors: [],
          errors: [{ siem: 'elastic-lab', message: 'delete-by-query answered 503' }],
          error: { code: 'bad_gateway', message: 'delete-by-query answered 503' },
        },
        502,
      ),
    );
    const user = userEvent.setup();
    renderPage();
    await user.click(await screen.findByLabelText('splunk-lab'));
    await user.click(screen.getByLabelText('elastic-lab'));
    await user.type(screen.getByLabelText('Confirmation'), 'wipe splunk-lab, elastic-lab');
    await user.click(screen.getByRole('button', { name: 'Wipe permanently' }));

    expect(await screen.findByRole('heading', { name: 'Wipe failed for some SIEMs' })).toHaveFocus();
    const errors = screen.getByRole('list', { name: 'Errors per SIEM' });
    expect(within(errors).getByText('elastic-lab')).toBeInTheDocument();
    expect(within(errors).getByText(/delete-by-query answered 503/)).toBeInTheDocument();
    expect(screen.getByText('Wiped').nextElementSibling).toHaveTextContent('splunk-lab');
  });

  it('shows the offenses a SIEM Q cleanup closed and explains why its events were skipped', async () => {
    stubApi(() =>
      json({
        ok: true,
        wiped: ['splunk-lab'],
        skipped: ['siem-q'],
        re_fired: [],
        re_fire_errors: [],
        offense_cleanup: [{ siem: 'siem-q', status: 'ok', found: 3, closed: 3, failed: 0, error: null }],
      }),
    );
    await wipeFirstSiem();

    expect(await screen.findByRole('heading', { name: 'Wipe finished' })).toHaveFocus();
    const offenses = screen.getByRole('list', { name: 'Offenses closed' });
    const [line] = within(offenses).getAllByRole('listitem');
    expect(line).toHaveTextContent('siem-q: offenses closed 3 of 3 — ok');
    expect(within(line!).getByText('ok')).toHaveClass('state-ok');
    expect(screen.getByText('Skipped (no delete API)').nextElementSibling).toHaveTextContent(
      'siem-q (its events cannot be deleted; its open offenses were closed instead, see Offenses closed)',
    );
  });

  it('shows a partial offense cleanup with its error on a 502', async () => {
    const error = 'SIEM Q console https://q.lab/api/siem/offenses/77: HTTP 409 (code 1008)';
    stubApi(() =>
      json(
        {
          ok: false,
          wiped: [],
          skipped: ['siem-q'],
          re_fired: [],
          re_fire_errors: [],
          errors: [{ siem: 'splunk-lab', message: 'search answered 503' }],
          offense_cleanup: [{ siem: 'siem-q', status: 'partial', found: 3, closed: 2, failed: 1, error }],
          error: { code: 'bad_gateway', message: 'search answered 503' },
        },
        502,
      ),
    );
    await wipeFirstSiem();

    expect(await screen.findByRole('heading', { name: 'Wipe failed for some SIEMs' })).toHaveFocus();
    const offenses = screen.getByRole('list', { name: 'Offenses closed' });
    const [line] = within(offenses).getAllByRole('listitem');
    expect(line).toHaveTextContent(
      `siem-q: offenses closed 2 of 3, 1 could not be closed — partial: ${error}`,
    );
    expect(within(line!).getByText('partial')).toHaveClass('state-partial');
    expect(screen.getByText('Skipped (no delete API)').nextElementSibling).toHaveTextContent(
      'closing its open offenses instead did not fully work',
    );
  });

  it('shows no offense section when the answer has no offense cleanup', async () => {
    stubApi(() =>
      json({ ok: true, wiped: ['splunk-lab'], skipped: ['syslog-lab'], re_fired: [], re_fire_errors: [] }),
    );
    await wipeFirstSiem();

    expect(await screen.findByRole('heading', { name: 'Wipe finished' })).toHaveFocus();
    expect(screen.queryByText('Offenses closed')).not.toBeInTheDocument();
    expect(screen.queryByRole('list', { name: 'Offenses closed' })).not.toBeInTheDocument();
    expect(screen.getByText('Skipped (no delete API)').nextElementSibling).toHaveTextContent(/^syslog-lab$/);
  });

  it('shows a 400 next to the SIEM list', async () => {
    stubApi(() =>
      json(
        {
          ok: false,
          error: {
            code: 'invalid_input',
            message: 'Unknown SIEM destination; nothing was wiped',
            details: { fields: { siem: 'no destination is named "splunk-lab"' } },
          },
        },
        400,
      ),
    );
    const user = userEvent.setup();
    renderPage();
    await user.click(await screen.findByLabelText('splunk-lab'));
    await user.type(screen.getByLabelText('Confirmation'), 'wipe splunk-lab');
    await user.click(screen.getByRole('button', { name: 'Wipe permanently' }));
    const message = await screen.findByText('no destination is named "splunk-lab"');
    expect(screen.getByRole('group', { name: 'SIEM destinations' })).toContainElement(message);
    expect(screen.getByText(/nothing was wiped/)).toBeInTheDocument();
  });

  it('offers exactly the SIEMs whose kind can wipe (can_wipe), whatever the driver', async () => {
    const requests = stubApi(
      () => json({ ok: false, error: { code: 'not_found', message: 'no' } }, 404),
      () =>
        json([
          { ...siems[0], name: 'hec-no-wipe', can_wipe: false },
          { ...siems[1], name: 'new-kind-lab', driver: 'vendorC_search', can_wipe: true, indexes: 'native' },
        ]),
    );
    renderPage();
    expect(await screen.findByLabelText('hec-no-wipe')).toBeDisabled();
    expect(screen.getByLabelText('new-kind-lab')).toBeEnabled();
    expect(requests.map((r) => new URL(r.url).pathname)).not.toContain('/api/destinations');
  });

  it('offers a syslog SIEM whose wipe closes its offenses, saying its events stay', async () => {
    stubApi(
      () => json({ ok: false, error: { code: 'not_found', message: 'no' } }, 404),
      () => json([{ ...siems[1], name: 'siem-q-lab', closes_offenses: true }, siems[1]]),
    );
    renderPage();
    expect(await screen.findByLabelText('siem-q-lab')).toBeEnabled();
    expect(
      screen.getByText(/its events cannot be deleted; a wipe closes its open offenses/),
    ).toBeInTheDocument();
    expect(screen.getByLabelText('syslog-lab')).toBeDisabled();
  });

  it('shows why the SIEM list could not be read, with no field to type names', async () => {
    stubApi(
      () => json({ ok: false, error: { code: 'not_found', message: 'no' } }, 404),
      () =>
        json(
          { ok: false, error: { code: 'forbidden', message: 'Listing SIEMs needs one of manage_exercises' } },
          403,
        ),
    );
    renderPage();
    expect(await screen.findByText(/Listing SIEMs needs one of manage_exercises/)).toBeInTheDocument();
    expect(screen.queryByLabelText('SIEM destination names')).not.toBeInTheDocument();
    expect(screen.getByLabelText('Confirmation')).toBeDisabled();
  });
});
