import type { AppContext } from '../context.ts';
import type { Capability } from './capabilities.ts';
import { dummyPasswordHash, hashPassword, needsRehash, verifyPassword } from './passwords.ts';
import { createSession, loadCapabilities } from './sessions.ts';

/** The outcome of a sign-in attempt. */
export type SignInResult =
  | { kind: 'throttled'; retryAfter: number }
  | { kind: 'refused' }
  | {
      kind: 'ok';
      user: { userId: string; email: string; displayName: string; capabilities: Set<Capability> };
      startSession(meta: { ip: string | null; userAgent: string | null }): Promise<{ token: string }>;
    };

/**
 * Checks credentials with throttling per account and per address. Unknown accounts, disabled
 * accounts and wrong passwords are indistinguishable (same answer, a hash verified either way).
 */
export async function signIn(
  ctx: Pick<AppContext, 'db' | 'clock' | 'loginThrottle' | 'sessionPolicy'>,
  attempt: { email: string; password: string; ip: string },
): Promise<SignInResult> {
  const retryAfter = ctx.loginThrottle.retryAfter(attempt.email, attempt.ip);
  if (retryAfter > 0) return { kind: 'throttled', retryAfter };

  const row = await ctx.db
    .selectFrom('users')
    .select(['id', 'email', 'display_name', 'password_hash', 'disabled'])
    .where('email', '=', attempt.email)
    .executeTakeFirst();
  const valid = await verifyPassword(row?.password_hash ?? (await dummyPasswordHash()), attempt.password);
  if (!row || !valid || row.disabled) {
    ctx.loginThrottle.recordFailure(attempt.email, attempt.ip);
    return { kind: 'refused' };
  }
  ctx.loginThrottle.recordSuccess(attempt.email);
  if (needsRehash(row.password_hash)) {
    const upgraded = await hashPassword(attempt.password);
    await ctx.db.updateTable('users').set({ password_hash: upgraded }).where('id', '=', row.id).execute();
  }
  return {
    kind: 'ok',
    user: {
      userId: row.id,
      email: row.email,
      displayName: row.display_name,
      capabilities: await loadCapabilities(ctx.db, row.id),
    },
    startSession: (meta) => createSession(ctx.db, ctx.clock, ctx.sessionPolicy, row.id, meta),
  };
}
