import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeApi } from './fake-api.ts';
import { TestConnection } from './TestConnection.tsx';

function renderTest() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <TestConnection name="splunk-lab" />
    </QueryClientProvider>,
  );
}

const FAILED = {
  ok: false,
  siem: 'splunk-lab',
  driver: 'vendorA_hec',
  duration_ms: 412,
  checks: [
    {
      name: 'collector health',
      ok: true,
      message: 'HEC is healthy',
      endpoint: 'https://siem-a:8088/services/collector/health',
    },
    { name: 'token', ok: false, message: 'HEC answered 403: invalid token' },
  ],
};

afterEach(() => vi.unstubAllGlobals());

describe('TestConnection', () => {
  it('shows a pending state, then every step with ok or failed and its message', async () => {
    let answer: (value: { body: unknown }) => void = () => {};
    const pending = new Promise<{ body: unknown }>((resolve) => {
      answer = resolve;
    });
    const seen = fakeApi({ 'POST /api/destinations/splunk-lab/test': pending });
    renderTest();
    await userEvent.click(screen.getByRole('button', { name: 'Test connection' }));
    expect(await screen.findByRole('button', { name: 'Testing…' })).toBeDisabled();
    expect(screen.getByRole('progressbar', { name: 'Connection test in progress' })).toBeInTheDocument();
    answer({ body: FAILED });

    const heading = await screen.findByRole('heading', { name: /Connection failed: 1 of 2 checks failed/ });
    expect(heading).toHaveFocus();
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
    const steps = screen.getAllByRole('listitem');
    expect(steps).toHaveLength(2);
    expect(within(steps[0]!).getByText('collector health')).toBeInTheDocument();
    expect(within(steps[0]!).getByText('ok')).toHaveClass('state-ok');
    expect(within(steps[0]!).getByText('HEC is healthy')).toBeInTheDocument();
    expect(within(steps[0]!).getByText('https://siem-a:8088/services/collector/health')).toBeInTheDocument();
    expect(within(steps[1]!).getByText('failed')).toHaveClass('state-failed');
    expect(within(steps[1]!).getByText('HEC answered 403: invalid token')).toBeInTheDocument();
    expect(seen).toEqual([{ method: 'POST', path: '/api/destinations/splunk-lab/test', body: undefined }]);
  });

  it('says so when every check passed', async () => {
    fakeApi({
      'POST /api/destinations/splunk-lab/test': {
        body: { ...FAILED, ok: true, checks: [{ name: 'token', ok: true, message: 'accepted' }] },
      },
    });
    renderTest();
    await userEvent.click(screen.getByRole('button', { name: 'Test connection' }));
    expect(await screen.findByRole('heading', { name: /Connection works/ })).toHaveClass('state-ok');
  });

  it('shows an API error', async () => {
    fakeApi({
      'POST /api/destinations/splunk-lab/test': {
        status: 404,
        body: { ok: false, error: { code: 'not_found', message: 'destination "splunk-lab" not found' } },
      },
    });
    renderTest();
    await userEvent.click(screen.getByRole('button', { name: 'Test connection' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('destination "splunk-lab" not found');
  });
});
