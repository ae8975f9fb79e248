import { gunzipSync } from 'node:zlib';
import { esError } from './bulk-errors.ts';
import { single } from './bulk-http-rules.ts';
import type { BulkIndex } from './bulk-index-store.ts';
import type { SimRequest, SimResponse } from './sim-http-server.ts';

/** `GET /` as each product answers it, with the version numbers that go with the major. */
export function rootInfo(
  flavor: 'elasticsearch' | 'opensearch',
  version: string,
  clusterUuid: string,
): Record<string, unknown> {
  const es = flavor === 'elasticsearch';
  const major = Number(version.split('.')[0]);
  const [lucene, wire, indexCompat] =
    major >= 9
      ? ['10.2.1', '8.18.0', '8.0.0']
      : major === 8
        ? ['9.11.1', '7.17.0', '7.0.0']
        : ['8.11.1', '6.8.0', '6.0.0-beta1'];
  const common = {
    build_hash: '0'.repeat(40),
    build_date: '2024-08-05T10:05:34.233336849Z',
    build_snapshot: false,
    lucene_version: es ? lucene : '9.11.1',
    minimum_wire_compatibility_version: es ? wire : '7.10.0',
    minimum_index_compatibility_version: es ? indexCompat : '7.0.0',
  };
  return {
    name: 'socdrill-bulk-simulator',
    cluster_name: 'socdrill-simulator',
    cluster_uuid: clusterUuid,
    version: es
      ? { number: version, build_flavor: 'default', build_type: 'docker', ...common }
      : { distribution: 'opensearch', number: version, build_type: 'tar', ...common },
    tagline: es ? 'You Know, for Search' : 'The OpenSearch Project: https://opensearch.org/',
  };
}

/** `GET /_cluster/health` of a one-node green cluster. */
export function clusterHealth(indexCount: number): Record<string, unknown> {
  return {
    cluster_name: 'socdrill-simulator',
    status: 'green',
    timed_out: false,
    number_of_nodes: 1,
    number_of_data_nodes: 1,
    active_primary_shards: indexCount,
    active_shards: indexCount,
    relocating_shards: 0,
    initializing_shards: 0,
    unassigned_shards: 0,
  };
}

/** `GET /<index>`: aliases, the mapping as built so far, and settings. */
export function describeIndex(index: BulkIndex): Record<string, unknown> {
  const properties: Record<string, Record<string, unknown>> = {};
  for (const [path, kind] of [...index.mapping].sort(([a], [b]) => a.localeCompare(b))) {
    let level = properties;
    const parts = path.split('.');
    for (const part of parts.slice(0, -1)) {
      const parent = level[part] ?? { properties: {} };
      level[part] = parent;
      const children = (parent.properties as Record<string, Record<string, unknown>> | undefined) ?? {};
      parent.properties = children;
      level = children;
    }
    const leaf = parts.at(-1)!;
    level[leaf] = kind === 'object' ? { properties: level[leaf]?.properties ?? {} } : { type: kind };
  }
  return {
    aliases: (index.created.aliases as object | undefined) ?? {},
    mappings: { properties },
    settings: {
      index: {
        number_of_shards: '1',
        number_of_replicas: '1',
        uuid: index.uuid,
        provided_name: index.name,
        ...((index.created.settings as { index?: object } | undefined)?.index ?? {}),
      },
    },
  };
}

/** The request body (bytes and text), gunzipped when sent with `Content-Encoding: gzip`. */
export function decodeBulkBody(req: SimRequest): { text: string; bytes: Buffer } | SimResponse {
  const encoding = single(req.headers['content-encoding'])?.toLowerCase();
  if (!encoding || encoding === 'identity') return { text: req.body.toString('utf8'), bytes: req.body };
  if (encoding !== 'gzip') {
    return esError(400, {
      type: 'illegal_argument_exception',
      reason: `Unsupported Content-Encoding [${encoding}]`,
    });
  }
  try {
    const bytes = gunzipSync(req.body);
    return { text: bytes.toString('utf8'), bytes };
  } catch {
    return esError(400, { type: 'illegal_argument_exception', reason: 'Not in GZIP format' });
  }
}

/** 405 for a known endpoint called with the wrong method. */
export function methodNotAllowed(req: SimRequest, allowed: string[]): SimResponse {
  return {
    status: 405,
    headers: { allow: allowed.join(',') },
    body: {
      error: `Incorrect HTTP method for uri [${req.record.url}] and method [${req.method}], allowed: [${allowed.join(', ')}]`,
      status: 405,
    },
  };
}

/** 400 for a path no endpoint serves. */
export function noHandler(req: SimRequest): SimResponse {
  return {
    status: 400,
    body: { error: `no handler found for uri [${req.record.url}] and method [${req.method}]`, status: 400 },
  };
}
