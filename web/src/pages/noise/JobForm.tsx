import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { ApiError, api, call } from '../../api/client.ts';
import { ErrorNotice, FieldError } from '../../components/ErrorNotice.tsx';
import { useArchives } from './ArchivesView.tsx';
import { CronPreview } from './CronPreview.tsx';
import {
  type ArchiveFormRow,
  bodyFromForm,
  emptyArchiveRow,
  emptyJobForm,
  formFromJob,
  type JobFormValues,
} from './job-form.ts';
import { syslogIndexWarnings } from './syslog-warning.ts';
import { INDEX_MODES, type IndexMode, type Job } from './types.ts';

/** A job as a save answers it: the job plus the indexes it could not create. */
export type SavedJob = Job & { warnings: string[] };

/** The SIEMs a job may target (GET /api/siems: names, kinds and default indexes, no settings). */
export function useSiems() {
  return useQuery({
    queryKey: ['siems'],
    queryFn: () => call(api.GET('/api/siems')),
  });
}

const INDEX_MODE_LABELS: Record<IndexMode, string> = {
  default: 'Default index of each target',
  existing: 'Existing index',
  new: 'New index (created on save)',
};

function move<T>(list: readonly T[], from: number, to: number): T[] {
  const copy = [...list];
  const [item] = copy.splice(from, 1);
  if (item !== undefined) copy.splice(to, 0, item);
  return copy;
}

