import type { Kysely } from 'kysely';
import type { Actor } from '../auth/sessions.ts';
import type { Database } from '../db/schema.ts';
import { storableJson, storableOrNull } from '../db/storable.ts';

/**
 * Outcome of an audited action. `started` is written when a wipe or a session start begins, before
 * it deletes, downloads or sends anything; its end is a later record (`success` or `failure`) of
 * the same action and target. A `started` record with no end is an action whose process died.
 */
export type AuditOutcome = 'success' | 'failure' | 'denied' | 'started';

/** One audit record: who did what, to what, from where, with what result. */
export interface AuditEntry {
  /** null: an anonymous request (e.g. a failed sign-in); 'system': the service itself. */
  actor: Actor | null | 'system';
  action: string;
  target?: string | null;
  ip?: string | null;
  outcome: AuditOutcome;
  details?: Record<string, unknown>;
  /** Label for anonymous actors, e.g. the e-mail a failed sign-in tried. */
  actorLabel?: string;
}

/** An audit record as the API returns it. */
export interface AuditView {
  id: string;
  at: string;
  actor_type: string;
  actor_id: string | null;
  actor: string | null;
  action: string;
  target: string | null;
  ip: string | null;
  outcome: string;
  details: Record<string, unknown> | null;
}

/** Writes one audit record (UTC timestamp from the given clock time); returns its id. */
export async function recordAudit(db: Kysely<Database>, at: number, entry: AuditEntry): Promise<string> {
  const a = entry.actor;
  const actorType = a === null ? 'anonymous' : a === 'system' ? 'system' : a.kind;
  const row = await db
    .insertInto('audit_log')
    .values({
      at: new Date(at),
      actor_type: actorType,
      actor_id: a !== null && a !== 'system' && a.kind === 'user' ? a.userId : null,
      actor_label: storableOrNull(
        a !== null && a !== 'system' && a.kind === 'user'
          ? a.email
          : a !== null && a !== 'system'
            ? 'dispatch token'
            : (entry.actorLabel ?? null),
      ),
      action: entry.action,
      // Targets and details may quote a SIEM's answer or an archive's entry names.
      target: storableOrNull(entry.target),
      ip: entry.ip ?? null,
      outcome: entry.outcome,
      details: entry.details ? JSON.stringify(storableJson(entry.details)) : null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return String(row.id);
}

/** Lists audit records, newest first, with optional filters and keyset pagination. */
export async function listAudit(
  db: Kysely<Database>,
  q: {
    action?: string;
    actor?: string;
    outcome?: string;
    since?: Date;
    until?: Date;
    before?: string;
    limit: number;
  },
): Promise<AuditView[]> {
  let query = db.selectFrom('audit_log').selectAll().orderBy('id', 'desc').limit(q.limit);
  if (q.action)
    query = query.where(
      'action',
      q.action.endsWith('.') ? 'like' : '=',
      q.action.endsWith('.') ? `${q.action}%` : q.action,
    );
  if (q.actor)
    query = query.where((eb) => eb.or([eb('actor_id', '=', q.actor!), eb('actor_label', '=', q.actor!)]));
  if (q.outcome) query = query.where('outcome', '=', q.outcome);
  if (q.since) query = query.where('at', '>=', q.since);
  if (q.until) query = query.where('at', '<', q.until);
  if (q.before) query = query.where('id', '<', q.before);
  const rows = await query.execute();
  return rows.map((r) => ({
    id: String(r.id),
    at: r.at.toISOString(),
    actor_type: r.actor_type,
    actor_id: r.actor_id,
    actor: r.actor_label,
    action: r.action,
    target: r.target,
    ip: r.ip,
    outcome: r.outcome,
    details: r.details,
  }));
}
