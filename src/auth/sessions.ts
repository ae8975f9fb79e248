import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import { type Capability, isCapability } from './capabilities.ts';

/** Who is making a request. */
export type Actor =
  | {
      readonly kind: 'user';
      readonly userId: string;
      readonly email: string;
      readonly displayName: string;
      readonly capabilities: ReadonlySet<Capability>;
      /** Hash of the session that authenticated this request. */
      readonly sessionHash: string;
    }
  | { readonly kind: 'token' };

/** Session lifetimes in seconds. */
export interface SessionPolicy {
  idleSeconds: number;
  absoluteSeconds: number;
}

/** last_seen_at is written at most this often, so reads do not turn into writes on every request. */
const TOUCH_INTERVAL_MS = 60_000;

/** Session identifiers are stored only as their SHA-256. */
export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Creates a session for a user and returns its secret token (256 random bits). */
export async function createSession(
  db: Kysely<Database>,
  clock: Clock,
  policy: SessionPolicy,
  userId: string,
  meta: { ip: string | null; userAgent: string | null },
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const now = clock.now();
  const expiresAt = new Date(now + policy.absoluteSeconds * 1000);
  await db
    .insertInto('sessions')
    .values({
      id_hash: hashSessionToken(token),
      user_id: userId,
      created_at: new Date(now),
      last_seen_at: new Date(now),
      expires_at: expiresAt,
      ip: meta.ip,
      user_agent: meta.userAgent?.slice(0, 512) ?? null,
    })
    .execute();
  return { token, expiresAt };
}

/** A session found valid, and until when it stays valid if nothing changes. */
export interface ResolvedSession {
  readonly actor: Extract<Actor, { kind: 'user' }>;
  /** Epoch ms: the absolute expiry or the idle expiry, whichever comes first. */
  readonly validUntil: number;
}

/** Resolves a session token to its user, or null when unknown, expired, idle too long or disabled. */
export async function resolveSession(
  db: Kysely<Database>,
  clock: Clock,
  policy: SessionPolicy,
  token: string,
): Promise<ResolvedSession | null> {
  const idHash = hashSessionToken(token);
  // One round trip: the session, its user and the permissions of each of the user's roles (a row
  // per role; a user without roles gives one row with null permissions).
  const rows = await db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .leftJoin('user_roles', 'user_roles.user_id', 'users.id')
    .leftJoin('roles', 'roles.name', 'user_roles.role_name')
    .select([
      'sessions.id_hash',
      'sessions.last_seen_at',
      'sessions.expires_at',
      'users.id as user_id',
      'users.email',
      'users.display_name',
      'users.disabled',
      'roles.permissions',
    ])
    .where('sessions.id_hash', '=', idHash)
    .execute();
  const row = rows[0];
  if (!row) return null;
  const now = clock.now();
  const idleUntil = row.last_seen_at.getTime() + policy.idleSeconds * 1000;
  if (row.disabled || now >= row.expires_at.getTime() || now >= idleUntil) {
    await db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
    return null;
  }
  let lastSeen = row.last_seen_at.getTime();
  if (now - lastSeen >= TOUCH_INTERVAL_MS) {
    await db
      .updateTable('sessions')
      .set({ last_seen_at: new Date(now) })
      .where('id_hash', '=', idHash)
      .execute();
    lastSeen = now;
  }
  return {
    actor: {
      kind: 'user',
      userId: row.user_id,
      email: row.email,
      displayName: row.display_name,
      capabilities: capabilitiesOf(rows.map((r) => r.permissions)),
      sessionHash: idHash,
    },
    validUntil: Math.min(row.expires_at.getTime(), lastSeen + policy.idleSeconds * 1000),
  };
}

/** The union of the permissions of every role the user holds. */
export async function loadCapabilities(db: Kysely<Database>, userId: string): Promise<Set<Capability>> {
  const rows = await db
    .selectFrom('user_roles')
    .innerJoin('roles', 'roles.name', 'user_roles.role_name')
    .select('roles.permissions')
    .where('user_roles.user_id', '=', userId)
    .execute();
  return capabilitiesOf(rows.map((r) => r.permissions));
}

/** The capabilities among the permissions of some roles (null: no role). */
function capabilitiesOf(permissions: ReadonlyArray<readonly string[] | null>): Set<Capability> {
  const caps = new Set<Capability>();
  for (const list of permissions) for (const p of list ?? []) if (isCapability(p)) caps.add(p);
  return caps;
}

/** Ends one session. */
export async function deleteSession(db: Kysely<Database>, sessionHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('id_hash', '=', sessionHash).execute();
}

/** Ends every session of a user (password change, disable, delete). */
export async function deleteUserSessions(db: Kysely<Database>, userId: string): Promise<number> {
  const r = await db.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Removes sessions past their absolute or idle expiry. */
export async function pruneSessions(
  db: Kysely<Database>,
  clock: Clock,
  policy: SessionPolicy,
): Promise<number> {
  const now = clock.now();
  const r = await db
    .deleteFrom('sessions')
    .where((eb) =>
      eb.or([
        eb('expires_at', '<=', new Date(now)),
        eb('last_seen_at', '<=', new Date(now - policy.idleSeconds * 1000)),
      ]),
    )
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
