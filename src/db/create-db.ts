import { existsSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PGliteDialect, PostgresDialect } from 'kysely';
import pg from 'pg';
import { withCurrentSchemaIntrospection } from './current-schema-introspector.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { PGLITE_OPTIONS } from './pglite-options.ts';
import { createPgliteDataDir } from './pglite-template.ts';
import type { Database } from './schema.ts';

/** An open database and how to close it. */
export interface DbHandle {
  readonly db: Kysely<Database>;
  readonly kind: 'pglite' | 'postgres';
  close(): Promise<void>;
}

/** Opens PostgreSQL when `databaseUrl` is set, else the embedded PGlite under `dataDir` (locked). */
export async function openDatabase(opts: {
  databaseUrl: string | undefined;
  dataDir: string;
}): Promise<DbHandle> {
  if (opts.databaseUrl !== undefined) return openPostgres(opts.databaseUrl);
  const lock = lockDataDir(opts.dataDir);
  try {
    const pgdata = path.join(opts.dataDir, 'pgdata');
    if (!existsSync(pgdata)) await createPgliteDataDir(pgdata);
    const pglite = await PGlite.create(pgdata, PGLITE_OPTIONS);
    return wrapPglite(pglite, () => lock.release());
  } catch (err) {
    lock.release();
    throw err;
  }
}

/** Opens a pooled PostgreSQL connection; `searchPath` pins every connection to one schema (tests). */
export function openPostgres(url: string, options: { searchPath?: string; max?: number } = {}): DbHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
  });
  const db = new Kysely<Database>({ dialect: withCurrentSchemaIntrospection(new PostgresDialect({ pool })) });
  return { db, kind: 'postgres', close: () => db.destroy() };
}

/** Wraps an already created PGlite instance (persistent, in-memory or loaded from a dump). */
export function wrapPglite(pglite: PGlite, onClose?: () => void): DbHandle {
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
  return {
    db,
    kind: 'pglite',
    async close() {
      try {
        await db.destroy();
      } finally {
        onClose?.();
      }
    },
  };
}
