import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { type Kysely, sql } from 'kysely';
import { inject } from 'vitest';
import { type DbHandle, openPostgres, wrapPglite } from '../../src/db/create-db.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';

/** Which database the suite runs on: PGlite by default, PostgreSQL when TEST_DATABASE_URL is set. */
export const TEST_DB_KIND: 'pglite' | 'postgres' = process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite';

/**
 * A fresh, empty-but-migrated database for one test context. On PostgreSQL each gets its own
 * schema (dropped on close), so test files can run in parallel on one server.
 */
export async function openTestDatabase(): Promise<DbHandle> {
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const admin = openPostgres(url, { max: 1 });
    await sql`create schema ${sql.id(schema)}`.execute(admin.db);
    await admin.close();
    const handle = openPostgres(url, { searchPath: schema, max: 5 });
    // Migrated here as the PGlite copy is, so every caller gets the same starting point.
    await migrateToLatest(handle.db as Kysely<unknown>);
    return {
      db: handle.db,
      kind: 'postgres',
      async close() {
        await handle.close();
        const cleanup = openPostgres(url, { max: 1 });
        await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(cleanup.db);
        await cleanup.close();
      },
    };
  }
  const dump = inject('pgliteDump');
  const pglite = await PGlite.create({ loadDataDir: new Blob([readFileSync(dump)]) });
  return wrapPglite(pglite);
}
