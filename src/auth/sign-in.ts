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
  const gate = ctx.loginThrottle.admit(attempt.email, attempt.ip);
  if (!gate.admitted) return { kind: 'throttled', retryAfter: gate.retryAfter };
  const { ticket } = gate;

  try {
    const row = await ctx.db
      .selectFrom('users')
      .select(['id', 'email', 'display_name', 'password_hash', 'disabled'])
      .where('email', '=', attempt.email)
      .executeTakeFirst();
    const valid = await verifyPassword(row?.password_hash ?? (await dummyPasswordHash()), attempt.password);
    if (!row || !valid || row.disabled) {
      ticket.failed();
      return { kind: 'refused' };
    }
    ticket.succeeded();
    return await signedIn(ctx, row, attempt.password);
  } finally {
    // Only when no verdict was reached (an error before the check): such an attempt counts neither way.
    ticket.release();
  }
}

/** Finishes a sign-in whose password was accepted: upgrades an old hash, loads capabilities. */
async function signedIn(
  ctx: Pick<AppContext, 'db' | 'clock' | 'sessionPolicy'>,
  row: { id: string; email: string; display_name: string; password_hash: string },
  password: string,
): Promise<SignInResult> {
  if (needsRehash(row.password_hash)) {
    const upgraded = await hashPassword(password);
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
