import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { BrowserRouter, Navigate, Route, Routes, useLocation } from 'react-router';
import { ApiError } from './api/client.ts';
import { useMe } from './api/session.ts';
import { ErrorNotice } from './components/ErrorNotice.tsx';
import { Layout, NAV_ITEMS } from './components/Layout.tsx';
import { AuditPage } from './pages/audit/AuditPage.tsx';
import { DashboardPage } from './pages/dashboard/DashboardPage.tsx';
import { DestinationsPage } from './pages/destinations/DestinationsPage.tsx';
import { NoisePage } from './pages/noise/NoisePage.tsx';
import { SignInPage } from './pages/SignInPage.tsx';
import { UsersPage } from './pages/users/UsersPage.tsx';
import { WipePage } from './pages/wipe/WipePage.tsx';

/** Sends a request that found no session (401) to sign-in, remembering where the user was. */
function onUnauthenticated(error: unknown): void {
  if (!(error instanceof ApiError) || error.status !== 401) return;
  const here = window.location.pathname + window.location.search;
  if (window.location.pathname.startsWith('/sign-in')) return;
  window.location.assign(`/sign-in?expired=1&next=${encodeURIComponent(here)}`);
}

/** A query client whose 401s, from any page, end at sign-in. */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({ onError: onUnauthenticated }),
    mutationCache: new MutationCache({ onError: onUnauthenticated }),
    defaultOptions: {
      queries: { retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2 },
    },
  });
}

// Pages need a signed-in user: without one, sign-in first and back here after.
function RequireSignIn({ children }: { children: ReactNode }) {
  const me = useMe();
  const location = useLocation();
  if (me.isPending) return <p className="loading">Loading…</p>;
  if (me.error instanceof ApiError && me.error.status === 401) {
    const next = encodeURIComponent(location.pathname + location.search);
    return <Navigate to={`/sign-in?next=${next}`} replace />;
  }
  // The service is unreachable or failing: the session may well be fine, so no sign-in form.
  if (me.error) {
    return (
      <main className="sign-in" id="main">
        <h1>Socdrill is not answering</h1>
        <ErrorNotice error={me.error} />
        <button type="button" onClick={() => void me.refetch()}>
          Try again
        </button>
      </main>
    );
  }
  return children;
}

// A page the user's capabilities do not allow: said plainly (the API would answer 403 anyway).
function RequireCapability({ path, children }: { path: string; children: ReactNode }) {
  const me = useMe();
  const needed = NAV_ITEMS.find((item) => item.to === path)?.capability ?? null;
  if (needed !== null && !me.data?.user.capabilities.includes(needed)) {
    return (
      <section aria-labelledby="forbidden">
        <h1 id="forbidden">Not allowed</h1>
        <p>
          This page needs the <code>{needed}</code> capability, which your roles do not give you.
        </p>
      </section>
    );
  }
  return children;
}

/** The console: routes, data fetching, sign-in. */
export function App({ client }: { client?: QueryClient }) {
  const [queryClient] = useState(() => client ?? createQueryClient());
  const guarded = (path: string, page: ReactNode) => (
    <RequireCapability path={path}>{page}</RequireCapability>
  );
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <Routes>
          <Route path="/sign-in" element={<SignInPage />} />
          <Route
            element={
              <RequireSignIn>
                <Layout />
              </RequireSignIn>
            }
          >
            <Route index element={<DashboardPage />} />
            <Route path="destinations/*" element={guarded('/destinations', <DestinationsPage />)} />
            <Route path="noise/*" element={guarded('/noise', <NoisePage />)} />
            <Route path="wipe" element={guarded('/wipe', <WipePage />)} />
            <Route path="users/*" element={guarded('/users', <UsersPage />)} />
            <Route path="audit" element={guarded('/audit', <AuditPage />)} />
            <Route
              path="*"
              element={
                <section>
                  <h1>Not found</h1>
                  <p>No page of the console has this address.</p>
                </section>
              }
            />
          </Route>
        </Routes>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
