import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, call } from '../../api/client.ts';
import { ErrorNotice, FieldError } from '../../components/ErrorNotice.tsx';
import { allCapabilities, CAPABILITY_HELP, type Role } from './capabilities.ts';
import { fieldInvalid, useFocusOnError } from './form-helpers.tsx';
import { Notice, type NoticeState } from './Notice.tsx';

const ROLE_NAME_HELP = 'Lower-case letters, digits, - and _, starting with a letter; at most 63 characters.';

/** What a role's protection is, as the API enforces it. */
function protection(role: Pick<Role, 'name' | 'builtin'>): string | null {
  if (role.name === 'admin')
    return 'Built in: always holds every capability; it cannot be changed or deleted.';
  if (role.builtin) return 'Built in: its capabilities can be changed, but it cannot be deleted.';
  return null;
}

/** The roles with their capabilities; delete in place (built-in ones cannot be). */
export function RoleList() {
  const queryClient = useQueryClient();
  const roles = useQuery({ queryKey: ['roles'], queryFn: () => call(api.GET('/api/roles')) });
  const [confirming, setConfirming] = useState<string | null>(null);
  const errorRef = useRef<HTMLDivElement>(null);
  const remove = useMutation({
    mutationFn: (name: string) => call(api.DELETE('/api/roles/{name}', { params: { path: { name } } })),
    onSuccess: async () => {
      setConfirming(null);
      await queryClient.invalidateQueries({ queryKey: ['roles'] });
      await queryClient.invalidateQueries({ queryKey: ['users'] });
      // A role the signed-in user holds may have changed: their navigation follows.
      await queryClient.invalidateQueries({ queryKey: ['me'] });
    },
  });
  useFocusOnError(remove.error, errorRef);

  return (
    <>
      <h1>Roles</h1>
      <Notice message={remove.isSuccess ? `Role ${remove.variables} deleted.` : null} />
      <div className="toolbar">
        <Link to="/users/roles/new">New role</Link>
      </div>
      <div data-error-focus tabIndex={-1} ref={errorRef}>
        <ErrorNotice error={remove.error} />
      </div>
      {roles.isPending ? <p className="loading">Loading roles…</p> : null}
      <ErrorNotice error={roles.error} />
      {roles.data ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Role</th>
              <th scope="col">Capabilities</th>
              <th scope="col">Kind</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {roles.data.map((role) => (
              <tr key={role.name}>
                <td>
                  <Link to={`/users/roles/${encodeURIComponent(role.name)}`}>{role.name}</Link>
                </td>
                <td>
                  {role.permissions.length > 0 ? (
                    role.permissions.join(', ')
                  ) : (
                    <span className="muted">none</span>
                  )}
                </td>
                <td>{role.builtin ? 'built in' : 'custom'}</td>
                <td>
                  {role.builtin ? (
                    <span className="muted">cannot be deleted</span>
                  ) : confirming === role.name ? (
                    <div className="users-row-actions">
                      <button
                        type="button"
                        className="danger"
                        disabled={remove.isPending}
                        onClick={() => remove.mutate(role.name)}
                      >
                        {remove.isPending ? 'Deleting…' : `Delete ${role.name}`}
                      </button>
                      <button type="button" className="secondary" onClick={() => setConfirming(null)}>
                        Keep
                      </button>
                    </div>
                  ) : (
                    <button
                      type="button"
                      className="secondary"
                      aria-label={`Delete role ${role.name}…`}
                      onClick={() => setConfirming(role.name)}
                    >
                      Delete…
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

/** Create a role (/users/roles/new) or change one's capabilities (/users/roles/:name). */
export function RoleEdit() {
  const { name } = useParams();
  const roles = useQuery({ queryKey: ['roles'], queryFn: () => call(api.GET('/api/roles')) });
  const role = name === undefined ? undefined : roles.data?.find((r) => r.name === name);
  return (
    <>
      <h1>{name === undefined ? 'New role' : `Role ${name}`}</h1>
      <p>
        <Link to="/users/roles">All roles</Link>
      </p>
      {roles.isPending ? <p className="loading">Loading roles…</p> : null}
      <ErrorNotice error={roles.error} />
      {roles.data && name !== undefined && !role ? (
        <p className="error-notice" role="alert">
          No role is named {name}.
        </p>
      ) : null}
      {roles.data && (name === undefined || role) ? (
        <RoleForm key={role?.updated_at ?? 'new'} role={role} roles={roles.data} />
      ) : null}
    </>
  );
}

function RoleForm({ role, roles }: { role: Role | undefined; roles: readonly Role[] }) {
  const id = useId();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [name, setName] = useState(role?.name ?? '');
  const [permissions, setPermissions] = useState<string[]>(role?.permissions ?? []);
  const form = useRef<HTMLFormElement>(null);
  const locked = role?.name === 'admin';
  const save = useMutation({
    mutationFn: () =>
      role
        ? call(
            api.PATCH('/api/roles/{name}', { params: { path: { name: role.name } }, body: { permissions } }),
          )
        : call(api.POST('/api/roles', { body: { name: name.trim(), permissions } })),
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: ['roles'] });
      await queryClient.invalidateQueries({ queryKey: ['users'] });
      // A role the signed-in user holds may have changed: their navigation follows.
      await queryClient.invalidateQueries({ queryKey: ['me'] });
      const state: NoticeState = { notice: `Role ${saved.name} ${role ? 'saved' : 'created'}.` };
      await navigate('/users/roles', { state });
    },
  });
  useFocusOnError(save.error, form);
  const toggle = (capability: string) =>
    setPermissions((current) =>
      current.includes(capability) ? current.filter((c) => c !== capability) : [...current, capability],
    );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!save.isPending && !locked) save.mutate();
  };
  const note = role ? protection(role) : null;

  return (
    <form ref={form} onSubmit={submit} noValidate>
      <section aria-labelledby={`${id}-heading`}>
        <h2 id={`${id}-heading`}>{role ? 'Capabilities' : 'Name and capabilities'}</h2>
        {note ? <p className="muted">{note}</p> : null}
        <div data-error-focus tabIndex={-1}>
          <ErrorNotice error={save.error} />
        </div>
        {role ? null : (
          <>
            <label htmlFor={`${id}-name`}>Name</label>
            <input
              id={`${id}-name`}
              value={name}
              onChange={(e) => setName(e.target.value)}
              autoComplete="off"
              aria-invalid={fieldInvalid(save.error, 'name')}
              aria-describedby={`${id}-name-help ${id}-name-error`}
            />
            <span className="muted" id={`${id}-name-help`}>
              {' '}
              {ROLE_NAME_HELP}
            </span>
            <FieldError error={save.error} field="name" id={`${id}-name-error`} />
          </>
        )}
        <fieldset className="users-caps" aria-describedby={`${id}-permissions-error`} disabled={locked}>
          <legend>Capabilities</legend>
          <ul className="users-checks">
            {allCapabilities(roles).map((capability) => (
              <li key={capability}>
                <input
                  type="checkbox"
                  id={`${id}-${capability}`}
                  checked={permissions.includes(capability)}
                  onChange={() => toggle(capability)}
                />
                <label htmlFor={`${id}-${capability}`}>{capability}</label>
                <span className="muted">{CAPABILITY_HELP[capability] ?? ''}</span>
              </li>
            ))}
          </ul>
          <FieldError error={save.error} field="permissions" id={`${id}-permissions-error`} />
        </fieldset>
        {role ? (
          <p className="muted">Users holding this role get the new capabilities on their next request.</p>
        ) : null}
        <div className="toolbar users-actions">
          <button type="submit" disabled={locked || save.isPending}>
            {save.isPending ? 'Saving…' : role ? 'Save role' : 'Create role'}
          </button>
          <Link to="/users/roles">Cancel</Link>
        </div>
      </section>
    </form>
  );
}
