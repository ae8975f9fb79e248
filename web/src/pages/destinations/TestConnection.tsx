import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { api, call } from '../../api/client.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import type { CheckResult } from './types.ts';

/** The answer of a live check, step by step: each step's name, ok or failed, and its message. */
export function CheckResultView({ result }: { result: CheckResult }) {
  const failed = result.checks.filter((c) => !c.ok).length;
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);
  return (
    <div className="check-result">
      <h3 ref={headingRef} tabIndex={-1} className={result.ok ? 'state-ok' : 'state-failed'}>
        {result.ok
          ? `Connection works: every check passed (${result.duration_ms} ms)`
          : result.checks.length === 0
            ? `Connection not confirmed: the check ran no steps (${result.duration_ms} ms)`
            : `Connection failed: ${failed} of ${result.checks.length} checks failed (${result.duration_ms} ms)`}
      </h3>
      <ol className="check-steps">
        {result.checks.map((step, i) => (
          // Step names may repeat across endpoints; their order is what identifies them.
          // biome-ignore lint/suspicious/noArrayIndexKey: the list is replaced as a whole, never reordered
          <li key={i} className={step.ok ? 'check-step ok' : 'check-step failed'}>
            <span className="check-name">{step.name}</span>{' '}
            <span className={step.ok ? 'state-ok' : 'state-failed'}>{step.ok ? 'ok' : 'failed'}</span>
            <span className="check-message">{step.message}</span>
            {step.endpoint ? <span className="muted check-endpoint">{step.endpoint}</span> : null}
          </li>
        ))}
      </ol>
    </div>
  );
}

/** "Test connection": runs the destination's live check against its saved settings. */
export function TestConnection({ name }: { name: string }) {
  const check = useMutation({
    mutationFn: () => call(api.POST('/api/destinations/{name}/test', { params: { path: { name } } })),
  });
  return (
    <div className="test-connection">
      <p className="muted">Checks the saved settings against the SIEM; unsaved changes are not used.</p>
      <div className="toolbar">
        <button type="button" className="secondary" disabled={check.isPending} onClick={() => check.mutate()}>
          {check.isPending ? 'Testing…' : 'Test connection'}
        </button>
      </div>
      <div aria-live="polite" aria-busy={check.isPending}>
        {check.isPending ? (
          <p className="check-pending">
            <progress aria-label="Connection test in progress" /> Checking {name}… this can take up to 30
            seconds.
          </p>
        ) : null}
        {!check.isPending && check.data ? (
          <CheckResultView key={check.submittedAt} result={check.data} />
        ) : null}
      </div>
      {!check.isPending ? <ErrorNotice error={check.error} /> : null}
    </div>
  );
}
