import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, call } from '../../api/client.ts';
import { ErrorNotice, FieldError } from '../../components/ErrorNotice.tsx';
import type { Role, User } from './capabilities.ts';
import { fieldInvalid, useFocusOnError } from './form-helpers.tsx';
import { Notice, type NoticeState } from './Notice.tsx';
import { RolePicker } from './RolePicker.tsx';

type UserPatch = {
  email?: string;
  display_name?: string;
  roles?: string[];
  disabled?: boolean;
  password?: string;
};

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

/** One user: details and roles, enable/disable, a new password, deletion. */
export function UserEdit() {
  const { id = '' } = useParams();
  const user = useQuery({
    queryKey: ['users', id],
    queryFn: () => call(api.GET('/api/users/{id}', { params: { path: { id } } })),
  });
  const roles = useQuery({ queryKey: ['roles'], queryFn: () => call(api.GET('/api/roles')) });
  // Kept here: a saved change remounts the forms below (new version), the confirmation stays.
  const [notice, setNotice] = useState<string | null>(null);
  return (
    <>
      <h1>{user.data ? `User ${user.data.email}` : 'User'}</h1>
      <p>
        <Link to="/users">All users</Link>
      </p>
      {user.isPending || roles.isPending ? <p className="loading">Loading…</p> : null}
      <ErrorNotice error={user.error ?? roles.error} />
      <Notice message={notice} />
      {user.data && roles.data ? (
        // Keyed by the version: a saved change starts the forms again from what the API answered.
        <UserForms key={user.data.updated_at} user={user.data} roles={roles.data} onSaved={setNotice} />
      ) : null}
    </>
  );
}

