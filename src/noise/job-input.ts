import { INDEX_NAME_MAX } from '../siems/shared/index-name.ts';
import type { AnySiemKind } from '../siems/siem-kind.ts';
import { storagePathProblem } from '../storage/storage-path.ts';
import { INDEX_MODES, type IndexMode, type NoiseArchive } from './job-store.ts';
import { checkSchedule, type NoiseSchedule } from './schedule.ts';

/** A job body as the API takes it (decisions.md §4); every field optional on PATCH. */
export interface JobInput {
  name?: string;
  enabled?: boolean;
  targets?: string[];
  schedule?: Record<string, unknown>;
  propagate_on_wipe?: boolean;
  archives?: Array<{ position: number; storage_path: string; index_mode?: string; index?: string | null }>;
}

/** A job's settable fields after validation. */
export interface JobFields {
  name: string;
  enabled: boolean;
  targets: string[];
  schedule: NoiseSchedule;
  propagate_on_wipe: boolean;
  archives: NoiseArchive[];
}

export const MAX_JOB_NAME = 120;
export const MAX_TARGETS = 20;
export const MAX_ARCHIVES = 100;

/**
 * Checks a complete job body (a create, or a PATCH merged onto the stored job) without any I/O.
 * Returns the normalized fields (archives in the order given, schedule reduced to its kind's
 * fields) or the problems keyed by field path. Targets' existence, archives' existence and index
 * names per driver need the database and storage: see checkJobReferences.
 */
export function checkJobFields(
  input: JobInput,
  now: number,
): { fields: JobFields; problems?: undefined } | { fields?: undefined; problems: Record<string, string> } {
  const problems: Record<string, string> = {};
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (name.length === 0) problems.name = 'is required';
  else if (name.length > MAX_JOB_NAME) problems.name = `must be at most ${MAX_JOB_NAME} characters`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
  else if (/[\u0000-\u001f\u007f]/.test(name)) problems.name = 'must not contain control characters';

  const targets = input.targets ?? [];
  if (targets.length === 0) problems.targets = 'must name at least one SIEM destination';
  else if (targets.length > MAX_TARGETS) problems.targets = `must name at most ${MAX_TARGETS} destinations`;
  for (const [i, t] of targets.entries()) {
    if (targets.indexOf(t) !== i) problems[`targets.${i}`] = `"${t}" is named twice`;
  }

  let schedule: NoiseSchedule | undefined;
  if (input.schedule === undefined) problems.schedule = 'is required';
  else {
    const checked = checkSchedule(input.schedule, now);
    if (checked.problems) Object.assign(problems, checked.problems);
    else schedule = checked.schedule;
  }

  const archives: NoiseArchive[] = [];
  const given = input.archives ?? [];
  if (given.length === 0) problems.archives = 'must list at least one archive';
  else if (given.length > MAX_ARCHIVES) problems.archives = `must list at most ${MAX_ARCHIVES} archives`;
  const positions = new Set<number>();
  for (const [i, a] of given.entries()) {
    const at = `archives.${i}`;
    if (!Number.isInteger(a.position) || a.position < 0)
      problems[`${at}.position`] = 'must be an integer ≥ 0';
    else if (positions.has(a.position))
      problems[`${at}.position`] = `${a.position} is used by another archive`;
    positions.add(a.position);
    const pathProblem = storagePathProblem(a.storage_path);
    if (pathProblem) problems[`${at}.storage_path`] = pathProblem;
    const mode = (a.index_mode ?? 'default') as IndexMode;
    if (!(INDEX_MODES as readonly string[]).includes(mode)) {
      problems[`${at}.index_mode`] = `must be one of ${INDEX_MODES.join(', ')}`;
      continue;
    }
    const index = a.index === undefined || a.index === null || a.index === '' ? null : a.index;
    if (mode === 'default' && index !== null) {
      problems[`${at}.index`] = 'is only for index_mode existing or new (default uses the destination index)';
    } else if (mode !== 'default' && index === null) {
      problems[`${at}.index`] = `is required when index_mode is ${mode}`;
    } else if (index !== null && index.length > INDEX_NAME_MAX) {
      problems[`${at}.index`] = `must be at most ${INDEX_NAME_MAX} characters`;
    }
    archives.push({ position: a.position, storage_path: a.storage_path, index_mode: mode, index });
  }

  if (Object.keys(problems).length > 0 || schedule === undefined) return { problems };
  return {
    fields: {
      name,
      enabled: input.enabled ?? true,
      targets: [...targets],
      schedule,
      propagate_on_wipe: input.propagate_on_wipe ?? false,
      archives,
    },
  };
}

/** What a job's save needs to know of a target: its kind and its default index. */
export interface JobTarget {
  readonly kind: AnySiemKind;
  readonly index: string | null;
}

/**
 * Problems with what a job refers to: targets that are not destinations, archives missing from the
 * noise-archives bucket, custom index names a target's kind would refuse, and archives routed to
 * the default index of a target that labels events by index but has none (every line must carry
 * `labIndex=`, decisions.md §5). Field paths follow the order of the job as given (`targets.1`,
 * `archives.0.index`), so call it before sorting.
 */
export function checkJobReferences(
  fields: Pick<JobFields, 'targets' | 'archives'>,
  targets: ReadonlyMap<string, JobTarget>,
  missingArchives: ReadonlySet<string>,
): Record<string, string> {
  const problems: Record<string, string> = {};
  const byDefault = fields.archives.filter((a) => a.index_mode === 'default').map((a) => a.storage_path);
  for (const [i, t] of fields.targets.entries()) {
    const target = targets.get(t);
    if (!target) {
      problems[`targets.${i}`] = `destination "${t}" does not exist`;
    } else if (
      target.kind.capabilities.indexes === 'label' &&
      target.index === null &&
      byDefault.length > 0
    ) {
      problems[`targets.${i}`] =
        `${target.kind.name} target "${t}" has no index, so the lines of ${byDefault.map((p) => JSON.stringify(p)).join(', ')} ` +
        "(index_mode default) would carry no labIndex=; set the destination's index, or route those archives to a named index";
    }
  }
  for (const [i, a] of fields.archives.entries()) {
    const at = `archives.${i}`;
    if (missingArchives.has(a.storage_path)) {
      problems[`${at}.storage_path`] =
        `"${a.storage_path}" is not in the noise-archives bucket (upload it first)`;
    }
    if (a.index === null) continue;
    for (const t of fields.targets) {
      const kind = targets.get(t)?.kind;
      if (!kind) continue;
      const problem = kind.indexNameProblem(a.index);
      if (problem) {
        problems[`${at}.index`] = `${problem} (for ${kind.name} target "${t}")`;
        break;
      }
    }
  }
  return problems;
}
