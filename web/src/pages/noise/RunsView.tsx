import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { api, call } from '../../api/client.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { formatUtc } from './cron-preview.ts';
import { useJobs } from './JobsView.tsx';
import { anyLive, countByStatus } from './run-status.ts';

/** Milliseconds between two fetches of the run list while a run is pending or running. */
export const LIVE_REFETCH_MS = 2000;
/** Milliseconds between two fetches otherwise, so runs started elsewhere (scheduler, wipe re-run) appear. */
export const IDLE_REFETCH_MS = 15_000;

function when(value: string | null): string {
  return value ? formatUtc(new Date(value)) : '—';
}

/** The run history of one job, live while a run goes on, and "Run now". */
export function RunsView() {
  const id = useId();
  const [params, setParams] = useSearchParams();
  const jobId = params.get('job_id') ?? '';
  const jobs = useJobs();
  const queryClient = useQueryClient();
  const [started, setStarted] = useState<ReadonlySet<string>>(new Set());
  const resultRef = useRef<HTMLDivElement>(null);

  const runs = useQuery({
    queryKey: ['noise', 'runs', jobId],
    queryFn: () => call(api.GET('/api/noise/runs', { params: { query: { job_id: jobId } } })),
    enabled: jobId !== '',
    refetchInterval: (query) => (anyLive(query.state.data) ? LIVE_REFETCH_MS : IDLE_REFETCH_MS),
  });

  const runNow = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/noise/jobs/{id}/runs', { params: { path: { id: jobId } }, body: { dispatch: true } }),
      ),
    onSuccess: (answer) => setStarted(new Set(Object.values(answer.run_ids))),
    // A refusal adds rows too (a 409 job_running records skipped runs): the list is fetched either way.
    onSettled: async () => {
      await queryClient.invalidateQueries({ queryKey: ['noise', 'runs', jobId] });
      resultRef.current?.focus();
    },
  });

  const job = jobs.data?.find((j) => j.id === jobId);
  const counts = countByStatus(runs.data ?? []);
  const totals = (runs.data ?? []).reduce(
    (sum, run) => ({ shipped: sum.shipped + run.events_shipped, failed: sum.failed + run.events_failed }),
    { shipped: 0, failed: 0 },
  );
  return (
    <section aria-labelledby="noise-runs-title">
      <h2 id="noise-runs-title">Runs</h2>
      <div className="toolbar">
        <div>
          <label htmlFor={`${id}-job`}>Job</label>
          <select
            id={`${id}-job`}
            value={jobId}
            onChange={(event) => {
              setStarted(new Set());
              runNow.reset();
              setParams(event.target.value ? { job_id: event.target.value } : {});
            }}
          >
            <option value="">Choose a job…</option>
            {(jobs.data ?? []).map((j) => (
              <option key={j.id} value={j.id}>
                {j.name}
              </option>
            ))}
          </select>
        </div>
        {jobId ? (
          <button
            type="button"
            className="noise-run-now"
            onClick={() => runNow.mutate()}
            disabled={runNow.isPending}
          >
            {runNow.isPending ? 'Starting…' : 'Run now'}
          </button>
        ) : null}
      </div>
      <ErrorNotice error={jobs.error} />
      <div ref={resultRef} tabIndex={-1}>
        <ErrorNotice error={runNow.error} />
        {runNow.isSuccess ? (
          <p role="status">
            Started {Object.keys(runNow.data.run_ids).length} run(s):{' '}
            {Object.keys(runNow.data.run_ids).join(', ')}. New rows are marked below.
          </p>
        ) : null}
      </div>
      {jobId === '' ? <p className="muted">Choose a job to see its runs.</p> : null}
      {jobId !== '' && runs.isPending ? <p className="loading">Loading runs…</p> : null}
      <ErrorNotice error={runs.error} />
      {runs.data ? (
        <>
          <p className="noise-run-summary" aria-live="polite">
            {job ? `${job.name}: ` : ''}
            {runs.data.length === 0
              ? 'no run yet.'
              : `${runs.data.length} run(s) — ${counts.map((c) => `${c.count} ${c.status}`).join(', ')}; ` +
                `${totals.shipped} events shipped, ${totals.failed} failed.`}
            {anyLive(runs.data)
              ? ' Updating every 2 s while runs are going.'
              : ' Checked for new runs every 15 s.'}
          </p>
          {runs.data.length > 0 ? (
            <table aria-label="Run history">
              <thead>
                <tr>
                  <th scope="col">Created</th>
                  <th scope="col">SIEM</th>
                  <th scope="col">Trigger</th>
                  <th scope="col">Status</th>
                  <th scope="col">Shipped</th>
                  <th scope="col">Failed</th>
                  <th scope="col">Started</th>
                  <th scope="col">Finished</th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                {runs.data.map((run) => (
                  <tr key={run.id} className={started.has(run.id) ? 'noise-new-run' : undefined}>
                    <td>
                      {when(run.created_at)}
                      {started.has(run.id) ? <span className="noise-new-badge"> new</span> : null}
                    </td>
                    <td>{run.siem}</td>
                    <td>{run.trigger}</td>
                    <td>
                      <span className={`state-${run.status}`}>{run.status}</span>
                    </td>
                    <td>{run.events_shipped}</td>
                    <td>{run.events_failed}</td>
                    <td>{when(run.started_at)}</td>
                    <td>{when(run.finished_at)}</td>
                    <td>{run.error ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
