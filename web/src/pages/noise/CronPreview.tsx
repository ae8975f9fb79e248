import { useMemo } from 'react';
import { formatUtc, previewCron } from './cron-preview.ts';

/** The next five times a cron expression matches (UTC), computed in the browser as the service does. */
export function CronPreview({ expression, id, now }: { expression: string; id: string; now?: Date }) {
  const preview = useMemo(() => previewCron(expression, now ?? new Date()), [expression, now]);
  return (
    <div id={id} className="noise-cron-preview" aria-live="polite">
      {preview.problem !== undefined ? (
        <p className="muted">{preview.problem}</p>
      ) : (
        <>
          <p className="muted">Next five times (UTC, before jitter):</p>
          <ol aria-label="Next five run times">
            {preview.times.map((time) => (
              <li key={time.getTime()}>
                <time dateTime={time.toISOString()}>{formatUtc(time)}</time>
              </li>
            ))}
          </ol>
        </>
      )}
    </div>
  );
}
