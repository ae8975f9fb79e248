import type { FastifyRequest } from 'fastify';
import type { AuditEntry } from '../audit/audit-log.ts';

/** Fills an audit entry's actor and client address from the request. */
export function auditEntry(request: FastifyRequest, entry: Omit<AuditEntry, 'actor' | 'ip'>): AuditEntry {
  return { actor: request.actor, ip: request.ip, ...entry };
}