function UserForms({
  user,
  roles,
  onSaved,
}: {
  user: User;
  roles: readonly Role[];
  onSaved: (message: string) => void;
}) {
  const id = useId();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [email, setEmail] = useState(user.email);
  const [displayName, setDisplayName] = useState(user.display_name);
  const [chosen, setChosen] = useState<string[]>(user.roles);
  const [password, setPassword] = useState('');
  const [confirmDelete, setConfirmDelete] = useState(false);
  const detailsForm = useRef<HTMLFormElement>(null);
  const passwordForm = useRef<HTMLFormElement>(null);
  const statusArea = useRef<HTMLDivElement>(null);
  const confirmDeleteButton = useRef<HTMLButtonElement>(null);
  const deleteButton = useRef<HTMLButtonElement>(null);
  const wasConfirming = useRef(false);

  const patch = (body: UserPatch) =>
    call(api.PATCH('/api/users/{id}', { params: { path: { id: user.id } }, body }));
  const saved = async (updated: User, message: string) => {
    onSaved(message);
    queryClient.setQueryData(['users', user.id], updated);
    await queryClient.invalidateQueries({ queryKey: ['users'], exact: true });
  };

  const details = useMutation({
    mutationFn: () => {
      const body: UserPatch = {};
      if (email.trim() !== user.email) body.email = email.trim();
      if (displayName.trim() !== user.display_name) body.display_name = displayName.trim();
      // Only a real change of roles is sent: a new role set ends the user's sessions.
      if (!sameSet(chosen, user.roles)) body.roles = chosen;
      return patch(body);
    },
    onSuccess: (u) => saved(u, `Saved ${u.email}.`),
  });
  const reset = useMutation({
    mutationFn: () => patch({ password }),
    onSuccess: (u) => saved(u, `New password set for ${u.email}; their sessions ended.`),
  });
  const status = useMutation({
    mutationFn: () => patch({ disabled: !user.disabled }),
    onSuccess: (u) =>
      saved(u, u.disabled ? `${u.email} is disabled; their sessions ended.` : `${u.email} is enabled.`),
  });
  const remove = useMutation({
    mutationFn: () => call(api.DELETE('/api/users/{id}', { params: { path: { id: user.id } } })),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: ['users', user.id] });
      await queryClient.invalidateQueries({ queryKey: ['users'] });
      const state: NoticeState = { notice: `User ${user.email} deleted.` };
      await navigate('/users', { state });
    },
  });
  useFocusOnError(details.error, detailsForm);
  useFocusOnError(reset.error, passwordForm);
  useFocusOnError(status.error ?? remove.error, statusArea);
  // The delete confirmation takes focus when it opens and gives it back to "Delete user…" when kept.
  useEffect(() => {
    if (confirmDelete) confirmDeleteButton.current?.focus();
    else if (wasConfirming.current) deleteButton.current?.focus();
    wasConfirming.current = confirmDelete;
  }, [confirmDelete]);

  const onDetails = (event: FormEvent) => {
    event.preventDefault();
    if (!details.isPending) details.mutate();
  };
  const onReset = (event: FormEvent) => {
    event.preventDefault();
    if (!reset.isPending) reset.mutate();
  };
  const changed =
    email.trim() !== user.email || displayName.trim() !== user.display_name || !sameSet(chosen, user.roles);

  return (
    <>
      <form ref={detailsForm} onSubmit={onDetails} noValidate>
        <section aria-labelledby={`${id}-details`}>
          <h2 id={`${id}-details`}>Details and roles</h2>
          <div data-error-focus tabIndex={-1}>
            <ErrorNotice error={details.error} />
          </div>
          <label htmlFor={`${id}-email`}>E-mail</label>
          <input
            id={`${id}-email`}
            type="email"
            autoComplete="off"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            aria-invalid={fieldInvalid(details.error, 'email')}
            aria-describedby={`${id}-email-error`}
          />
          <FieldError error={details.error} field="email" id={`${id}-email-error`} />
          <label htmlFor={`${id}-name`}>Display name</label>
          <input
            id={`${id}-name`}
            value={displayName}
            onChange={(e) => setDisplayName(e.target.value)}
            aria-invalid={fieldInvalid(details.error, 'display_name')}
            aria-describedby={`${id}-name-error`}
          />
          <FieldError error={details.error} field="display_name" id={`${id}-name-error`} />
          <RolePicker roles={roles} chosen={chosen} onChange={setChosen} error={details.error} />
          <p className="muted">A change of roles ends the user's sessions; they sign in again.</p>
          <div className="toolbar users-actions">
            <button type="submit" disabled={!changed || details.isPending}>
              {details.isPending ? 'Saving…' : 'Save'}
            </button>
          </div>
        </section>
      </form>

      <form ref={passwordForm} onSubmit={onReset} noValidate>
        <section aria-labelledby={`${id}-password-heading`}>
          <h2 id={`${id}-password-heading`}>Reset password</h2>
          <div data-error-focus tabIndex={-1}>
            <ErrorNotice error={reset.error} />
          </div>
          <label htmlFor={`${id}-password`}>New password</label>
          <input
            id={`${id}-password`}
            type="password"
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            aria-invalid={fieldInvalid(reset.error, 'password')}
            aria-describedby={`${id}-password-help ${id}-password-error`}
          />
          <span className="muted" id={`${id}-password-help`}>
            {' '}
            At least 8 characters. Setting it ends the user's sessions.
          </span>
          <FieldError error={reset.error} field="password" id={`${id}-password-error`} />
          <div className="toolbar users-actions">
            <button type="submit" disabled={password === '' || reset.isPending}>
              {reset.isPending ? 'Setting…' : 'Set new password'}
            </button>
          </div>
        </section>
      </form>

      <section aria-labelledby={`${id}-status`} className="users-danger-zone">
        <h2 id={`${id}-status`}>Access</h2>
        <div ref={statusArea}>
          <div data-error-focus tabIndex={-1}>
            <ErrorNotice error={status.error ?? remove.error} />
          </div>
          <p>
            {user.disabled ? (
              <span className="users-disabled">This user is disabled and cannot sign in.</span>
            ) : (
              'This user can sign in.'
            )}
          </p>
          <div className="toolbar">
            <button
              type="button"
              className={user.disabled ? undefined : 'secondary'}
              disabled={status.isPending}
              onClick={() => status.mutate()}
            >
              {status.isPending ? 'Saving…' : user.disabled ? 'Enable user' : 'Disable user'}
            </button>
            {confirmDelete ? (
              <>
                <button
                  ref={confirmDeleteButton}
                  type="button"
                  className="danger"
                  disabled={remove.isPending}
                  onClick={() => remove.mutate()}
                >
                  {remove.isPending ? 'Deleting…' : `Delete ${user.email} for good`}
                </button>
                <button
                  type="button"
                  className="secondary"
                  disabled={remove.isPending}
                  onClick={() => setConfirmDelete(false)}
                >
                  Keep user
                </button>
              </>
            ) : (
              <button
                ref={deleteButton}
                type="button"
                className="secondary"
                onClick={() => setConfirmDelete(true)}
              >
                Delete user…
              </button>
            )}
          </div>
        </div>
      </section>
    </>
  );
}
