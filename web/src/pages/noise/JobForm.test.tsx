import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderNoise, stubService } from './test-helpers.tsx';
import type { Job } from './types.ts';

const siems = [
  {
    name: 'qradar-lab',
    driver: 'syslog_tcp',
    payload_format: 'leef',
    index: null,
    enabled: true,
    can_wipe: false,
    closes_offenses: false,
    indexes: 'label',
  },
  {
    name: 'splunk-lab',
    driver: 'vendorA_hec',
    payload_format: 'leef',
    index: 'main',
    enabled: true,
    can_wipe: true,
    closes_offenses: false,
    indexes: 'native',
  },
];
const archives = [
  { storage_path: 'noise/proxy.zip', size: 2048, modified_at: '2030-01-01T00:00:00Z', used_by: [] },
  { storage_path: 'noise/dns.zip', size: 4096, modified_at: '2030-01-01T00:00:00Z', used_by: [] },
];

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('job form', () => {
  it('shows the field errors of a 400 next to their fields', async () => {
    const user = userEvent.setup();
    const seen = stubService((request) => {
      if (request.path === '/api/siems') return { status: 200, body: siems };
      if (request.path === '/api/noise/archives') return { status: 200, body: archives };
      if (request.method === 'POST' && request.path === '/api/noise/jobs') {
        return {
          status: 400,
          body: {
            ok: false,
            error: {
              code: 'invalid_input',
              message: 'Invalid noise job: schedule.interval_seconds must be a number between 1 and 31622400',
              details: {
                fields: {
                  'schedule.interval_seconds': 'must be a number between 1 and 31622400',
                  'archives.0.index': 'is required when index_mode is new',
                },
              },
            },
          },
        };
      }
      return undefined;
    });
    renderNoise('/noise/jobs/new');
    await user.type(screen.getByLabelText('Name'), 'proxy noise');
    await user.click(await screen.findByRole('checkbox', { name: /splunk-lab/ }));
    const interval = screen.getByLabelText('Interval (seconds)');
    await user.clear(interval);
    await user.type(interval, '0');
    await user.click(screen.getByRole('button', { name: 'Add archive' }));
    await screen.findByRole('option', { name: 'noise/proxy.zip' });
    await user.selectOptions(screen.getByLabelText('Archive 1'), 'noise/proxy.zip');
    await user.selectOptions(screen.getByLabelText('Index of archive 1'), 'new');
    await user.click(screen.getByRole('button', { name: 'Create job' }));

    const intervalInput = screen.getByLabelText('Interval (seconds)');
    await waitFor(() =>
      expect(intervalInput).toHaveAccessibleDescription('must be a number between 1 and 31622400'),
    );
    expect(intervalInput).toHaveAttribute('aria-invalid', 'true');
    expect(intervalInput).toHaveFocus();
    expect(screen.getByLabelText('Index name of archive 1')).toHaveAccessibleDescription(
      'is required when index_mode is new',
    );
    const post = seen.find((r) => r.method === 'POST');
    expect(post?.body).toEqual({
      name: 'proxy noise',
      enabled: true,
      targets: ['splunk-lab'],
      schedule: { kind: 'interval', interval_seconds: 0 },
      propagate_on_wipe: false,
      archives: [{ position: 0, storage_path: 'noise/proxy.zip', index_mode: 'new', index: '' }],
    });
  });

  it('previews the next five cron times as the expression is typed', async () => {
    const user = userEvent.setup();
    stubService((request) => {
      if (request.path === '/api/siems') return { status: 200, body: siems };
      if (request.path === '/api/noise/archives') return { status: 200, body: archives };
      return undefined;
    });
    renderNoise('/noise/jobs/new');
    await user.click(screen.getByLabelText('Cron expression (UTC)'));
    expect(screen.getByText(/enter a cron expression/i)).toBeInTheDocument();
    await user.type(screen.getByLabelText('Cron expression'), '0 */6 * * *');
    const list = screen.getByRole('list', { name: 'Next five run times' });
    const items = within(list).getAllByRole('listitem');
    expect(items).toHaveLength(5);
    for (const item of items) expect(item.textContent).toMatch(/^\d{4}-\d\d-\d\d (00|06|12|18):00:00 UTC$/);
    await user.type(screen.getByLabelText('Cron expression'), ' nonsense');
    expect(screen.getByText(/not a valid cron expression/i)).toBeInTheDocument();
  });

  it('warns before saving when a syslog_tcp target without index gets a default-index archive', async () => {
    const user = userEvent.setup();
    stubService((request) => {
      if (request.path === '/api/siems') return { status: 200, body: siems };
      if (request.path === '/api/noise/archives') return { status: 200, body: archives };
      return undefined;
    });
    renderNoise('/noise/jobs/new');
    await user.click(await screen.findByRole('checkbox', { name: /qradar-lab/ }));
    await user.click(screen.getByRole('button', { name: 'Add archive' }));
    await screen.findByRole('option', { name: 'noise/dns.zip' });
    await user.selectOptions(screen.getByLabelText('Archive 1'), 'noise/dns.zip');
    expect(screen.getByText(/syslog_tcp target "qradar-lab" has no index/)).toBeInTheDocument();
    await user.selectOptions(screen.getByLabelText('Index of archive 1'), 'existing');
    expect(screen.queryByText(/has no index/)).not.toBeInTheDocument();
  });

  it('edits a stored job with PATCH and shows the save warnings in the list', async () => {
    const user = userEvent.setup();
    const job: Job = {
      id: '0c9b8b1e-2222-4222-8222-222222222222',
      name: 'dns noise',
      enabled: true,
      targets: ['qradar-lab'],
      schedule: { kind: 'cron', cron: '0 3 * * *' },
      propagate_on_wipe: false,
      archives: [{ position: 0, storage_path: 'noise/dns.zip', index_mode: 'new', index: 'dns-noise' }],
      next_run_at: '2030-01-02T03:00:00.000Z',
      last_run_at: null,
      running: false,
      created_at: '2030-01-01T00:00:00.000Z',
      updated_at: '2030-01-01T00:00:00.000Z',
    };
    const warning = 'Index "dns-noise" must be created on the collector of syslog_tcp target "qradar-lab"';
    const seen = stubService((request) => {
      if (request.path === '/api/siems') return { status: 200, body: siems };
      if (request.path === '/api/noise/archives') return { status: 200, body: archives };
      if (request.path === `/api/noise/jobs/${job.id}` && request.method === 'GET')
        return { status: 200, body: job };
      if (request.path === `/api/noise/jobs/${job.id}` && request.method === 'PATCH') {
        return { status: 200, body: { ...job, enabled: false, warnings: [warning] } };
      }
      if (request.path === '/api/noise/jobs') return { status: 200, body: [job] };
      return undefined;
    });
    renderNoise(`/noise/jobs/${job.id}`);
    const enabled = await screen.findByRole('checkbox', { name: /^Enabled/ });
    expect(screen.getByLabelText('Cron expression')).toHaveValue('0 3 * * *');
    await user.click(enabled);
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    expect(await screen.findByText(warning)).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Jobs' })).toHaveFocus();
    expect(seen.find((r) => r.method === 'PATCH')?.body).toMatchObject({
      enabled: false,
      schedule: { kind: 'cron', cron: '0 3 * * *' },
      archives: [{ position: 0, storage_path: 'noise/dns.zip', index_mode: 'new', index: 'dns-noise' }],
    });
  });

  it('lists the targets from GET /api/siems and never asks for the destinations', async () => {
    const seen = stubService((request) => {
      if (request.path === '/api/siems') return { status: 200, body: siems };
      if (request.path === '/api/noise/archives') return { status: 200, body: archives };
      return undefined;
    });
    renderNoise('/noise/jobs/new');
    expect(
      await screen.findByRole('checkbox', { name: /qradar-lab \(syslog_tcp, no index\)/ }),
    ).toBeInTheDocument();
    expect(
      screen.getByRole('checkbox', { name: /splunk-lab \(vendorA_hec, index main\)/ }),
    ).toBeInTheDocument();
    expect(screen.queryByLabelText(/Target names/)).not.toBeInTheDocument();
    expect(seen.some((r) => r.path === '/api/destinations')).toBe(false);
  });

  it('shows why the SIEM list could not be read', async () => {
    stubService((request) => {
      if (request.path === '/api/siems') {
        return {
          status: 403,
          body: {
            ok: false,
            error: { code: 'forbidden', message: 'Listing SIEMs needs one of manage_noise_logs' },
          },
        };
      }
      if (request.path === '/api/noise/archives') return { status: 200, body: archives };
      return undefined;
    });
    renderNoise('/noise/jobs/new');
    expect(await screen.findByText(/Listing SIEMs needs one of manage_noise_logs/)).toBeInTheDocument();
    expect(screen.queryByRole('textbox', { name: /Target names/ })).not.toBeInTheDocument();
  });
});
