import { useMutation } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError, api, call } from '../../api/client.ts';
import { ErrorNotice, FieldError } from '../../components/ErrorNotice.tsx';
import {
  allFields,
  buildFormModel,
  type FormField,
  type FormValues,
  initialValues,
  toRequestBody,
} from './settings-form.ts';
import type { CreateBody, DestinationView, PatchBody, SiemKind } from './types.ts';

/** The DOM id of a field's input. */
export function fieldId(path: string): string {
  return `destination-${path.replaceAll('.', '--')}`;
}

/** What a stored secret's row is doing: kept, being replaced (typed), or cleared on save. */
type SecretMode = 'keep' | 'replace' | 'clear';

interface FieldProps {
  readonly field: FormField;
  readonly value: string | boolean;
  readonly error: unknown;
  readonly inGroup: boolean;
  /** For a secret of a stored destination: whether one is stored, and what the user does with it. */
  readonly secretSet: boolean;
  readonly secretMode: SecretMode;
  readonly onChange: (value: string | boolean) => void;
  readonly onSecretMode: (mode: SecretMode) => void;
}

function hasFieldError(error: unknown, path: string): boolean {
  return error instanceof ApiError && typeof error.fields[path] === 'string';
}

/** One setting: its label (required marked), input, hint and the API's message for it. */
function SettingField({
  field,
  value,
  error,
  inGroup,
  secretSet,
  secretMode,
  onChange,
  onSecretMode,
}: FieldProps) {
  const id = fieldId(field.path);
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const invalid = hasFieldError(error, field.path);
  const hint = [
    field.description,
    field.type === 'boolean' && field.defaultValue !== undefined
      ? `default: ${field.defaultValue ? 'on' : 'off'}`
      : undefined,
  ]
    .filter(Boolean)
    .join('; ');
  const describedBy = [hint ? hintId : '', invalid ? errorId : ''].filter(Boolean).join(' ') || undefined;
  const label = (
    <>
      {field.label}
      {field.required ? (
        <>
          {' '}
          <span className="required-mark">(required{inGroup ? ' when this group is used' : ''})</span>
        </>
      ) : null}
    </>
  );
  const hintNode = hint ? (
    <span className="field-hint muted" id={hintId}>
      {hint}
    </span>
  ) : null;
  const errorNode = <FieldError error={error} field={field.path} id={errorId} />;
  const text = typeof value === 'string' ? value : '';

  if (field.secret && secretSet && secretMode !== 'replace') {
    const labelId = `${id}-label`;
    return (
      <fieldset className="setting secret-stored" id={labelId}>
        <legend className="setting-label">{label}</legend>
        <div className="secret-row">
          {secretMode === 'clear' ? (
            <>
              <span className="state-unknown">cleared on save</span>
              <button type="button" className="secondary" onClick={() => onSecretMode('keep')}>
                Undo
              </button>
            </>
          ) : (
            <>
              <span className="secret-set">set</span>
              <button
                type="button"
                className="secondary"
                aria-label={`Replace ${field.label}`}
                onClick={() => onSecretMode('replace')}
              >
                Replace
              </button>
              {field.required ? null : (
                <button
                  type="button"
                  className="secondary"
                  aria-label={`Clear ${field.label}`}
                  onClick={() => onSecretMode('clear')}
                >
                  Clear
                </button>
              )}
            </>
          )}
        </div>
        {hintNode}
        {errorNode}
      </fieldset>
    );
  }

  const common = {
    id,
    'aria-describedby': describedBy,
    'aria-invalid': invalid || undefined,
    'aria-required': field.required || undefined,
  };
  let input: ReactNode;
  switch (field.type) {
    case 'boolean':
      return (
        <div className="setting setting-check">
          <div className="check-row">
            <input
              {...common}
              type="checkbox"
              checked={value === true}
              onChange={(e) => onChange(e.target.checked)}
            />
            <label htmlFor={id}>{label}</label>
          </div>
          {hintNode}
          {errorNode}
        </div>
      );
    case 'enum':
      input = (
        <select {...common} value={text} onChange={(e) => onChange(e.target.value)}>
          {field.required && text !== '' ? null : (
            <option value="">
              {field.defaultValue !== undefined ? `default (${String(field.defaultValue)})` : '(not set)'}
            </option>
          )}
          {(field.options ?? []).map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      );
      break;
    case 'multiline':
      input = (
        <textarea
          {...common}
          className="multiline"
          rows={6}
          spellCheck={false}
          value={text}
          placeholder={field.defaultValue !== undefined ? String(field.defaultValue) : undefined}
          onChange={(e) => onChange(e.target.value)}
        />
      );
      break;
    default:
      input = (
        <input
          {...common}
          type={field.secret ? 'password' : 'text'}
          inputMode={field.type === 'integer' ? 'numeric' : field.type === 'number' ? 'decimal' : undefined}
          autoComplete={field.secret ? 'new-password' : 'off'}
          spellCheck={false}
          value={text}
          placeholder={field.defaultValue !== undefined ? String(field.defaultValue) : undefined}
          onChange={(e) => onChange(e.target.value)}
        />
      );
  }
  return (
    <div className="setting">
      <label htmlFor={id}>{label}</label>
      {field.secret && secretSet ? (
        <div className="secret-row">
          {input}
          <button type="button" className="secondary" onClick={() => onSecretMode('keep')}>
            Keep current
          </button>
        </div>
      ) : (
        input
      )}
      {field.secret && !secretSet ? (
        <span className="muted secret-note">write-only: never shown again</span>
      ) : null}
      {hintNode}
      {errorNode}
    </div>
  );
}

/** The fields of an error that the form shows next to a field. */
function unplacedFields(error: unknown, paths: ReadonlySet<string>): string[] {
  if (!(error instanceof ApiError)) return [];
  return Object.keys(error.fields).filter((f) => !paths.has(f));
}

export interface DestinationFormProps {
  readonly kind: SiemKind;
  /** The stored destination for an edit; absent for a new one. */
  readonly destination?: DestinationView;
  readonly onSaved: (view: DestinationView) => void;
}

/**
 * A destination's form, built from its kind's settings schema: only that kind's fields, secrets
 * write-only. Creates (POST) or changes (PATCH, only what changed); the API's 400 messages appear
 * next to the fields they name, and focus moves to the first of them.
 */
export function DestinationForm({ kind, destination, onSaved }: DestinationFormProps) {
  const mode = destination ? 'edit' : 'create';
  const model = useMemo(() => buildFormModel(kind, mode), [kind, mode]);
  // Frozen at mount, like `values`: a refetch of the destination (another admin's change) must not
  // turn fields this user left alone into "changes" back to the values the form started from.
  const [initial] = useState<FormValues>(() => initialValues(model, destination));
  const [values, setValues] = useState<FormValues>(initial);
  const [secretModes, setSecretModes] = useState<Record<string, SecretMode>>({});
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const errorRef = useRef<HTMLDivElement>(null);
  const paths = useMemo(() => new Set(allFields(model).map((f) => f.path)), [model]);
  const [secretsSet] = useState<ReadonlySet<string>>(() => new Set(destination?.secrets_set ?? []));

  const save = useMutation({
    mutationFn: (body: Record<string, unknown>) =>
      destination
        ? call(
            api.PATCH('/api/destinations/{name}', {
              params: { path: { name: destination.name } },
              // Checked by the service against the kind's settings schema, which names every bad field.
              body: body as PatchBody,
            }),
          )
        : call(api.POST('/api/destinations', { body: { ...body, driver: kind.name } as CreateBody })),
    onSuccess: (view) => {
      setError(null);
      onSaved(view);
    },
    onError: setError,
  });

  // After a failed save, focus goes to the first field the error names, else to the notice.
  useEffect(() => {
    if (!error) return;
    const first = allFields(model).find((f) => hasFieldError(error, f.path));
    const target = first ? document.getElementById(fieldId(first.path)) : null;
    const button = first ? document.querySelector<HTMLElement>(`#${fieldId(first.path)}-label button`) : null;
    (target ?? button ?? errorRef.current)?.focus();
  }, [error, model]);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setNotice(null);
    const cleared = Object.entries(secretModes)
      .filter(([, m]) => m === 'clear')
      .map(([p]) => p);
    const { body, errors } = toRequestBody(
      model,
      values,
      destination ? { initial, secretsSet: [...secretsSet], cleared } : undefined,
    );
    if (Object.keys(errors).length > 0) {
      setError(new ApiError(400, 'invalid_input', 'Check the marked fields.', { fields: errors }));
      return;
    }
    if (destination && Object.keys(body).length === 0) {
      setError(null);
      setNotice('Nothing changed.');
      return;
    }
    save.mutate(body);
  };

  const unplaced = unplacedFields(error, paths);
  const summary =
    error instanceof ApiError && Object.keys(error.fields).length > 0 && unplaced.length === 0
      ? new ApiError(error.status, error.code, 'Some settings need attention: see the marked fields.')
      : error;

  return (
    <form className="destination-form" noValidate onSubmit={onSubmit} aria-label={`${kind.title} settings`}>
      <div ref={errorRef} tabIndex={-1} className="form-errors">
        <ErrorNotice error={summary} />
      </div>
      {model.sections.map((section) => {
        const fields = section.fields.map((field) => (
          <SettingField
            key={field.path}
            field={field}
            value={values[field.path] ?? ''}
            error={error}
            inGroup={section.path !== ''}
            secretSet={field.secret && secretsSet.has(field.path)}
            secretMode={secretModes[field.path] ?? 'keep'}
            onChange={(value) => setValues((v) => ({ ...v, [field.path]: value }))}
            onSecretMode={(next) => {
              setSecretModes((m) => ({ ...m, [field.path]: next }));
              if (next !== 'replace') setValues((v) => ({ ...v, [field.path]: '' }));
              // The input appears on the next render; focus it there.
              if (next === 'replace')
                setTimeout(() => document.getElementById(fieldId(field.path))?.focus(), 0);
            }}
          />
        ));
        if (section.path === '') {
          return (
            <fieldset key={`top:${section.label}`} className="settings-section">
              <legend>{section.label}</legend>
              {fields}
            </fieldset>
          );
        }
        return (
          <fieldset key={section.path} className="settings-section settings-group">
            <legend>{section.label}</legend>
            <p className="muted group-hint">
              {section.description ? `${section.description}. ` : ''}Optional: leave every field empty to not
              use it{destination ? ' (or to remove it)' : ''}.
            </p>
            <FieldError error={error} field={section.path} />
            {fields}
          </fieldset>
        );
      })}
      {model.unsupported.length > 0 ? (
        <p className="muted">Not editable here (set through the API): {model.unsupported.join(', ')}.</p>
      ) : null}
      <div className="toolbar form-actions">
        <button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : destination ? 'Save changes' : 'Create destination'}
        </button>
        <span role="status" className="muted">
          {notice}
        </span>
      </div>
    </form>
  );
}
