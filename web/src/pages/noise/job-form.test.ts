import { describe, expect, it } from 'vitest';
import { bodyFromForm, emptyJobForm, formFromJob, type JobFormValues } from './job-form.ts';
import type { Job } from './types.ts';

const job: Job = {
  id: '7d1f3c3e-1111-4111-8111-111111111111',
  name: 'web proxy noise',
  enabled: true,
  targets: ['splunk-lab', 'qradar-lab'],
  schedule: { kind: 'interval', interval_seconds: 300, jitter_seconds: 60 },
  propagate_on_wipe: true,
  archives: [
    { position: 4, storage_path: 'noise/dns.zip', index_mode: 'new', index: 'dns-noise' },
    { position: 1, storage_path: 'noise/proxy.zip', index_mode: 'default', index: null },
  ],
  next_run_at: null,
  last_run_at: null,
  running: false,
  created_at: '2030-01-01T00:00:00.000Z',
  updated_at: '2030-01-01T00:00:00.000Z',
};

describe('job form values', () => {
  it('start as an enabled hourly interval job', () => {
    const values = emptyJobForm();
    expect(values.enabled).toBe(true);
    expect(values.scheduleKind).toBe('interval');
    expect(values.intervalSeconds).toBe('3600');
  });

  it('come from a stored job with archives in position order', () => {
    const values = formFromJob(job);
    expect(values).toEqual({
      name: 'web proxy noise',
      enabled: true,
      targets: ['splunk-lab', 'qradar-lab'],
      scheduleKind: 'interval',
      intervalSeconds: '300',
      cron: '',
      jitterSeconds: '60',
      propagateOnWipe: true,
      archives: [
        { storage_path: 'noise/proxy.zip', index_mode: 'default', index: '' },
        { storage_path: 'noise/dns.zip', index_mode: 'new', index: 'dns-noise' },
      ],
    } satisfies JobFormValues);
  });

  it('turn back into the request body, positions renumbered from 0', () => {
    expect(bodyFromForm(formFromJob(job)).body).toEqual({
      name: 'web proxy noise',
      enabled: true,
      targets: ['splunk-lab', 'qradar-lab'],
      schedule: { kind: 'interval', interval_seconds: 300, jitter_seconds: 60 },
      propagate_on_wipe: true,
      archives: [
        { position: 0, storage_path: 'noise/proxy.zip', index_mode: 'default', index: null },
        { position: 1, storage_path: 'noise/dns.zip', index_mode: 'new', index: 'dns-noise' },
      ],
    });
  });

  it('send only the fields of the chosen schedule kind', () => {
    const values: JobFormValues = {
      ...emptyJobForm(),
      name: ' nightly ',
      scheduleKind: 'cron',
      cron: ' 0 3 * * * ',
      intervalSeconds: '60',
    };
    const body = bodyFromForm(values).body;
    expect(body?.name).toBe('nightly');
    expect(body?.schedule).toEqual({ kind: 'cron', cron: '0 3 * * *' });
  });

  it('leave a missing interval to the service (null) and drop an empty jitter', () => {
    const body = bodyFromForm({ ...emptyJobForm(), intervalSeconds: '' }).body;
    expect(body?.schedule).toEqual({ kind: 'interval', interval_seconds: null });
  });

  it('drop the index of a default-index archive even when one was typed', () => {
    const values: JobFormValues = {
      ...emptyJobForm(),
      archives: [{ storage_path: 'a.zip', index_mode: 'default', index: 'left-over' }],
    };
    expect(bodyFromForm(values).body?.archives).toEqual([
      { position: 0, storage_path: 'a.zip', index_mode: 'default', index: null },
    ]);
  });

  it('name the fields whose numbers do not parse, with the service field paths', () => {
    const result = bodyFromForm({ ...emptyJobForm(), intervalSeconds: 'ten', jitterSeconds: '5s' });
    expect(result.problems).toEqual({
      'schedule.interval_seconds': 'must be a number',
      'schedule.jitter_seconds': 'must be a number',
    });
  });
});
