import type { DriverName } from './destination-types.ts';

/** Longest custom index name (spec 8). */
export const INDEX_NAME_MAX = 120;

/**
 * Why `name` is not a usable index name for `driver`, or undefined when it is.
 * HEC indexes: lower-case letters, digits, `_` and `-`, starting with a letter or digit.
 * Bulk indexes (Elasticsearch/OpenSearch): also `.`, never `.`/`..`, no wildcards or commas —
 * exact names only, so a wipe can never match more than the lab's own index.
 */
export function indexNameProblem(driver: DriverName, name: string): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (name.length > INDEX_NAME_MAX) return `must be at most ${INDEX_NAME_MAX} characters`;
  if (driver === 'vendorA_hec' || driver === 'syslog_tcp') {
    if (!/^[a-z0-9][a-z0-9_-]*$/.test(name)) {
      return 'must be lower-case letters, digits, _ and -, starting with a letter or digit';
    }
    return undefined;
  }
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(name)) {
    return 'must be lower-case letters, digits, ., _ and -, starting with a letter or digit (no wildcards or commas)';
  }
  return undefined;
}
