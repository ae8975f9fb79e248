import { type ParsedSearch, parseSearch, parseTimeModifier } from './hec-search.ts';
import type { HecEvent, HecStore } from './hec-store.ts';

/** A search job of the management simulator. */
export interface SearchJob {
  readonly sid: string;
  readonly search: string;
  readonly owner: string;
  readonly execMode: string;
  readonly earliestTime: string | undefined;
  readonly latestTime: string | undefined;
  readonly createdAt: number;
  /** Status polls seen so far; the job reports DONE from poll `pollsUntilDone` on. */
  polls: number;
  readonly pollsUntilDone: number;
  readonly eventCount: number;
  readonly fields: readonly string[];
  readonly rows: ReadonlyArray<Readonly<Record<string, string>>>;
}

/** A run of a search: rows plus the events it looked at. */
export interface SearchRun {
  readonly fields: readonly string[];
  readonly rows: Array<Record<string, string>>;
  readonly eventCount: number;
}

/** Why a search was refused: the FATAL message splunkd would send with a 400. */
export interface SearchRefusal {
  readonly message: string;
}

/** Inputs of {@link runSearch}. */
export interface RunSearchInput {
  readonly search: string;
  readonly earliestTime: string | undefined;
  readonly latestTime: string | undefined;
  readonly canDelete: boolean;
  readonly nowSeconds: number;
  readonly serverName: string;
  readonly indexExists: (name: string) => boolean;
}

/**
 * Runs a search over the store. `| delete` marks matching events deleted (they stay stored, as
 * Splunk only masks them) and answers a table with one `__ALL__` row plus one row per index, each
 * with `splunk_server`, `index`, `deleted` and `errors` (the exact columns are not confirmed against
 * a real instance). `latest_time` is exclusive, so `latest_time=now` leaves future-dated events.
 */
export function runSearch(store: HecStore, input: RunSearchInput): SearchRun | SearchRefusal {
  const parsed = parseSearch(input.search);
  if (!parsed.ok) return { message: parsed.message };
  const s = parsed.search;
  if (s.command === 'delete' && !input.canDelete) {
    return { message: "Error in 'delete' command: You have insufficient privileges to delete events." };
  }
  const earliest = timeBound(s.earliest ?? input.earliestTime, input.nowSeconds, -Infinity);
  const latest = timeBound(s.latest ?? input.latestTime, input.nowSeconds, Infinity);
  if (earliest === null)
    return { message: `Invalid value "${s.earliest ?? input.earliestTime}" for time term 'earliest'` };
  if (latest === null)
    return { message: `Invalid value "${s.latest ?? input.latestTime}" for time term 'latest'` };
  const matched = store
    .searchable()
    .filter(
      (e) =>
        inIndex(e, s, input.indexExists) && e.time >= earliest && e.time < latest && hasTerms(e, s.terms),
    );
  if (s.command === 'delete') return deleteEvents(matched, input.serverName);
  if (s.command === 'stats_count')
    return { fields: ['count'], rows: [{ count: String(matched.length) }], eventCount: matched.length };
  const newestFirst = [...matched].sort((a, b) => b.time - a.time);
  const limited = s.head === undefined ? newestFirst : newestFirst.slice(0, s.head);
  return {
    fields: ['_raw', '_time', 'host', 'index', 'source', 'sourcetype', 'splunk_server'],
    rows: limited.map((e) => ({
      _raw: e.raw,
      _time: splunkTime(e.time),
      host: e.host,
      index: e.index,
      source: e.source,
      sourcetype: e.sourcetype,
      splunk_server: input.serverName,
    })),
    eventCount: matched.length,
  };
}

/** The job's `dispatchState` after `polls` status reads. */
export function dispatchState(job: SearchJob): 'QUEUED' | 'RUNNING' | 'DONE' {
  if (job.polls >= job.pollsUntilDone) return 'DONE';
  return job.polls <= 1 && job.pollsUntilDone > 2 ? 'QUEUED' : 'RUNNING';
}

/** `content` of a job entry as `GET /services/search/jobs/<sid>` shows it. */
export function jobContent(job: SearchJob): Record<string, unknown> {
  const state = dispatchState(job);
  const done = state === 'DONE';
  return {
    sid: job.sid,
    dispatchState: state,
    isDone: done,
    isFailed: false,
    isFinalized: false,
    isPaused: false,
    isZombie: false,
    isSaved: false,
    isRealTimeSearch: false,
    doneProgress: done ? 1 : state === 'RUNNING' ? 0.5 : 0,
    eventCount: done ? job.eventCount : 0,
    scanCount: done ? job.eventCount : 0,
    resultCount: done ? job.rows.length : 0,
    runDuration: done ? 0.01 : 0,
    ttl: 600,
    label: null,
    eventSearch: job.search.split('|')[0]?.trim() ?? '',
    request: {
      search: job.search,
      exec_mode: job.execMode,
      ...(job.earliestTime !== undefined ? { earliest_time: job.earliestTime } : {}),
      ...(job.latestTime !== undefined ? { latest_time: job.latestTime } : {}),
    },
    messages: [],
  };
}

function deleteEvents(matched: HecEvent[], serverName: string): SearchRun {
  const perIndex = new Map<string, number>();
  for (const e of matched) {
    e.deleted = true;
    perIndex.set(e.index, (perIndex.get(e.index) ?? 0) + 1);
  }
  const row = (index: string, deleted: number) => ({
    splunk_server: serverName,
    index,
    deleted: String(deleted),
    errors: '0',
  });
  return {
    fields: ['splunk_server', 'index', 'deleted', 'errors'],
    rows: [row('__ALL__', matched.length), ...[...perIndex].map(([index, n]) => row(index, n))],
    eventCount: matched.length,
  };
}

function inIndex(e: HecEvent, s: ParsedSearch, indexExists: (name: string) => boolean): boolean {
  if (!indexExists(e.index)) return false;
  if (s.index === undefined) return e.index === 'main';
  if (s.index === '*') return !e.index.startsWith('_');
  return e.index === s.index;
}

function hasTerms(e: HecEvent, terms: readonly string[]): boolean {
  const raw = e.raw.toLowerCase();
  return terms.every((t) => raw.includes(t.toLowerCase()));
}

function timeBound(modifier: string | undefined, now: number, fallback: number): number | null {
  if (modifier === undefined || modifier === '') return fallback;
  return parseTimeModifier(modifier, now);
}

function splunkTime(seconds: number): string {
  const iso = new Date(Math.floor(seconds * 1000)).toISOString();
  return `${iso.slice(0, -1)}+00:00`;
}
