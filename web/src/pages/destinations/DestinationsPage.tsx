import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { Link, Route, Routes, useLocation, useNavigate, useParams, useSearchParams } from 'react-router';
import { api, call } from '../../api/client.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { DestinationForm } from './DestinationForm.tsx';
import {
  keys,
  useDestination,
  useDestinations,
  useKinds,
  useSetEnabled,
  useSiemStates,
  useStoreDestination,
} from './queries.ts';
import { TestConnection } from './TestConnection.tsx';
import type { SiemKind } from './types.ts';
import './destinations.css';

const BASE = '/destinations';

/** Where one destination's page is. */
function destinationPath(name: string): string {
  return `${BASE}/${encodeURIComponent(name)}`;
}

/** What a page tells the next one after a create or a delete (router state). */
interface Flash {
  readonly flash?: string;
}

/** A page heading that takes focus when the page opens (after an action that navigated here). */
function PageHeading({ children, id }: { children: ReactNode; id: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  const location = useLocation();
  const flash = (location.state as Flash | null)?.flash;
  useEffect(() => {
    if (flash) ref.current?.focus();
  }, [flash]);
  return (
    <h1 id={id} ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

function FlashMessage() {
  const location = useLocation();
  const flash = (location.state as Flash | null)?.flash;
  return (
    <p role="status" className="flash">
      {flash ?? ''}
    </p>
  );
}

/** The SIEM destinations: list, new, one destination. */
export function DestinationsPage() {
  return (
    <div className="destinations-page">
      <Routes>
        <Route index element={<DestinationList />} />
        <Route path="new" element={<NewDestination />} />
        <Route path=":name" element={<EditDestination />} />
      </Routes>
    </div>
  );
}

function kindTitle(kinds: readonly SiemKind[] | undefined, driver: string): string {
  return kinds?.find((k) => k.name === driver)?.title ?? driver;
}

function DestinationList() {
  const destinations = useDestinations();
  const kinds = useKinds();
  const states = useSiemStates();
  const toggle = useSetEnabled();
  return (
    <section aria-labelledby="destinations-heading">
      <PageHeading id="destinations-heading">SIEM destinations</PageHeading>
      <FlashMessage />
      <div className="toolbar">
        <Link className="button-link" to={`${BASE}/new`}>
          New destination
        </Link>
      </div>
      <ErrorNotice error={destinations.error} />
      <ErrorNotice error={toggle.error} />
      {destinations.isPending ? <p className="loading">Loading…</p> : null}
      {destinations.data && destinations.data.length === 0 ? (
        <p className="muted">No destinations yet. Create one to ship exercise and noise logs to a SIEM.</p>
      ) : null}
      {destinations.data && destinations.data.length > 0 ? (
        <table className="destinations-table">
          <caption className="visually-hidden">SIEM destinations</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Format</th>
              <th scope="col">Index</th>
              <th scope="col">Enabled</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {destinations.data.map((d) => {
              const state = states.data?.get(d.name);
              const busy = toggle.isPending && toggle.variables?.name === d.name;
              return (
                <tr key={d.id}>
                  <td>
                    <Link to={destinationPath(d.name)}>{d.name}</Link>
                  </td>
                  <td>{kindTitle(kinds.data, d.driver)}</td>
                  <td>{d.payload_format.toUpperCase()}</td>
                  <td>{d.index ?? <span className="muted">none</span>}</td>
                  <td>
                    <span className={d.enabled ? 'state-ok' : 'muted'}>{d.enabled ? 'yes' : 'no'}</span>{' '}
                    <button
                      type="button"
                      className="secondary small"
                      disabled={busy}
                      aria-label={`${d.enabled ? 'Disable' : 'Enable'} ${d.name}`}
                      onClick={() => toggle.mutate({ name: d.name, enabled: !d.enabled })}
                    >
                      {d.enabled ? 'Disable' : 'Enable'}
                    </button>
                  </td>
                  <td>
                    {state ? (
                      <>
                        <span className={`state-${state.state}`}>{state.state}</span>
                        {state.reason ? <span className="muted state-reason">{state.reason}</span> : null}
                      </>
                    ) : (
                      <span className="muted">{states.isPending ? '…' : 'not reported'}</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

function KindPicker({
  kinds,
  chosen,
  onChoose,
}: {
  kinds: readonly SiemKind[];
  chosen: string | null;
  onChoose: (name: string) => void;
}) {
  return (
    <fieldset className="kind-picker">
      <legend>Kind of SIEM</legend>
      {kinds.map((kind) => {
        const id = `kind-${kind.name}`;
        return (
          <div key={kind.name} className="kind-option">
            <input
              type="radio"
              id={id}
              name="kind"
              value={kind.name}
              checked={chosen === kind.name}
              onChange={() => onChoose(kind.name)}
            />
            <label htmlFor={id}>
              {kind.title}{' '}
              <span className="muted">
                ({kind.name}; {kind.payload_formats.join(' or ').toUpperCase()})
              </span>
            </label>
          </div>
        );
      })}
    </fieldset>
  );
}

function NewDestination() {
  const kinds = useKinds();
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const store = useStoreDestination();
  const chosen = params.get('kind');
  const kind = kinds.data?.find((k) => k.name === chosen);
  return (
    <section aria-labelledby="new-destination-heading">
      <p>
        <Link to={BASE}>← All destinations</Link>
      </p>
      <PageHeading id="new-destination-heading">New destination</PageHeading>
      <ErrorNotice error={kinds.error} />
      {kinds.isPending ? <p className="loading">Loading…</p> : null}
      {kinds.data ? (
        <KindPicker
          kinds={kinds.data}
          chosen={kind ? kind.name : null}
          onChoose={(name) => setParams({ kind: name }, { replace: true })}
        />
      ) : null}
      {kind ? (
        <>
          <h2>{kind.title}</h2>
          <DestinationForm
            key={kind.name}
            kind={kind}
            onSaved={(view) => {
              store(view);
              void navigate(destinationPath(view.name), {
                state: { flash: `Created ${view.name}.` } satisfies Flash,
              });
            }}
          />
        </>
      ) : null}
    </section>
  );
}

function DeleteDestination({ name }: { name: string }) {
  const [confirming, setConfirming] = useState(false);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const confirmRef = useRef<HTMLButtonElement>(null);
  const triggerRef = useRef<HTMLButtonElement>(null);
  // Whether the confirm step was open: focus goes back to its trigger only when it closes.
  const wasConfirming = useRef(false);
  const remove = useMutation({
    mutationFn: () => call(api.DELETE('/api/destinations/{name}', { params: { path: { name } } })),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: keys.one(name) });
      void queryClient.invalidateQueries({ queryKey: keys.all, exact: true });
      void queryClient.invalidateQueries({ queryKey: ['siems'] });
      void navigate(BASE, { state: { flash: `Deleted ${name}.` } satisfies Flash });
    },
  });
  useEffect(() => {
    if (confirming) confirmRef.current?.focus();
    else if (wasConfirming.current) triggerRef.current?.focus();
    wasConfirming.current = confirming;
  }, [confirming]);
  // A refused delete leaves the step open: the confirm button, disabled while pending, takes focus back.
  useEffect(() => {
    if (remove.error) confirmRef.current?.focus();
  }, [remove.error]);
  return (
    <div>
      {confirming ? (
        <div className="confirm-delete">
          <p>
            Delete <strong>{name}</strong>? Exercises and noise jobs can no longer ship to it. Its data in the
            SIEM is left alone.
          </p>
          <div className="toolbar">
            <button
              ref={confirmRef}
              type="button"
              className="danger"
              disabled={remove.isPending}
              onClick={() => remove.mutate()}
            >
              {remove.isPending ? 'Deleting…' : `Delete ${name}`}
            </button>
            <button
              type="button"
              className="secondary"
              disabled={remove.isPending}
              onClick={() => {
                setConfirming(false);
                remove.reset();
              }}
            >
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <button ref={triggerRef} type="button" className="danger" onClick={() => setConfirming(true)}>
          Delete destination…
        </button>
      )}
      <ErrorNotice error={remove.error} />
    </div>
  );
}

function EditDestination() {
  const name = useParams().name ?? '';
  const destination = useDestination(name);
  const kinds = useKinds();
  const toggle = useSetEnabled();
  const store = useStoreDestination();
  const [saved, setSaved] = useState<string | null>(null);
  // The form starts afresh from the stored values after each of its saves (not after a toggle).
  const [saves, setSaves] = useState(0);
  const view = destination.data;
  const kind = view ? kinds.data?.find((k) => k.name === view.driver) : undefined;
  return (
    <>
      <section aria-labelledby="destination-heading">
        <p>
          <Link to={BASE}>← All destinations</Link>
        </p>
        <PageHeading id="destination-heading">{name}</PageHeading>
        <FlashMessage />
        <ErrorNotice error={destination.error} />
        {destination.isPending ? <p className="loading">Loading…</p> : null}
        {view ? (
          <>
            <dl className="destination-facts">
              <dt>Kind</dt>
              <dd>{kindTitle(kinds.data, view.driver)}</dd>
              <dt>Enabled</dt>
              <dd>
                <span className={view.enabled ? 'state-ok' : 'muted'}>{view.enabled ? 'yes' : 'no'}</span>{' '}
                <button
                  type="button"
                  className="secondary small"
                  disabled={toggle.isPending}
                  onClick={() => toggle.mutate({ name: view.name, enabled: !view.enabled })}
                >
                  {view.enabled ? 'Disable' : 'Enable'}
                </button>
              </dd>
            </dl>
            <ErrorNotice error={toggle.error} />
          </>
        ) : null}
      </section>
      {view ? (
        <>
          <section aria-labelledby="test-heading">
            <h2 id="test-heading">Test connection</h2>
            <TestConnection name={view.name} />
          </section>
          <section aria-labelledby="settings-heading">
            <h2 id="settings-heading">Settings</h2>
            <ErrorNotice error={kinds.error} />
            {kinds.data && !kind ? (
              <p className="error-notice">
                This destination is of kind <code>{view.driver}</code>, which this version of the service does
                not know; it cannot be edited here.
              </p>
            ) : null}
            {kind ? (
              <>
                <p role="status" className="flash">
                  {saved ?? ''}
                </p>
                <DestinationForm
                  key={saves}
                  kind={kind}
                  destination={view}
                  onSaved={(updated) => {
                    store(updated);
                    setSaves((n) => n + 1);
                    setSaved(`Saved at ${new Date(updated.updated_at).toLocaleTimeString()}.`);
                  }}
                />
              </>
            ) : null}
          </section>
          <section aria-labelledby="delete-heading">
            <h2 id="delete-heading">Delete</h2>
            <DeleteDestination name={view.name} />
          </section>
        </>
      ) : null}
    </>
  );
}
