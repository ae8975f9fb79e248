import { ApiError } from '../api/client.ts';

/** An API error for a person: its message, and its code for support; nothing when there is none. */
export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof ApiError ? error.code : undefined;
  return (
    <div role="alert" className="error-notice">
      {message}
      {code ? <span className="error-code"> ({code})</span> : null}
    </div>
  );
}

/** The message the API gave for one field (details.fields), next to that field. */
export function FieldError({ error, field, id }: { error: unknown; field: string; id?: string }) {
  if (!(error instanceof ApiError)) return null;
  const message = error.fields[field];
  if (!message) return null;
  return (
    <span className="field-error" id={id} role="alert">
      {message}
    </span>
  );
}
