import type { SimResponse } from './sim-http-server.ts';

/** Which product the bulk simulator imitates. */
export type BulkFlavor = 'elasticsearch' | 'opensearch';

/** An error object as it appears in a root cause, an item error or a `caused_by`. */
export interface EsErrorCause {
  readonly type: string;
  readonly reason: string;
  readonly [key: string]: unknown;
}

/** `{"error":{"root_cause":[…],"type","reason",…},"status"}`, the shape of every request-level error. */
export function esError(status: number, cause: EsErrorCause, causedBy?: EsErrorCause): SimResponse {
  return {
    status,
    body: { error: { root_cause: [cause], ...cause, ...(causedBy ? { caused_by: causedBy } : {}) }, status },
  };
}

/** 404 for a missing concrete index (`_delete_by_query`, `GET /<index>`, `_count`, …). */
export function indexNotFound(name: string): SimResponse {
  return esError(404, {
    type: 'index_not_found_exception',
    reason: `no such index [${name}]`,
    'resource.type': 'index_or_alias',
    'resource.id': name,
    index_uuid: '_na_',
    index: name,
  });
}

/** Thread-pool rejection type: OpenSearch dropped the `es_` prefix. */
export function rejectedExecutionType(flavor: BulkFlavor): string {
  return flavor === 'opensearch' ? 'rejected_execution_exception' : 'es_rejected_execution_exception';
}

/** Mapping failure type: Elasticsearch 8 renamed it, OpenSearch and older Elasticsearch kept the old name. */
export function parsingExceptionType(flavor: BulkFlavor, major: number): string {
  return flavor === 'elasticsearch' && major >= 8 ? 'document_parsing_exception' : 'mapper_parsing_exception';
}

/** The item-level (or request-level) 429 a busy write thread pool produces. */
export function rejectedExecution(flavor: BulkFlavor, bytes: number): EsErrorCause {
  return {
    type: rejectedExecutionType(flavor),
    reason:
      `rejected execution of coordinating operation [coordinating_and_primary_bytes=${bytes}, ` +
      `replica_bytes=0, all_bytes=${bytes}, coordinating_operation_bytes=${bytes}, ` +
      'max_coordinating_and_primary_bytes=107374182]',
  };
}

/** The write block a disk past the flood-stage watermark puts on an index (429, request or item). */
export function floodStageBlock(index: string): EsErrorCause {
  return {
    type: 'cluster_block_exception',
    reason:
      `index [${index}] blocked by: [TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, ` +
      'index has read-only-allow-delete block];',
  };
}

/**
 * 401 as each product words it. Elasticsearch: a `security_exception` whose reason says whether
 * credentials were missing or wrong, plus the `WWW-Authenticate` challenges. OpenSearch's security
 * plugin: a plain-text `Unauthorized`.
 */
export function authFailure(
  flavor: BulkFlavor,
  reason: string,
  additionalUnsuccessful?: string,
  withApiKey = true,
): SimResponse {
  if (flavor === 'opensearch') {
    return {
      status: 401,
      headers: {
        'content-type': 'text/plain; charset=UTF-8',
        'www-authenticate': 'Basic realm="OpenSearch Security"',
      },
      body: 'Unauthorized',
    };
  }
  const challenges = ['Basic realm="security", charset="UTF-8"', 'Bearer realm="security"'];
  if (withApiKey) challenges.push('ApiKey');
  const cause = {
    type: 'security_exception',
    reason,
    ...(additionalUnsuccessful ? { additional_unsuccessful_credentials: additionalUnsuccessful } : {}),
    header: { 'WWW-Authenticate': challenges },
  };
  const res = esError(401, cause);
  return { ...res, headers: { 'www-authenticate': challenges } };
}

/** Who a request authenticated as, for 403 wording: a user, or an API key of a user. */
export interface BulkPrincipal {
  readonly user: string;
  readonly apiKeyId?: string;
}

