import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { api, call } from '../api/client.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';

/** Where to go after signing in: a path of this console only (never another origin). */
export function safeNext(next: string | null): string {
  // `//host` and `/\\host` leave the origin in a browser; back to sign-in would loop.
  if (next === null || !next.startsWith('/')) return '/';
  // Resolved as a browser would (it drops tabs and newlines, reads `\\` as `/`): another origin,
  // or sign-in itself, sends the user home instead.
  let url: URL;
  try {
    url = new URL(next, window.location.origin);
  } catch {
    return '/';
  }
  if (url.origin !== window.location.origin || url.pathname.startsWith('/sign-in')) return '/';
  return url.pathname + url.search + url.hash;
}

/** Local sign-in; afterwards the user lands where they were sent from (`?next=`). */
export function SignInPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const emailRef = useRef<HTMLInputElement>(null);
  useEffect(() => emailRef.current?.focus(), []);
  const signIn = useMutation({
    mutationFn: () => call(api.POST('/login', { body: { email, password } })),
    onSuccess: async (answer) => {
      queryClient.setQueryData(['me'], answer);
      await navigate(safeNext(params.get('next')), { replace: true });
    },
  });
  const expired = params.get('expired') === '1';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate();
  };
  return (
    <main className="sign-in" id="main">
      <h1>Sign in to Socdrill</h1>
      {expired ? <p role="status">Your session ended. Sign in again to continue where you were.</p> : null}
      <form onSubmit={submit} aria-label="Sign in">
        <label htmlFor="email">E-mail</label>
        <input
          id="email"
          ref={emailRef}
          type="email"
          autoComplete="username"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <label htmlFor="password">Password</label>
        <input
          id="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <ErrorNotice
          error={
            signIn.error && (signIn.error as { status?: number }).status === 401
              ? new Error('Wrong e-mail or password.')
              : signIn.error
          }
        />
        <button type="submit" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
