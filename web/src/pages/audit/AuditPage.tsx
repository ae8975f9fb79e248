import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { api, call } from '../../api/client.ts';
import { ErrorNotice, FieldError } from '../../components/ErrorNotice.tsx';
import {
  type AuditFilters,
  type AuditRecord,
  auditQuery,
  filtersFromSearch,
  filtersToSearch,
  NO_FILTERS,
  OUTCOMES,
  PAGE_SIZE,
  pageOf,
  rangeProblem,
} from './audit-query.ts';
import './audit.css';

const OUTCOME_CLASS: Readonly<Record<string, string>> = {
  success: 'state-ok',
  failure: 'state-failed',
  denied: 'audit-denied',
  started: 'audit-started',
};

/** Audit log (`manage_users`): filters in the address, newest first, pages by the API's `before` cursor. */
export function AuditPage() {
  const [search, setSearch] = useSearchParams();
  const applied = filtersFromSearch(search);
  const appliedKey = filtersToSearch(applied).toString();
  // Cursors of the pages before this one: [] on the newest page; the last is this page's `before`.
  const [cursors, setCursors] = useState<{ key: string; stack: readonly string[] }>({
    key: appliedKey,
    stack: [],
  });
  const stack = cursors.key === appliedKey ? cursors.stack : [];
  const before = stack.at(-1);
  const query = auditQuery(applied, before);
  const records = useQuery({
    queryKey: ['audit', query],
    queryFn: () => call(api.GET('/api/audit', { params: { query } })),
    placeholderData: keepPreviousData,
  });
  const page = records.data ? pageOf(records.data) : null;
  // While the next page loads, the previous one stays shown: its cursor must not be pushed again.
  const paging = records.isPlaceholderData;

  const resultsHeading = useRef<HTMLHeadingElement>(null);
  const [moved, setMoved] = useState(0);
  useEffect(() => {
    if (moved > 0) resultsHeading.current?.focus();
  }, [moved]);

  const apply = (filters: AuditFilters) => {
    const next = filtersToSearch(filters);
    setSearch(next);
    setCursors({ key: next.toString(), stack: [] });
    setMoved((n) => n + 1);
  };
  const older = () => {
    if (paging || !page?.next) return;
    setCursors({ key: appliedKey, stack: [...stack, page.next] });
    setMoved((n) => n + 1);
  };
  const newer = () => {
    if (paging) return;
    setCursors({ key: appliedKey, stack: stack.slice(0, -1) });
    setMoved((n) => n + 1);
  };
  const ids = useId();

  return (
    <>
      <h1>Audit log</h1>
      <section aria-labelledby={`${ids}-filters`}>
        <h2 id={`${ids}-filters`}>Filters</h2>
        <FilterForm key={appliedKey} initial={applied} error={records.error} onApply={apply} />
      </section>
      <section aria-labelledby={`${ids}-records`}>
        <h2 id={`${ids}-records`} ref={resultsHeading} tabIndex={-1}>
          Records{stack.length > 0 ? `, page ${stack.length + 1}` : ''}
        </h2>
        {records.isPending ? <p className="loading">Loading records…</p> : null}
        <ErrorNotice error={records.error} />
        {page ? (
          <>
            {page.rows.length === 0 ? (
              <p className="muted">No record matches.</p>
            ) : (
              <AuditTable rows={page.rows} busy={records.isFetching} />
            )}
            <nav className="audit-pager" aria-label="Audit pages">
              <button
                type="button"
                className="secondary"
                onClick={newer}
                disabled={paging || stack.length === 0}
              >
                Previous (newer)
              </button>
              <span className="muted" aria-live="polite">
                Page {stack.length + 1}
                {records.isFetching ? ' — loading…' : ''}
              </span>
              <button type="button" className="secondary" onClick={older} disabled={paging || !page.next}>
                Next (older)
              </button>
            </nav>
          </>
        ) : null}
      </section>
    </>
  );
}

