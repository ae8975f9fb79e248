import { type ReactNode, useRef } from 'react';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import './dashboard.css';
import type {
  ComponentState,
  HistoryEntry,
  PlatformStatusState,
  ProviderName,
  StatusComponent,
} from './platform-status-state.ts';
import { usePlatformStatus } from './usePlatformStatus.ts';

const STATES: readonly ComponentState[] = ['down', 'degraded', 'unknown', 'up'];

const PROVIDERS: Record<ProviderName, string> = {
  prometheus: 'Prometheus',
  builtin: 'built-in checks of Socdrill’s own dependencies',
};

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A point in time for a person, with the exact ISO value for machines (and as a tooltip). */
function Time({ iso }: { iso: string }) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return <>{iso}</>;
  return (
    <time dateTime={iso} title={iso}>
      {timeFormat.format(date)}
    </time>
  );
}

function StateBadge({ state }: { state: ComponentState }) {
  return <span className={`state-${state}`}>{state}</span>;
}

/** One change in words: `up → down`, `added (up)`, `removed (was down)`. */
function ChangeText({ entry }: { entry: HistoryEntry }) {
  if (entry.change === 'added') {
    return (
      <>
        added (<StateBadge state={entry.state} />)
      </>
    );
  }
  if (entry.change === 'removed') {
    return (
      <>
        removed (was <StateBadge state={entry.state} />)
      </>
    );
  }
  if (entry.previous && entry.previous.state !== entry.state) {
    return (
      <>
        <StateBadge state={entry.previous.state} /> → <StateBadge state={entry.state} />
      </>
    );
  }
  return (
    <>
      <StateBadge state={entry.state} />, new reason
    </>
  );
}

function EntryDetails({ entry }: { entry: HistoryEntry }) {
  return (
    <>
      {entry.reason ? <span className="history-reason">{entry.reason}</span> : null}
      {entry.previous && entry.previous.state !== entry.state ? (
        <span className="muted history-previous">
          {' '}
          (was {entry.previous.state} since <Time iso={entry.previous.since} />)
        </span>
      ) : null}
      {entry.via === 'snapshot' ? <span className="muted"> (found after reconnecting)</span> : null}
    </>
  );
}

/** The connection to the stream, always in one live region. */
function StreamState({ state, onReconnect }: { state: PlatformStatusState; onReconnect: () => void }) {
  let text: ReactNode;
  if (state.ended === 'session_ended' || state.ended === 'session_expired') {
    text = 'Your session ended. Taking you to sign-in…';
  } else if (state.staleSince !== null) {
    text = (
      <>
        <strong>
          Stale since <Time iso={state.staleSince} />.
        </strong>{' '}
        {state.ended === 'shutdown' ? 'The service is restarting. ' : 'Live updates were interrupted. '}
        {state.connection === 'closed'
          ? 'The browser stopped reconnecting; what you see may be out of date.'
          : 'Reconnecting…'}
      </>
    );
  } else if (state.ended === 'shutdown') {
    text = 'The service is restarting. Reconnecting…';
  } else if (state.connection === 'open') {
    text = 'Live.';
  } else {
    text = 'Connecting to live updates…';
  }
  const stale = state.staleSince !== null || state.ended !== null;
  return (
    <div className={stale ? 'stream-state stream-stale' : 'stream-state'}>
      <div role="status">{text}</div>
      {state.connection === 'closed' && state.ended === null ? (
        <button type="button" className="secondary" onClick={onReconnect}>
          Reconnect
        </button>
      ) : null}
    </div>
  );
}

function Summary({ components }: { components: readonly StatusComponent[] }) {
  const counts = STATES.map((state) => [state, components.filter((c) => c.state === state).length] as const);
  return (
    <ul className="status-summary" aria-label="Components by state">
      {counts.map(([state, count]) => (
        <li key={state}>
          <span className={`state-${state}`}>{count}</span> {state}
        </li>
      ))}
    </ul>
  );
}

function ComponentHistory({ entries }: { entries: readonly HistoryEntry[] | undefined }) {
  if (!entries || entries.length === 0) return <span className="muted">no change seen</span>;
  return (
    <details>
      <summary>
        {entries.length} {entries.length === 1 ? 'change' : 'changes'}
      </summary>
      <ol className="history">
        {entries.map((entry) => (
          <li key={entry.key}>
            <Time iso={entry.at} />: <ChangeText entry={entry} /> <EntryDetails entry={entry} />
          </li>
        ))}
      </ol>
    </details>
  );
}

function ComponentsTable({ state }: { state: PlatformStatusState }) {
  if (state.components.length === 0) {
    return <p className="muted">No components reported yet.</p>;
  }
  return (
    <table className={state.staleSince !== null ? 'components stale' : 'components'}>
      <thead>
        <tr>
          <th scope="col">Component</th>
          <th scope="col">Kind</th>
          <th scope="col">State</th>
          <th scope="col">Since</th>
          <th scope="col">Reason</th>
          <th scope="col">Changes seen</th>
        </tr>
      </thead>
      <tbody>
        {state.components.map((component) => (
          <tr key={component.id} data-component={component.id}>
            <th scope="row">
              {component.name}
              {component.name !== component.id ? (
                <span className="muted component-id">{component.id}</span>
              ) : null}
            </th>
            <td>{component.kind}</td>
            <td>
              <StateBadge state={component.state} />
            </td>
            <td>
              <Time iso={component.since} />
            </td>
            <td className="reason">{component.reason ?? <span className="muted">—</span>}</td>
            <td>
              <ComponentHistory entries={state.history[component.id]} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The dashboard: live health of the lab's hosts and services (or Socdrill's own dependencies). */
export function DashboardPage() {
  const { state, initialError, reconnect } = usePlatformStatus();
  const heading = useRef<HTMLHeadingElement>(null);
  const onReconnect = () => {
    reconnect();
    heading.current?.focus();
  };
  return (
    <div className="dashboard">
      <section aria-labelledby="dashboard-title">
        <h1 id="dashboard-title" ref={heading} tabIndex={-1}>
          Platform status
        </h1>
        <StreamState state={state} onReconnect={onReconnect} />
        <ErrorNotice error={initialError} />
        {state.source === 'none' ? (
          initialError ? null : (
            <p className="loading">Loading…</p>
          )
        ) : (
          <>
            <p className="muted">
              {state.provider ? <>From {PROVIDERS[state.provider]}. </> : null}
              {state.polledAt ? (
                <>
                  Last poll <Time iso={state.polledAt} />.
                </>
              ) : (
                'The first poll has not completed yet.'
              )}
            </p>
            <Summary components={state.components} />
            <ComponentsTable state={state} />
          </>
        )}
      </section>
      <section aria-labelledby="changes-title">
        <h2 id="changes-title">Recent changes</h2>
        {state.changes.length === 0 ? (
          <p className="muted">No change since this page opened.</p>
        ) : (
          <ol className="history recent-changes">
            {state.changes.map((entry) => (
              <li key={entry.key}>
                <Time iso={entry.at} /> <strong>{entry.name}</strong>: <ChangeText entry={entry} />{' '}
                <EntryDetails entry={entry} />
              </li>
            ))}
          </ol>
        )}
      </section>
    </div>
  );
}
