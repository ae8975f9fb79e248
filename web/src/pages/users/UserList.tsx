import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef } from 'react';
import { Link } from 'react-router';
import { api, call } from '../../api/client.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { useFocusOnError } from './form-helpers.tsx';
import { Notice } from './Notice.tsx';

/** The users, with enable/disable in place and a link to each user's page. */
export function UserList() {
  const queryClient = useQueryClient();
  const users = useQuery({ queryKey: ['users'], queryFn: () => call(api.GET('/api/users')) });
  const toggle = useMutation({
    mutationFn: (v: { id: string; disabled: boolean }) =>
      call(api.PATCH('/api/users/{id}', { params: { path: { id: v.id } }, body: { disabled: v.disabled } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['users'] }),
  });
  const errorRef = useRef<HTMLDivElement>(null);
  useFocusOnError(toggle.error, errorRef);
  const done = toggle.data
    ? `${toggle.data.email} is now ${toggle.data.disabled ? 'disabled (their sessions ended)' : 'enabled'}.`
    : null;

  return (
    <>
      <h1>Users</h1>
      <Notice message={done} />
      <div className="toolbar">
        <Link to="/users/new">New user</Link>
      </div>
      <div data-error-focus tabIndex={-1} ref={errorRef}>
        <ErrorNotice error={toggle.error} />
      </div>
      {users.isPending ? <p className="loading">Loading users…</p> : null}
      <ErrorNotice error={users.error} />
      {users.data ? (
        <table>
          <caption className="muted">{users.data.length} users</caption>
          <thead>
            <tr>
              <th scope="col">E-mail</th>
              <th scope="col">Name</th>
              <th scope="col">Roles</th>
              <th scope="col">Status</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {users.data.map((user) => {
              const busy = toggle.isPending && toggle.variables?.id === user.id;
              return (
                <tr key={user.id}>
                  <td>
                    <Link to={`/users/${user.id}`}>{user.email}</Link>
                  </td>
                  <td>{user.display_name || <span className="muted">—</span>}</td>
                  <td>
                    {user.roles.length > 0 ? user.roles.join(', ') : <span className="muted">none</span>}
                  </td>
                  <td>{user.disabled ? <span className="users-disabled">Disabled</span> : 'Enabled'}</td>
                  <td>
                    <div className="users-row-actions">
                      <button
                        type="button"
                        className="secondary"
                        disabled={busy}
                        aria-label={`${user.disabled ? 'Enable' : 'Disable'} ${user.email}`}
                        onClick={() => toggle.mutate({ id: user.id, disabled: !user.disabled })}
                      >
                        {busy ? 'Saving…' : user.disabled ? 'Enable' : 'Disable'}
                      </button>
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
    </>
  );
}
