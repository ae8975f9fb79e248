import type { FieldErrors } from '../../api/client.ts';
import type { IndexMode, Job, JobCreateBody } from './types.ts';

/** One archive of the job as the form edits it; its position is its place in the list. */
export interface ArchiveFormRow {
  storage_path: string;
  index_mode: IndexMode;
  /** Only sent for index_mode existing and new. */
  index: string;
}

/** What the job form holds: numbers stay text until the body is built. */
export interface JobFormValues {
  name: string;
  enabled: boolean;
  targets: string[];
  scheduleKind: 'interval' | 'cron';
  intervalSeconds: string;
  cron: string;
  jitterSeconds: string;
  propagateOnWipe: boolean;
  archives: ArchiveFormRow[];
}

/** A new job: enabled, every hour, no targets or archives yet. */
export function emptyJobForm(): JobFormValues {
  return {
    name: '',
    enabled: true,
    targets: [],
    scheduleKind: 'interval',
    intervalSeconds: '3600',
    cron: '',
    jitterSeconds: '',
    propagateOnWipe: false,
    archives: [],
  };
}

/** An empty archive row routed to the destinations' default index. */
export function emptyArchiveRow(storagePath = ''): ArchiveFormRow {
  return { storage_path: storagePath, index_mode: 'default', index: '' };
}

function indexModeOf(value: string): IndexMode {
  return value === 'existing' || value === 'new' ? value : 'default';
}

function numberText(value: number | undefined): string {
  return value === undefined || value === null ? '' : String(value);
}

/** The form values of a stored job (archives in position order). */
export function formFromJob(job: Job): JobFormValues {
  const archives = [...job.archives].sort((a, b) => a.position - b.position);
  return {
    name: job.name,
    enabled: job.enabled,
    targets: [...job.targets],
    scheduleKind: job.schedule.kind === 'cron' ? 'cron' : 'interval',
    intervalSeconds: numberText(job.schedule.interval_seconds),
    cron: job.schedule.cron ?? '',
    jitterSeconds: numberText(job.schedule.jitter_seconds),
    propagateOnWipe: job.propagate_on_wipe,
    archives: archives.map((a) => ({
      storage_path: a.storage_path,
      index_mode: indexModeOf(a.index_mode),
      index: a.index ?? '',
    })),
  };
}

/** A number typed in a field: undefined when empty, NaN when not a number. */
function parseNumber(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return Number(trimmed);
}

/**
 * The request body (POST, and PATCH with every field) of the form, or the problems the browser can
 * see by itself, keyed by the field paths the service uses (`schedule.interval_seconds`, …). Every
 * other rule (required fields, bounds, index names, targets' indexes) is left to the service, whose
 * 400 names the fields the same way.
 */
export function bodyFromForm(
  values: JobFormValues,
): { body: JobCreateBody; problems?: undefined } | { body?: undefined; problems: FieldErrors } {
  const problems: FieldErrors = {};
  const schedule: JobCreateBody['schedule'] = { kind: values.scheduleKind };
  if (values.scheduleKind === 'interval') {
    const seconds = parseNumber(values.intervalSeconds);
    if (seconds !== undefined && Number.isNaN(seconds))
      problems['schedule.interval_seconds'] = 'must be a number';
    else schedule.interval_seconds = seconds ?? null;
  } else {
    schedule.cron = values.cron.trim();
  }
  const jitter = parseNumber(values.jitterSeconds);
  if (jitter !== undefined && Number.isNaN(jitter)) problems['schedule.jitter_seconds'] = 'must be a number';
  else if (jitter !== undefined) schedule.jitter_seconds = jitter;
  if (Object.keys(problems).length > 0) return { problems };
  return {
    body: {
      name: values.name.trim(),
      enabled: values.enabled,
      targets: [...values.targets],
      schedule,
      propagate_on_wipe: values.propagateOnWipe,
      archives: values.archives.map((a, position) => ({
        position,
        storage_path: a.storage_path,
        index_mode: a.index_mode,
        index: a.index_mode === 'default' ? null : a.index.trim(),
      })),
    },
  };
}
