import type { paths } from '../../api/schema.gen.ts';

type AuditOperation = paths['/api/audit']['get'];

/** The query GET /api/audit takes. */
export type AuditQuery = NonNullable<AuditOperation['parameters']['query']>;

/** One audit record. */
export type AuditRecord = AuditOperation['responses'][200]['content']['application/json'][number];

/** Outcomes the API filters on; '' is any. */
export const OUTCOMES = ['success', 'failure', 'denied', 'started'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/**
 * The filters as the form holds them; `since` (inclusive) and `until` (exclusive) are datetime-local
 * values in the browser's time zone.
 */
export interface AuditFilters {
  readonly actor: string;
  readonly action: string;
  readonly outcome: Outcome | '';
  readonly since: string;
  readonly until: string;
}

export const NO_FILTERS: AuditFilters = { actor: '', action: '', outcome: '', since: '', until: '' };

/** Records per page; one more is asked for to know whether an older page exists. */
export const PAGE_SIZE = 50;

function isOutcome(value: string): value is Outcome {
  return (OUTCOMES as readonly string[]).includes(value);
}

/** The filters kept in the page's address (`?actor=…&action=…&outcome=…&since=…&until=…`). */
export function filtersFromSearch(search: URLSearchParams): AuditFilters {
  const outcome = search.get('outcome') ?? '';
  return {
    actor: search.get('actor') ?? '',
    action: search.get('action') ?? '',
    outcome: isOutcome(outcome) ? outcome : '',
    since: search.get('since') ?? '',
    until: search.get('until') ?? '',
  };
}

/** The page address's search part for these filters; empty ones are left out. */
export function filtersToSearch(filters: AuditFilters): URLSearchParams {
  const search = new URLSearchParams();
  for (const key of ['actor', 'action', 'outcome', 'since', 'until'] as const) {
    const value = filters[key].trim();
    if (value !== '') search.set(key, value);
  }
  return search;
}

/** A datetime-local value (browser time) as an ISO instant, or undefined when empty or not a time. */
export function localToIso(value: string): string | undefined {
  if (value.trim() === '') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** Why the time range cannot be sent (From later than Until), or undefined when it can. */
export function rangeProblem(filters: Pick<AuditFilters, 'since' | 'until'>): string | undefined {
  const since = localToIso(filters.since);
  const until = localToIso(filters.until);
  if (since === undefined || until === undefined) return undefined;
  return Date.parse(since) > Date.parse(until) ? '“From” must not be later than “Until”.' : undefined;
}

/**
 * The API query for a page: the non-empty filters (trimmed; `since` and `until` as ISO instants), the cursor of
 * the page (`before`: id of the last record of the previous page) and one record more than a page.
 */
export function auditQuery(filters: AuditFilters, before?: string): AuditQuery {
  const query: AuditQuery = { limit: PAGE_SIZE + 1 };
  const actor = filters.actor.trim();
  const action = filters.action.trim();
  const since = localToIso(filters.since);
  const until = localToIso(filters.until);
  if (actor) query.actor = actor;
  if (action) query.action = action;
  if (filters.outcome) query.outcome = filters.outcome;
  if (since) query.since = since;
  if (until) query.until = until;
  if (before) query.before = before;
  return query;
}

/** A page of an answer: at most PAGE_SIZE records, whether an older page exists, and its cursor. */
export function pageOf(records: readonly AuditRecord[]): {
  rows: readonly AuditRecord[];
  next: string | null;
} {
  const rows = records.slice(0, PAGE_SIZE);
  const more = records.length > PAGE_SIZE;
  return { rows, next: more ? (rows.at(-1)?.id ?? null) : null };
}
