import { useMutation, useQueryClient } from '@tanstack/react-query';
import { NavLink, Outlet, useNavigate } from 'react-router';
import { api, call } from '../api/client.ts';
import { useMe } from '../api/session.ts';
import { ErrorNotice } from './ErrorNotice.tsx';

/** A page of the console and the capability it needs (null: every signed-in user). */
export interface NavItem {
  readonly to: string;
  readonly label: string;
  readonly capability: string | null;
}

/** The console's pages, in navigation order; a user sees those their capabilities allow. */
export const NAV_ITEMS: readonly NavItem[] = [
  { to: '/', label: 'Dashboard', capability: null },
  { to: '/destinations', label: 'SIEM destinations', capability: 'manage_destinations' },
  { to: '/noise', label: 'Noise', capability: 'manage_noise_logs' },
  { to: '/wipe', label: 'Wipe', capability: 'manage_exercises' },
  { to: '/users', label: 'Users and roles', capability: 'manage_users' },
  { to: '/audit', label: 'Audit log', capability: 'manage_users' },
];

/** The frame of every signed-in page: navigation, the user, sign-out, and the page. */
export function Layout() {
  const me = useMe();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const signOut = useMutation({
    mutationFn: () => call(api.POST('/logout')),
    // Only once the service ended the session: on a shared machine a failed sign-out must show.
    onSuccess: () => {
      queryClient.clear();
      void navigate('/sign-in');
    },
  });
  const capabilities = new Set(me.data?.user.capabilities ?? []);
  const items = NAV_ITEMS.filter((item) => item.capability === null || capabilities.has(item.capability));
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Socdrill</span>
        <nav aria-label="Main">
          <ul>
            {items.map((item) => (
              <li key={item.to}>
                <NavLink to={item.to} end={item.to === '/'}>
                  {item.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="user">
          <span>{me.data?.user.display_name || me.data?.user.email}</span>
          <button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
            Sign out
          </button>
        </div>
      </header>
      {signOut.error ? (
        <div className="signout-error">
          <ErrorNotice error={signOut.error} />
        </div>
      ) : null}
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
