import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderNoise, stubService } from './test-helpers.tsx';
import type { Job, Run } from './types.ts';

const JOB_ID = '5f0c2b8e-3333-4333-8333-333333333333';
const job: Job = {
  id: JOB_ID,
  name: 'proxy noise',
  enabled: true,
  targets: ['splunk-lab', 'elastic-lab'],
  schedule: { kind: 'interval', interval_seconds: 300 },
  propagate_on_wipe: false,
  archives: [{ position: 0, storage_path: 'noise/proxy.zip', index_mode: 'default', index: null }],
  next_run_at: null,
  last_run_at: null,
  running: false,
  created_at: '2030-01-01T00:00:00.000Z',
  updated_at: '2030-01-01T00:00:00.000Z',
};

function run(id: string, siem: string, status: Run['status'], extra: Partial<Run> = {}): Run {
  return {
    id,
    job_id: JOB_ID,
    siem,
    trigger: 'schedule',
    status,
    events_shipped: 0,
    events_failed: 0,
    error: null,
    created_at: '2030-01-01T10:00:00.000Z',
    started_at: null,
    finished_at: null,
    ...extra,
  };
}

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('runs', () => {
  it('lists the statuses and counts of a job’s runs', async () => {
    const seen = stubService((r) => {
      if (r.path === '/api/noise/jobs') return { status: 200, body: [job] };
      if (r.path === '/api/noise/runs') {
        return {
          status: 200,
          body: [
            run('r1', 'splunk-lab', 'succeeded', {
              events_shipped: 1200,
              finished_at: '2030-01-01T10:01:00.000Z',
            }),
            run('r2', 'elastic-lab', 'partial', {
              events_shipped: 10,
              events_failed: 2,
              error: 'SIEM "elastic-lab" bulk: 2 refused',
            }),
            run('r3', 'elastic-lab', 'skipped', {
              error: 'skipped: a run of this job was already in progress',
            }),
          ],
        };
      }
      return undefined;
    });
    renderNoise(`/noise/runs?job_id=${JOB_ID}`);
    const table = await screen.findByRole('table', { name: 'Run history' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell')[3]?.textContent)).toEqual([
      'succeeded',
      'partial',
      'skipped',
    ]);
    expect(
      within(rows[1] as HTMLElement).getByText('SIEM "elastic-lab" bulk: 2 refused'),
    ).toBeInTheDocument();
    expect(
      screen.getByText(/3 run\(s\) — 1 succeeded, 1 partial, 1 skipped; 1210 events shipped, 2 failed\./),
    ).toBeInTheDocument();
    expect(seen.find((r) => r.path === '/api/noise/runs')?.search).toBe(`?job_id=${JOB_ID}`);
  });

  it('runs now, shows the new rows and follows them every 2 s until they finish', async () => {
    const user = userEvent.setup();
    let phase: 'before' | 'pending' | 'done' = 'before';
    const rowsFor = () => {
      if (phase === 'before') return [];
      const status = phase === 'pending' ? 'running' : 'succeeded';
      return [
        run('n1', 'splunk-lab', status, { trigger: 'manual', events_shipped: phase === 'done' ? 50 : 0 }),
        run('n2', 'elastic-lab', phase === 'pending' ? 'pending' : 'failed', {
          trigger: 'manual',
          error: phase === 'done' ? 'SIEM "elastic-lab" bulk: connection refused' : null,
        }),
      ];
    };
    const seen = stubService((r) => {
      if (r.path === '/api/noise/jobs') return { status: 200, body: [job] };
      if (r.path === '/api/noise/runs') return { status: 200, body: rowsFor() };
      if (r.method === 'POST' && r.path === `/api/noise/jobs/${JOB_ID}/runs`) {
        phase = 'pending';
        return {
          status: 201,
          body: { run_ids: { 'splunk-lab': 'n1', 'elastic-lab': 'n2' }, dispatched: true },
        };
      }
      return undefined;
    });
    renderNoise(`/noise/runs?job_id=${JOB_ID}`);
    expect(await screen.findByText(/no run yet/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Run now' }));
    expect(seen.find((r) => r.method === 'POST')?.body).toEqual({ dispatch: true });
    expect(await screen.findByText(/Started 2 run\(s\): splunk-lab, elastic-lab/)).toBeInTheDocument();
    expect(await screen.findByText('running')).toBeInTheDocument();
    expect(screen.getByText('pending')).toBeInTheDocument();
    expect(screen.getAllByText('new')).toHaveLength(2);
    expect(screen.getByText(/Updating every 2 s/)).toBeInTheDocument();

    phase = 'done';
    const before = seen.filter((r) => r.path === '/api/noise/runs').length;
    expect(await screen.findByText('succeeded', {}, { timeout: 4000 })).toBeInTheDocument();
    expect(screen.getByText('failed')).toBeInTheDocument();
    expect(seen.filter((r) => r.path === '/api/noise/runs').length).toBeGreaterThan(before);
    expect(screen.queryByText(/Updating every 2 s/)).not.toBeInTheDocument();
  });

  it('shows a refused run (job already running)', async () => {
    const user = userEvent.setup();
    stubService((r) => {
      if (r.path === '/api/noise/jobs') return { status: 200, body: [job] };
      if (r.path === '/api/noise/runs') return { status: 200, body: [] };
      if (r.method === 'POST') {
        return {
          status: 409,
          body: {
            ok: false,
            error: { code: 'job_running', message: 'Noise job "proxy noise" is already running' },
          },
        };
      }
      return undefined;
    });
    renderNoise(`/noise/runs?job_id=${JOB_ID}`);
    await user.click(await screen.findByRole('button', { name: 'Run now' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('is already running (job_running)');
  });

  it('fetches the list again after a refused run, which records skipped rows', async () => {
    const user = userEvent.setup();
    let rows: Run[] = [];
    const seen = stubService((r) => {
      if (r.path === '/api/noise/jobs') return { status: 200, body: [job] };
      if (r.path === '/api/noise/runs') return { status: 200, body: rows };
      if (r.method === 'POST') {
        rows = [run('s1', 'splunk-lab', 'skipped', { trigger: 'manual', error: 'skipped: already running' })];
        return {
          status: 409,
          body: {
            ok: false,
            error: { code: 'job_running', message: 'Noise job "proxy noise" is already running' },
          },
        };
      }
      return undefined;
    });
    renderNoise(`/noise/runs?job_id=${JOB_ID}`);
    await user.click(await screen.findByRole('button', { name: 'Run now' }));
    expect(await screen.findByText('skipped')).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('is already running');
    expect(seen.filter((r) => r.path === '/api/noise/runs')).toHaveLength(2);
  });

  it('checks every 15 s for runs started elsewhere while none is live', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let rows: Run[] = [];
    const seen = stubService((r) => {
      if (r.path === '/api/noise/jobs') return { status: 200, body: [job] };
      if (r.path === '/api/noise/runs') return { status: 200, body: rows };
      return undefined;
    });
    renderNoise(`/noise/runs?job_id=${JOB_ID}`);
    expect(await screen.findByText(/no run yet\. Checked for new runs every 15 s\./)).toBeInTheDocument();
    rows = [run('c1', 'splunk-lab', 'running')];
    await act(() => vi.advanceTimersByTimeAsync(10_000));
    expect(seen.filter((r) => r.path === '/api/noise/runs')).toHaveLength(1);
    await act(() => vi.advanceTimersByTimeAsync(5_000));
    expect(await screen.findByText('running')).toBeInTheDocument();
    expect(seen.filter((r) => r.path === '/api/noise/runs')).toHaveLength(2);
  });
});
