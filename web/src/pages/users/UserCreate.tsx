import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, call } from '../../api/client.ts';
import { ErrorNotice, FieldError } from '../../components/ErrorNotice.tsx';
import { fieldInvalid, useFocusOnError } from './form-helpers.tsx';
import type { NoticeState } from './Notice.tsx';
import { RolePicker } from './RolePicker.tsx';

/** Create a user: e-mail, display name, password and roles, with the capabilities those roles give. */
export function UserCreate() {
  const id = useId();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const roles = useQuery({ queryKey: ['roles'], queryFn: () => call(api.GET('/api/roles')) });
  const [email, setEmail] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [password, setPassword] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const form = useRef<HTMLFormElement>(null);
  const create = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/users', {
          body: {
            email: email.trim(),
            password,
            ...(displayName.trim() ? { display_name: displayName.trim() } : {}),
            roles: chosen,
          },
        }),
      ),
    onSuccess: async (user) => {
      await queryClient.invalidateQueries({ queryKey: ['users'] });
      const state: NoticeState = { notice: `User ${user.email} created.` };
      await navigate('/users', { state });
    },
  });
  useFocusOnError(create.error, form);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!create.isPending) create.mutate();
  };

  return (
    <>
      <h1>New user</h1>
      <form ref={form} onSubmit={submit} noValidate>
        <section aria-labelledby={`${id}-account`}>
          <h2 id={`${id}-account`}>Account</h2>
          <div data-error-focus tabIndex={-1}>
            <ErrorNotice error={create.error} />
          </div>
          <label htmlFor={`${id}-email`}>E-mail</label>
          <input
            id={`${id}-email`}
            type="email"
            autoComplete="off"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            aria-invalid={fieldInvalid(create.error, 'email')}
            aria-describedby={`${id}-email-error`}
          />
          <FieldError error={create.error} field="email" id={`${id}-email-error`} />
          <label htmlFor={`${id}-name`}>Display name (optional)</label>
          <input
            id={`${id}-name`}
            value={displayName}
            onChange={(e) => setDisplayName(e.target.value)}
            aria-invalid={fieldInvalid(create.error, 'display_name')}
            aria-describedby={`${id}-name-error`}
          />
          <FieldError error={create.error} field="display_name" id={`${id}-name-error`} />
          <label htmlFor={`${id}-password`}>Password</label>
          <input
            id={`${id}-password`}
            type="password"
            autoComplete="new-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            aria-invalid={fieldInvalid(create.error, 'password')}
            aria-describedby={`${id}-password-help ${id}-password-error`}
          />
          <span className="muted" id={`${id}-password-help`}>
            {' '}
            At least 8 characters, not a common password.
          </span>
          <FieldError error={create.error} field="password" id={`${id}-password-error`} />
        </section>
        <section aria-labelledby={`${id}-roles`}>
          <h2 id={`${id}-roles`}>Roles and capabilities</h2>
          {roles.isPending ? <p className="loading">Loading roles…</p> : null}
          <ErrorNotice error={roles.error} />
          {roles.data ? (
            <RolePicker roles={roles.data} chosen={chosen} onChange={setChosen} error={create.error} />
          ) : null}
        </section>
        <div className="toolbar users-actions">
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create user'}
          </button>
          <Link to="/users">Cancel</Link>
        </div>
      </form>
    </>
  );
}