/** Create or edit a noise job. */
export function JobForm({ job, onSaved }: { job?: Job; onSaved: (saved: SavedJob) => void }) {
  const id = useId();
  const queryClient = useQueryClient();
  const [values, setValues] = useState<JobFormValues>(() => (job ? formFromJob(job) : emptyJobForm()));
  const [localError, setLocalError] = useState<ApiError | null>(null);
  const [now] = useState(() => new Date());
  const formRef = useRef<HTMLFormElement>(null);
  const noticeRef = useRef<HTMLDivElement>(null);
  const archives = useArchives();
  const siems = useSiems();

  const save = useMutation({
    mutationFn: async (body: NonNullable<ReturnType<typeof bodyFromForm>['body']>): Promise<SavedJob> =>
      job
        ? call(api.PATCH('/api/noise/jobs/{id}', { params: { path: { id: job.id } }, body }))
        : call(api.POST('/api/noise/jobs', { body })),
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: ['noise'] });
      onSaved(saved);
    },
  });

  const error: unknown = localError ?? save.error;
  const fields = error instanceof ApiError ? error.fields : {};
  const invalid = (key: string) => (fields[key] ? true : undefined);
  const describedBy = (key: string, ...more: string[]) =>
    [...more, ...(fields[key] ? [`${id}-${key}-error`] : [])].join(' ') || undefined;

  // After a refused save, focus the first field the error names, or else the error itself.
  useEffect(() => {
    if (!error) return;
    const first = formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]');
    if (first) first.focus();
    else noticeRef.current?.focus();
  }, [error]);

  const set = <K extends keyof JobFormValues>(key: K, value: JobFormValues[K]) =>
    setValues((current) => ({ ...current, [key]: value }));
  const setArchive = (index: number, change: Partial<ArchiveFormRow>) =>
    setValues((current) => ({
      ...current,
      archives: current.archives.map((row, i) => (i === index ? { ...row, ...change } : row)),
    }));

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    save.reset();
    const built = bodyFromForm(values);
    if (built.problems) {
      setLocalError(
        new ApiError(400, 'invalid_input', 'Some fields need a correction', { fields: built.problems }),
      );
      return;
    }
    setLocalError(null);
    save.mutate(built.body);
  };

  const siemList = siems.data ?? [];
  const warnings = syslogIndexWarnings(values.targets, siemList, values.archives);
  const archiveChoices = (archives.data ?? []).map((a) => a.storage_path);
  const targetError = (name: string) => {
    const i = values.targets.indexOf(name);
    return i >= 0 ? `targets.${i}` : '';
  };

  return (
    <form
      ref={formRef}
      onSubmit={onSubmit}
      noValidate
      aria-labelledby={`${id}-title`}
      className="noise-job-form"
    >
      <h2 id={`${id}-title`} tabIndex={-1}>
        {job ? `Edit job ${job.name}` : 'New noise job'}
      </h2>
      <div ref={noticeRef} tabIndex={-1}>
        <ErrorNotice error={error} />
      </div>

      <label htmlFor={`${id}-name`}>Name</label>
      <input
        id={`${id}-name`}
        type="text"
        value={values.name}
        maxLength={120}
        aria-invalid={invalid('name')}
        aria-describedby={describedBy('name')}
        onChange={(event) => set('name', event.target.value)}
      />
      <FieldError error={error} field="name" id={`${id}-name-error`} />

      <div className="noise-checkbox">
        <input
          id={`${id}-enabled`}
          type="checkbox"
          checked={values.enabled}
          onChange={(event) => set('enabled', event.target.checked)}
        />
        <label htmlFor={`${id}-enabled`}>Enabled (scheduled; a disabled job can still be run by hand)</label>
      </div>
      <div className="noise-checkbox">
        <input
          id={`${id}-propagate`}
          type="checkbox"
          checked={values.propagateOnWipe}
          onChange={(event) => set('propagateOnWipe', event.target.checked)}
        />
        <label htmlFor={`${id}-propagate`}>
          Run again after a wipe of a SIEM it targets (propagate on wipe)
        </label>
      </div>

      <fieldset aria-describedby={describedBy('targets')}>
        <legend>Targets</legend>
        {siems.isPending ? <p className="loading">Loading destinations…</p> : null}
        {siems.isSuccess && siemList.length === 0 ? (
          <p className="muted">No SIEM destination exists yet.</p>
        ) : null}
        {siemList.map((siem, i) => {
          const key = targetError(siem.name);
          return (
            <div key={siem.name} className="noise-checkbox">
              <input
                id={`${id}-target-${i}`}
                type="checkbox"
                checked={values.targets.includes(siem.name)}
                aria-invalid={key ? invalid(key) : undefined}
                aria-describedby={key ? describedBy(key) : undefined}
                onChange={(event) =>
                  set(
                    'targets',
                    event.target.checked
                      ? [...values.targets, siem.name]
                      : values.targets.filter((t) => t !== siem.name),
                  )
                }
              />
              <label htmlFor={`${id}-target-${i}`}>
                {siem.name}{' '}
                <span className="muted">
                  ({siem.driver}, {siem.index ? `index ${siem.index}` : 'no index'}
                  {siem.enabled ? '' : ', disabled'})
                </span>
              </label>
              {key ? <FieldError error={error} field={key} id={`${id}-${key}-error`} /> : null}
            </div>
          );
        })}
        {siems.isError ? <ErrorNotice error={siems.error} /> : null}
        <FieldError error={error} field="targets" id={`${id}-targets-error`} />
      </fieldset>

      <fieldset>
        <legend>Schedule</legend>
        <div className="noise-radios" role="radiogroup" aria-label="Schedule kind">
          <div className="noise-checkbox">
            <input
              id={`${id}-kind-interval`}
              type="radio"
              name={`${id}-kind`}
              checked={values.scheduleKind === 'interval'}
              onChange={() => set('scheduleKind', 'interval')}
            />
            <label htmlFor={`${id}-kind-interval`}>
              Interval (seconds between the end of a run and the next)
            </label>
          </div>
          <div className="noise-checkbox">
            <input
              id={`${id}-kind-cron`}
              type="radio"
              name={`${id}-kind`}
              checked={values.scheduleKind === 'cron'}
              onChange={() => set('scheduleKind', 'cron')}
            />
            <label htmlFor={`${id}-kind-cron`}>Cron expression (UTC)</label>
          </div>
        </div>
        <FieldError error={error} field="schedule.kind" id={`${id}-schedule.kind-error`} />
        {values.scheduleKind === 'interval' ? (
          <>
            <label htmlFor={`${id}-interval`}>Interval (seconds)</label>
            <input
              id={`${id}-interval`}
              type="text"
              inputMode="decimal"
              value={values.intervalSeconds}
              aria-invalid={invalid('schedule.interval_seconds')}
              aria-describedby={describedBy('schedule.interval_seconds')}
              onChange={(event) => set('intervalSeconds', event.target.value)}
            />
            <FieldError
              error={error}
              field="schedule.interval_seconds"
              id={`${id}-schedule.interval_seconds-error`}
            />
          </>
        ) : (
          <>
            <label htmlFor={`${id}-cron`}>Cron expression</label>
            <input
              id={`${id}-cron`}
              type="text"
              value={values.cron}
              placeholder="*/30 * * * *"
              maxLength={200}
              aria-invalid={invalid('schedule.cron')}
              aria-describedby={describedBy('schedule.cron', `${id}-cron-preview`)}
              onChange={(event) => set('cron', event.target.value)}
            />
            <FieldError error={error} field="schedule.cron" id={`${id}-schedule.cron-error`} />
            <CronPreview expression={values.cron} id={`${id}-cron-preview`} now={now} />
          </>
        )}
        <label htmlFor={`${id}-jitter`}>Jitter (seconds, optional)</label>
        <input
          id={`${id}-jitter`}
          type="text"
          inputMode="decimal"
          value={values.jitterSeconds}
          aria-invalid={invalid('schedule.jitter_seconds')}
          aria-describedby={describedBy('schedule.jitter_seconds', `${id}-jitter-hint`)}
          onChange={(event) => set('jitterSeconds', event.target.value)}
        />
        <span className="muted noise-hint" id={`${id}-jitter-hint`}>
          A random 0 … jitter seconds is added to every next run.
        </span>
        <FieldError
          error={error}
          field="schedule.jitter_seconds"
          id={`${id}-schedule.jitter_seconds-error`}
        />
      </fieldset>

      <fieldset>
        <legend>Archives (shipped in this order)</legend>
        <FieldError error={error} field="archives" id={`${id}-archives-error`} />
        {values.archives.length === 0 ? <p className="muted">No archive yet.</p> : null}
        <ol className="noise-archive-rows">
          {values.archives.map((row, i) => {
            const at = `archives.${i}`;
            const choices =
              archiveChoices.includes(row.storage_path) || row.storage_path === ''
                ? archiveChoices
                : [row.storage_path, ...archiveChoices];
            return (
              // Rows are identified by their place: the list is the order of dispatch.
              // biome-ignore lint/suspicious/noArrayIndexKey: position is the row's identity here.
              <li key={i} className="noise-archive-row">
                <div>
                  <label htmlFor={`${id}-${at}-path`}>Archive {i + 1}</label>
                  <select
                    id={`${id}-${at}-path`}
                    value={row.storage_path}
                    aria-invalid={invalid(`${at}.storage_path`)}
                    aria-describedby={describedBy(`${at}.storage_path`)}
                    onChange={(event) => setArchive(i, { storage_path: event.target.value })}
                  >
                    <option value="">Choose an archive…</option>
                    {choices.map((path) => (
                      <option key={path} value={path}>
                        {path}
                      </option>
                    ))}
                  </select>
                  <FieldError
                    error={error}
                    field={`${at}.storage_path`}
                    id={`${id}-${at}.storage_path-error`}
                  />
                  <FieldError error={error} field={`${at}.position`} id={`${id}-${at}.position-error`} />
                </div>
                <div>
                  <label htmlFor={`${id}-${at}-mode`}>Index of archive {i + 1}</label>
                  <select
                    id={`${id}-${at}-mode`}
                    value={row.index_mode}
                    aria-invalid={invalid(`${at}.index_mode`)}
                    aria-describedby={describedBy(`${at}.index_mode`)}
                    onChange={(event) => setArchive(i, { index_mode: event.target.value as IndexMode })}
                  >
                    {INDEX_MODES.map((mode) => (
                      <option key={mode} value={mode}>
                        {INDEX_MODE_LABELS[mode]}
                      </option>
                    ))}
                  </select>
                  <FieldError error={error} field={`${at}.index_mode`} id={`${id}-${at}.index_mode-error`} />
                </div>
                {row.index_mode !== 'default' ? (
                  <div>
                    <label htmlFor={`${id}-${at}-index`}>Index name of archive {i + 1}</label>
                    <input
                      id={`${id}-${at}-index`}
                      type="text"
                      value={row.index}
                      maxLength={120}
                      aria-invalid={invalid(`${at}.index`)}
                      aria-describedby={describedBy(`${at}.index`)}
                      onChange={(event) => setArchive(i, { index: event.target.value })}
                    />
                    <FieldError error={error} field={`${at}.index`} id={`${id}-${at}.index-error`} />
                  </div>
                ) : null}
                <div className="toolbar noise-row-actions">
                  <button
                    type="button"
                    className="secondary"
                    aria-label={`Up: archive ${i + 1}`}
                    disabled={i === 0}
                    onClick={() => set('archives', move(values.archives, i, i - 1))}
                  >
                    Up
                  </button>
                  <button
                    type="button"
                    className="secondary"
                    aria-label={`Down: archive ${i + 1}`}
                    disabled={i === values.archives.length - 1}
                    onClick={() => set('archives', move(values.archives, i, i + 1))}
                  >
                    Down
                  </button>
                  <button
                    type="button"
                    className="secondary"
                    aria-label={`Remove archive ${i + 1}`}
                    onClick={() =>
                      set(
                        'archives',
                        values.archives.filter((_, j) => j !== i),
                      )
                    }
                  >
                    Remove
                  </button>
                </div>
              </li>
            );
          })}
        </ol>
        <button
          type="button"
          className="secondary"
          onClick={() => set('archives', [...values.archives, emptyArchiveRow()])}
        >
          Add archive
        </button>
        {archives.isError ? <ErrorNotice error={archives.error} /> : null}
      </fieldset>

      {warnings.length > 0 ? (
        <div className="noise-warning" role="status">
          <strong>Before saving:</strong>
          <ul>
            {warnings.map((warning) => (
              <li key={warning.target}>{warning.message}</li>
            ))}
          </ul>
        </div>
      ) : null}

      <div className="toolbar noise-actions">
        <button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : job ? 'Save changes' : 'Create job'}
        </button>
      </div>
    </form>
  );
}