/** The action a request needs and which privileges grant it (the usual ones, not every alias). */
function requiredAction(
  method: string,
  path: string,
): { action: string; scope: 'cluster' | 'index'; privileges: string; index?: string } {
  const segments = path.split('/').filter((s) => s !== '');
  const [first, second] = segments;
  const index = first !== undefined && !first.startsWith('_') ? first : undefined;
  const on = (action: string, privileges: string, target = index) => ({
    action,
    scope: 'index' as const,
    privileges,
    ...(target !== undefined ? { index: target } : {}),
  });
  if (segments.length === 0)
    return { action: 'cluster:monitor/main', scope: 'cluster', privileges: 'monitor,manage,all' };
  if (first === '_bulk' || second === '_bulk')
    return on('indices:data/write/bulk', 'create_doc,create,delete,index,write,all');
  if (second === '_delete_by_query') return on('indices:data/write/delete/byquery', 'delete,write,all');
  if (second === '_refresh') return on('indices:admin/refresh', 'maintenance,manage,all');
  if (second === '_count') return on('indices:data/read/search', 'read,all');
  if (first === '_data_stream')
    return on('indices:admin/data_stream/create', 'create_index,manage,all', second);
  if (method === 'PUT') return on('indices:admin/create', 'create_index,manage,all');
  return on('indices:admin/get', 'view_index_metadata,manage,all');
}

/**
 * 403 as each product words a missing privilege, in the `security_exception` shape of every
 * request-level error (protocols-hec-bulk.md 3.5). Elasticsearch: "action [..] is unauthorized for
 * user [..] … this action is granted by the … privileges [..]"; OpenSearch's security plugin:
 * "no permissions for [..] and User [..]".
 */
export function privilegeFailure(
  flavor: BulkFlavor,
  method: string,
  path: string,
  principal: BulkPrincipal,
): SimResponse {
  const need = requiredAction(method, path);
  if (flavor === 'opensearch') {
    return esError(403, {
      type: 'security_exception',
      reason: `no permissions for [${need.action}] and User [name=${principal.user}, backend_roles=[], requestedTenant=null]`,
    });
  }
  const who =
    principal.apiKeyId !== undefined
      ? `API key id [${principal.apiKeyId}] of user [${principal.user}]`
      : `user [${principal.user}] with effective roles [socdrill_lab_writer]`;
  const on = need.index !== undefined ? ` on indices [${need.index}]` : '';
  return esError(403, {
    type: 'security_exception',
    reason: `action [${need.action}] is unauthorized for ${who}${on}, this action is granted by the ${need.scope} privileges [${need.privileges}]`,
  });
}

/** The product's answer for an injected status (`errorType` picks the 429 variant). */
export function bulkFaultResponse(flavor: BulkFlavor, status: number, errorType?: string): SimResponse {
  if (status === 429) {
    if (errorType === 'circuit_breaking_exception') {
      return esError(429, {
        type: 'circuit_breaking_exception',
        reason:
          '[parent] Data too large, data for [<http_request>] would be [1031798784/984mb], which is larger ' +
          'than the limit of [1020054732/972.7mb]',
        bytes_wanted: 1031798784,
        bytes_limit: 1020054732,
        durability: 'TRANSIENT',
      });
    }
    if (errorType === 'cluster_block_exception') return esError(429, floodStageBlock('lab'));
    return esError(429, rejectedExecution(flavor, 4096));
  }
  if (status === 503) {
    return esError(503, {
      type: 'cluster_block_exception',
      reason: 'blocked by: [SERVICE_UNAVAILABLE/1/state not recovered / initialized];',
    });
  }
  if (status === 413) return { status: 413, body: '' };
  if (status === 401) return authFailure(flavor, 'missing authentication credentials for REST request [/]');
  if (status === 502 || status === 504) {
    // These come from a proxy in front of the cluster, not from the product itself.
    return {
      status,
      headers: { 'content-type': 'text/plain' },
      body: status === 502 ? 'Bad Gateway' : 'Gateway Timeout',
    };
  }
  return esError(status, { type: 'exception', reason: `simulated failure (HTTP ${status})` });
}
