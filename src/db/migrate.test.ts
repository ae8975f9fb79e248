import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { TEST_DB_KIND } from '../../test/helpers/test-db.ts';
import { openPostgres, wrapPglite } from './create-db.ts';
import { migrateToLatest } from './migrate.ts';
import { migrations } from './migrations/index.ts';

describe('migrateToLatest', () => {
  it('applies every migration once and nothing on a second run', async () => {
    const handle = wrapPglite(await PGlite.create());
    try {
      const db = handle.db as Kysely<unknown>;
      expect(await migrateToLatest(db)).toEqual(Object.keys(migrations).sort());
      expect(await migrateToLatest(db)).toEqual([]);
    } finally {
      await handle.close();
    }
  });

  it.skipIf(TEST_DB_KIND !== 'postgres')(
    'survives other clients dropping schemas while it lists the tables (parallel test schemas, other apps)',
    async () => {
      const url = process.env.TEST_DATABASE_URL as string;
      const tag = randomBytes(4).toString('hex');
      const schema = `t_migrate_${tag}`;
      const admin = openPostgres(url, { max: 2 });
      await sql`create schema ${sql.id(schema)}`.execute(admin.db);
      const handle = openPostgres(url, { searchPath: schema, max: 2 });
      let stop = false;
      // Another client creating and dropping schemas with serial columns as fast as it can: with
      // Kysely's own introspector, about one run in fifteen failed with "schema … does not exist".
      const churn = (async () => {
        for (let i = 0; !stop; i++) {
          const other = sql.id(`t_churn_${tag}_${i % 3}`);
          await sql`create schema if not exists ${other}`.execute(admin.db);
          await sql`create table ${other}.x (id serial primary key)`.execute(admin.db);
          await sql`drop schema ${other} cascade`.execute(admin.db);
        }
      })();
      try {
        expect((await migrateToLatest(handle.db as Kysely<unknown>)).length).toBe(
          Object.keys(migrations).length,
        );
        for (let i = 0; i < 150; i++) expect(await migrateToLatest(handle.db as Kysely<unknown>)).toEqual([]);
      } finally {
        stop = true;
        await churn;
        await handle.close();
        await sql`drop schema ${sql.id(schema)} cascade`.execute(admin.db);
        await admin.close();
      }
    },
    120_000,
  );
});
