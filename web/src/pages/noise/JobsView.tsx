import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { api, call } from '../../api/client.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { formatUtc } from './cron-preview.ts';
import { JobForm, type SavedJob } from './JobForm.tsx';
import { NOISE_BASE } from './paths.ts';
import type { Job } from './types.ts';
import { useConfirmStep } from './useConfirmStep.ts';

/** Every noise job. */
export function useJobs() {
  return useQuery({ queryKey: ['noise', 'jobs'], queryFn: () => call(api.GET('/api/noise/jobs')) });
}

/** A schedule in a few words. */
export function describeSchedule(schedule: Job['schedule']): string {
  const jitter = schedule.jitter_seconds ? ` (+ up to ${schedule.jitter_seconds} s jitter)` : '';
  if (schedule.kind === 'cron') return `cron ${schedule.cron ?? ''} UTC${jitter}`;
  return `every ${schedule.interval_seconds ?? '?'} s after a run${jitter}`;
}

function when(value: string | null): string {
  return value ? formatUtc(new Date(value)) : '—';
}

/** What a save leaves for the list to say (router state). */
interface SavedNotice {
  saved: string;
  warnings: string[];
}

function isSavedNotice(state: unknown): state is SavedNotice {
  return typeof state === 'object' && state !== null && typeof (state as SavedNotice).saved === 'string';
}

/** The job list, with what the last save said. */
export function JobsView() {
  const jobs = useJobs();
  const location = useLocation();
  const notice = isSavedNotice(location.state) ? location.state : null;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (notice) heading.current?.focus();
  }, [notice]);
  return (
    <section aria-labelledby="noise-jobs-title">
      <h2 id="noise-jobs-title" ref={heading} tabIndex={-1}>
        Jobs
      </h2>
      {notice ? (
        <div role="status" className={notice.warnings.length > 0 ? 'noise-warning' : 'noise-saved'}>
          <p>Job {notice.saved} saved.</p>
          {notice.warnings.length > 0 ? (
            <ul>
              {notice.warnings.map((w) => (
                <li key={w}>{w}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      <div className="toolbar">
        <Link to={`${NOISE_BASE}/jobs/new`} className="noise-button-link">
          New job
        </Link>
      </div>
      {jobs.isPending ? <p className="loading">Loading jobs…</p> : null}
      <ErrorNotice error={jobs.error} />
      {jobs.data && jobs.data.length === 0 ? <p className="muted">No noise job yet.</p> : null}
      {jobs.data && jobs.data.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Enabled</th>
              <th scope="col">Targets</th>
              <th scope="col">Schedule</th>
              <th scope="col">Next run</th>
              <th scope="col">Last run</th>
              <th scope="col">
                <span className="noise-sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {jobs.data.map((job) => (
              <tr key={job.id}>
                <td>
                  <Link to={`${NOISE_BASE}/jobs/${job.id}`}>{job.name}</Link>
                  {job.running ? <span className="state-running"> running</span> : null}
                </td>
                <td>{job.enabled ? 'yes' : 'no'}</td>
                <td>{job.targets.join(', ')}</td>
                <td>{describeSchedule(job.schedule)}</td>
                <td>{when(job.next_run_at)}</td>
                <td>{when(job.last_run_at)}</td>
                <td>
                  <Link
                    to={`${NOISE_BASE}/runs?job_id=${encodeURIComponent(job.id)}`}
                    aria-label={`Runs of ${job.name}`}
                  >
                    Runs
                  </Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

function DeleteJob({ job }: { job: Job }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => call(api.DELETE('/api/noise/jobs/{id}', { params: { path: { id: job.id } } })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['noise'] });
      void navigate(`${NOISE_BASE}/jobs`);
    },
  });
  const step = useConfirmStep(remove.error);
  return (
    <div className="noise-delete">
      <h3>Delete this job</h3>
      <p className="muted">Removes the job and its run history.</p>
      {step.confirming ? (
        <div className="toolbar">
          <button
            ref={step.confirmRef}
            type="button"
            className="danger"
            onClick={() => remove.mutate()}
            disabled={remove.isPending}
          >
            Confirm delete of {job.name}
          </button>
          <button
            type="button"
            className="secondary"
            disabled={remove.isPending}
            onClick={() => {
              step.close();
              remove.reset();
            }}
          >
            Keep
          </button>
        </div>
      ) : (
        <button ref={step.triggerRef} type="button" className="secondary" onClick={step.open}>
          Delete job
        </button>
      )}
      <ErrorNotice error={remove.error} />
    </div>
  );
}

/** The job form for a new job (`jobs/new`) or a stored one (`jobs/:id`). */
export function JobEditor() {
  const { id } = useParams();
  const navigate = useNavigate();
  const isNew = id === undefined;
  const job = useQuery({
    queryKey: ['noise', 'jobs', id],
    queryFn: () => call(api.GET('/api/noise/jobs/{id}', { params: { path: { id: id ?? '' } } })),
    enabled: !isNew,
  });
  const onSaved = (saved: SavedJob) => {
    void navigate(`${NOISE_BASE}/jobs`, {
      state: { saved: saved.name, warnings: saved.warnings } satisfies SavedNotice,
    });
  };
  return (
    <section aria-label={isNew ? 'New job' : 'Edit job'}>
      <p>
        <Link to={`${NOISE_BASE}/jobs`}>Back to jobs</Link>
      </p>
      {isNew ? <JobForm onSaved={onSaved} /> : null}
      {!isNew && job.isPending ? <p className="loading">Loading the job…</p> : null}
      {!isNew ? <ErrorNotice error={job.error} /> : null}
      {!isNew && job.data ? (
        <>
          <JobForm key={job.data.id} job={job.data} onSaved={onSaved} />
          <DeleteJob job={job.data} />
        </>
      ) : null}
    </section>
  );
}
