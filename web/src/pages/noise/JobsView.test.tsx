import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderNoise, stubService } from './test-helpers.tsx';
import type { Job } from './types.ts';

const job: Job = {
  id: '0c9b8b1e-3333-4333-8333-333333333333',
  name: 'dns noise',
  enabled: true,
  targets: ['splunk-lab'],
  schedule: { kind: 'interval', interval_seconds: 600 },
  propagate_on_wipe: false,
  archives: [{ position: 0, storage_path: 'noise/dns.zip', index_mode: 'default', index: null }],
  next_run_at: null,
  last_run_at: null,
  running: false,
  created_at: '2030-01-01T00:00:00.000Z',
  updated_at: '2030-01-01T00:00:00.000Z',
};

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('job deletion', () => {
  it('moves focus into the confirm step and back to its trigger, and keeps it open on failure', async () => {
    const user = userEvent.setup();
    const seen = stubService((request) => {
      if (request.path === '/api/siems') return { status: 200, body: [] };
      if (request.path === '/api/noise/archives') return { status: 200, body: [] };
      if (request.path === `/api/noise/jobs/${job.id}` && request.method === 'GET')
        return { status: 200, body: job };
      if (request.path === `/api/noise/jobs/${job.id}` && request.method === 'DELETE') {
        return {
          status: 409,
          body: { ok: false, error: { code: 'job_running', message: 'Job "dns noise" is running' } },
        };
      }
      return undefined;
    });
    renderNoise(`/noise/jobs/${job.id}`);
    await user.click(await screen.findByRole('button', { name: 'Delete job' }));
    expect(screen.getByRole('button', { name: 'Confirm delete of dns noise' })).toHaveFocus();
    await user.click(screen.getByRole('button', { name: 'Keep' }));
    expect(screen.getByRole('button', { name: 'Delete job' })).toHaveFocus();
    expect(seen.filter((r) => r.method === 'DELETE')).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Delete job' }));
    await user.click(screen.getByRole('button', { name: 'Confirm delete of dns noise' }));
    expect(await screen.findByText(/is running/)).toBeInTheDocument();
    await waitFor(() =>
      expect(screen.getByRole('button', { name: 'Confirm delete of dns noise' })).toHaveFocus(),
    );
    expect(seen.filter((r) => r.method === 'DELETE')).toHaveLength(1);
  });
});
