import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { api, call } from '../../api/client.ts';
import { ErrorNotice, FieldError } from '../../components/ErrorNotice.tsx';
import { confirmationText, isConfirmed, isWipeFailure, offenseCount, type WipeOutcome } from './wipe.ts';
import './wipe.css';

/** Sends DELETE /api/sessions; a 502 carrying the wipe's own body is an outcome to show, not a thrown error. */
async function wipe(names: readonly string[]): Promise<WipeOutcome> {
  const answer = await api.DELETE('/api/sessions', { params: { query: { siem: [...names] } } });
  if (answer.response.status === 502 && isWipeFailure(answer.error)) {
    return { failed: true, body: answer.error };
  }
  return { failed: false, body: await call(Promise.resolve(answer)) };
}

/** Wipe: permanently delete lab events from chosen SIEMs, after a typed confirmation. */
export function WipePage() {
  const siems = useQuery({
    queryKey: ['siems'],
    queryFn: () => call(api.GET('/api/siems')),
  });
  const [chosen, setChosen] = useState<readonly string[]>([]);
  const [typed, setTyped] = useState('');
  // A finished wipe clears the confirmation: another wipe needs it typed again.
  const mutation = useMutation({ mutationFn: wipe, onSuccess: () => setTyped('') });
  const resultHeading = useRef<HTMLHeadingElement>(null);
  const errorRef = useRef<HTMLDivElement>(null);
  const ids = useId();

  const all = siems.data ?? [];
  // Names in the order the list shows them, so the confirmation text is predictable.
  const names = all.map((d) => d.name).filter((n) => chosen.includes(n));
  const expected = confirmationText(names);
  const confirmed = isConfirmed(names, typed);
  const offenses = mutation.data?.body.offense_cleanup ?? [];

  useEffect(() => {
    if (mutation.isSuccess) resultHeading.current?.focus();
    if (mutation.isError) errorRef.current?.focus();
  }, [mutation.isSuccess, mutation.isError]);

  const toggle = (name: string) => {
    setChosen((current) => (current.includes(name) ? current.filter((n) => n !== name) : [...current, name]));
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!confirmed || mutation.isPending) return;
    mutation.mutate(names);
  };

  return (
    <>
      <h1>Wipe SIEMs</h1>
      <section aria-labelledby={`${ids}-choose`}>
        <h2 id={`${ids}-choose`}>Choose what to wipe</h2>
        <div className="wipe-warning" role="note">
          <strong>The deletion is permanent.</strong> Every lab event in the chosen SIEMs is deleted: first
          the custom indexes of noise jobs that target the SIEM, then the destination's own index. Nothing can
          be restored. Noise jobs marked to repopulate after a wipe are then run again.
        </div>
        <form onSubmit={submit} noValidate>
          {siems.isPending ? <p className="loading">Loading destinations…</p> : null}
          {siems.error ? (
            <ErrorNotice error={siems.error} />
          ) : siems.data ? (
            <fieldset
              className="wipe-siems"
              aria-describedby={`${ids}-siem-error`}
              disabled={mutation.isPending}
            >
              <legend>SIEM destinations</legend>
              {all.length === 0 ? <p className="muted">No SIEM destination is configured.</p> : null}
              <ul>
                {all.map((d) => {
                  // A SIEM Q destination's events cannot be deleted, but a wipe closes its offenses.
                  const wipeable = d.can_wipe || d.closes_offenses;
                  const id = `${ids}-siem-${d.name}`;
                  return (
                    <li key={d.name}>
                      <input
                        type="checkbox"
                        id={id}
                        checked={chosen.includes(d.name)}
                        disabled={!wipeable}
                        onChange={() => toggle(d.name)}
                        aria-describedby={`${id}-note`}
                      />
                      <label htmlFor={id}>{d.name}</label>
                      <span className="muted" id={`${id}-note`}>
                        {d.driver}
                        {d.index ? `, index ${d.index}` : ''}
                        {d.enabled ? '' : ', disabled'}
                        {d.can_wipe
                          ? ''
                          : d.closes_offenses
                            ? ' — its events cannot be deleted; a wipe closes its open offenses'
                            : ' — has no delete API; a wipe skips it'}
                      </span>
                    </li>
                  );
                })}
              </ul>
              <FieldError error={mutation.error} field="siem" id={`${ids}-siem-error`} />
            </fieldset>
          ) : null}

          <label htmlFor={`${ids}-confirm`}>Confirmation</label>
          <p className="muted" id={`${ids}-confirm-help`}>
            {names.length === 0 ? (
              'Choose at least one SIEM first.'
            ) : (
              <>
                To confirm, type exactly: <code className="wipe-expected">{expected}</code>
              </>
            )}
          </p>
          <input
            id={`${ids}-confirm`}
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            aria-describedby={`${ids}-confirm-help`}
            autoComplete="off"
            spellCheck={false}
            disabled={names.length === 0}
          />
          <div className="toolbar wipe-actions">
            <button type="submit" className="danger" disabled={!confirmed || mutation.isPending}>
              {mutation.isPending ? 'Wiping…' : 'Wipe permanently'}
            </button>
          </div>
        </form>
      </section>

      {mutation.isPending ? (
        <section aria-live="polite" aria-busy="true">
          <h2>Wiping</h2>
          <progress aria-label="Wipe in progress" />
          <p className="muted">
            Deleting from {(mutation.variables ?? []).join(', ')}. The answer can take up to two minutes while
            noise jobs run again.
          </p>
        </section>
      ) : null}

      {mutation.isError ? (
        <div ref={errorRef} tabIndex={-1}>
          <ErrorNotice error={mutation.error} />
        </div>
      ) : null}

      {mutation.data ? (
        <section aria-labelledby={`${ids}-result`} aria-live="polite">
          <h2 id={`${ids}-result`} ref={resultHeading} tabIndex={-1}>
            {mutation.data.failed ? 'Wipe failed for some SIEMs' : 'Wipe finished'}
          </h2>
          {mutation.data.failed ? (
            <div className="error-notice" role="alert">
              <p>These SIEMs could not be wiped (some of their events may already be deleted):</p>
              <ul aria-label="Errors per SIEM">
                {mutation.data.body.errors.map((e) => (
                  <li key={e.siem}>
                    <strong>{e.siem}</strong>: {e.message}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          <dl className="wipe-result">
            <dt>Wiped</dt>
            <dd>{mutation.data.body.wiped.length > 0 ? mutation.data.body.wiped.join(', ') : 'none'}</dd>
            {mutation.data.body.skipped.length > 0 ? (
              <>
                <dt>Skipped (no delete API)</dt>
                <dd>
                  {mutation.data.body.skipped.map((name, i) => {
                    const cleanup = offenses.find((c) => c.siem === name);
                    return (
                      <span key={name}>
                        {i > 0 ? ', ' : ''}
                        {name}
                        {cleanup ? (
                          <span className="muted">
                            {' '}
                            (its events cannot be deleted;{' '}
                            {cleanup.status === 'ok'
                              ? 'its open offenses were closed instead'
                              : 'closing its open offenses instead did not fully work'}
                            , see Offenses closed)
                          </span>
                        ) : null}
                      </span>
                    );
                  })}
                </dd>
              </>
            ) : null}
            {offenses.length > 0 ? (
              <>
                <dt id={`${ids}-offenses`}>Offenses closed</dt>
                <dd>
                  <ul aria-labelledby={`${ids}-offenses`}>
                    {offenses.map((c) => (
                      <li key={c.siem}>
                        {c.siem}: {offenseCount(c)} — <span className={`state-${c.status}`}>{c.status}</span>
                        {c.error ? <span className="state-failed">: {c.error}</span> : null}
                      </li>
                    ))}
                  </ul>
                </dd>
              </>
            ) : null}
            <dt>Noise jobs run again</dt>
            <dd>
              {mutation.data.body.re_fired.length > 0 ? (
                <ul>
                  {mutation.data.body.re_fired.map((r) => (
                    <li key={r.siem}>
                      {r.siem}: {r.job_ids.length} job{r.job_ids.length === 1 ? '' : 's'}{' '}
                      <span className="muted">({r.job_ids.join(', ')})</span>
                    </li>
                  ))}
                </ul>
              ) : (
                'none'
              )}
            </dd>
            <dt>Re-run errors</dt>
            <dd>
              {mutation.data.body.re_fire_errors.length > 0 ? (
                <ul className="state-failed">
                  {mutation.data.body.re_fire_errors.map((message) => (
                    <li key={message}>{message}</li>
                  ))}
                </ul>
              ) : (
                'none'
              )}
            </dd>
          </dl>
        </section>
      ) : null}
    </>
  );
}