function FilterForm({
  initial,
  error,
  onApply,
}: {
  initial: AuditFilters;
  error: unknown;
  onApply: (filters: AuditFilters) => void;
}) {
  const id = useId();
  const [filters, setFilters] = useState<AuditFilters>(initial);
  // The ordering problem found at the last submit; cleared when either time changes.
  const [rangeError, setRangeError] = useState<string | undefined>(undefined);
  const untilInput = useRef<HTMLInputElement>(null);
  const set = (key: keyof AuditFilters) => (event: { target: { value: string } }) => {
    if (key === 'since' || key === 'until') setRangeError(undefined);
    setFilters((f) => ({ ...f, [key]: event.target.value }));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const problem = rangeProblem(filters);
    setRangeError(problem);
    if (problem) {
      untilInput.current?.focus();
      return;
    }
    onApply(filters);
  };
  return (
    <form className="audit-filters" onSubmit={submit} noValidate>
      <div className="audit-field">
        <label htmlFor={`${id}-actor`}>Actor</label>
        <input
          id={`${id}-actor`}
          value={filters.actor}
          onChange={set('actor')}
          placeholder="e-mail or user id"
          aria-describedby={`${id}-actor-error`}
        />
        <FieldError error={error} field="actor" id={`${id}-actor-error`} />
      </div>
      <div className="audit-field">
        <label htmlFor={`${id}-action`}>Action</label>
        <input
          id={`${id}-action`}
          value={filters.action}
          onChange={set('action')}
          placeholder="user.create, or user. for all"
          aria-describedby={`${id}-action-help ${id}-action-error`}
        />
        <span className="muted" id={`${id}-action-help`}>
          Exact, or a prefix ending in “.”
        </span>
        <FieldError error={error} field="action" id={`${id}-action-error`} />
      </div>
      <div className="audit-field">
        <label htmlFor={`${id}-outcome`}>Outcome</label>
        <select id={`${id}-outcome`} value={filters.outcome} onChange={set('outcome')}>
          <option value="">any</option>
          {OUTCOMES.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      </div>
      <div className="audit-field">
        <label htmlFor={`${id}-since`}>From (your time)</label>
        <input
          id={`${id}-since`}
          type="datetime-local"
          value={filters.since}
          onChange={set('since')}
          aria-describedby={`${id}-since-error`}
        />
        <FieldError error={error} field="since" id={`${id}-since-error`} />
      </div>
      <div className="audit-field">
        <label htmlFor={`${id}-until`}>Until (your time)</label>
        <input
          id={`${id}-until`}
          ref={untilInput}
          type="datetime-local"
          value={filters.until}
          onChange={set('until')}
          aria-invalid={rangeError ? true : undefined}
          aria-describedby={`${id}-range-error ${id}-until-error`}
        />
        {rangeError ? (
          <span className="field-error" id={`${id}-range-error`} role="alert">
            {rangeError}
          </span>
        ) : null}
        <FieldError error={error} field="until" id={`${id}-until-error`} />
      </div>
      <div className="toolbar">
        <button type="submit">Apply filters</button>
        <button type="button" className="secondary" onClick={() => onApply(NO_FILTERS)}>
          Clear
        </button>
      </div>
    </form>
  );
}

function AuditTable({ rows, busy }: { rows: readonly AuditRecord[]; busy: boolean }) {
  return (
    <table className="audit-table" aria-busy={busy}>
      <caption className="muted">Newest first, {PAGE_SIZE} per page</caption>
      <thead>
        <tr>
          <th scope="col">At</th>
          <th scope="col">Actor</th>
          <th scope="col">Action</th>
          <th scope="col">Target</th>
          <th scope="col">Outcome</th>
          <th scope="col">Details</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.id}>
            <td>
              <time dateTime={r.at}>{new Date(r.at).toLocaleString()}</time>
            </td>
            <td>
              {r.actor ?? r.actor_id ?? <span className="muted">—</span>}
              {r.actor_type !== 'user' ? <span className="muted"> ({r.actor_type})</span> : null}
              {r.ip ? <div className="muted">{r.ip}</div> : null}
            </td>
            <td>
              <code>{r.action}</code>
            </td>
            <td>{r.target ?? <span className="muted">—</span>}</td>
            <td className={OUTCOME_CLASS[r.outcome] ?? ''}>{r.outcome}</td>
            <td>
              {r.details && Object.keys(r.details).length > 0 ? (
                <details>
                  <summary>Show</summary>
                  <pre>{JSON.stringify(r.details, null, 2)}</pre>
                </details>
              ) : (
                <span className="muted">—</span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
