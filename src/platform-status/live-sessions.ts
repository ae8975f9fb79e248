import type { Kysely } from 'kysely';
import type { SessionPolicy } from '../auth/sessions.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';

/** Hashes per query; well under PostgreSQL's parameter limit. */
const CHUNK = 500;

/**
 * Which of these sessions are still valid: present, of an enabled user, within the absolute and
 * the idle lifetime (the rules of resolveSession). Unlike resolveSession it only reads: an open
 * event stream must not count as activity and keep an idle session alive.
 */
export async function liveSessionHashes(
  db: Kysely<Database>,
  clock: Clock,
  policy: SessionPolicy,
  hashes: readonly string[],
): Promise<Set<string>> {
  const live = new Set<string>();
  const now = clock.now();
  const unique = [...new Set(hashes)];
  for (let i = 0; i < unique.length; i += CHUNK) {
    const rows = await db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select(['sessions.id_hash', 'sessions.last_seen_at', 'sessions.expires_at', 'users.disabled'])
      .where('sessions.id_hash', 'in', unique.slice(i, i + CHUNK))
      .execute();
    for (const row of rows) {
      const idleUntil = row.last_seen_at.getTime() + policy.idleSeconds * 1000;
      if (!row.disabled && now < row.expires_at.getTime() && now < idleUntil) live.add(row.id_hash);
    }
  }
  return live;
}
