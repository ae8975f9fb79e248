import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { TEST_DB_KIND } from '../../test/helpers/test-db.ts';
import { openPostgres } from './create-db.ts';

describe.skipIf(TEST_DB_KIND !== 'postgres')('CurrentSchemaIntrospector (PostgreSQL)', () => {
  it("lists the current schema's tables with their columns and nothing of other schemas", async () => {
    const url = process.env.TEST_DATABASE_URL as string;
    const tag = randomBytes(4).toString('hex');
    const mine = `t_intro_${tag}`;
    const other = `t_other_${tag}`;
    const admin = openPostgres(url, { max: 1 });
    await sql`create schema ${sql.id(mine)}`.execute(admin.db);
    await sql`create schema ${sql.id(other)}`.execute(admin.db);
    const handle = openPostgres(url, { searchPath: mine, max: 1 });
    try {
      await sql`create table ${sql.id(mine)}.items (id serial primary key, label text not null, note text default 'x')`.execute(
        admin.db,
      );
      await sql`comment on column ${sql.id(mine)}.items.label is 'shown to users'`.execute(admin.db);
      await sql`create view ${sql.id(mine)}.item_labels as select label from ${sql.id(mine)}.items`.execute(
        admin.db,
      );
      await sql`create table ${sql.id(mine)}.kysely_migration (name text)`.execute(admin.db);
      await sql`create table ${sql.id(other)}.elsewhere (id int)`.execute(admin.db);

      const tables = await handle.db.introspection.getTables();
      expect(tables.map((t) => [t.name, t.schema, t.isView])).toEqual([
        ['item_labels', mine, true],
        ['items', mine, false],
      ]);
      expect(tables[1]?.columns).toEqual([
        expect.objectContaining({
          name: 'id',
          dataType: 'int4',
          isAutoIncrementing: true,
          isNullable: false,
        }),
        expect.objectContaining({
          name: 'label',
          dataType: 'text',
          comment: 'shown to users',
          hasDefaultValue: false,
        }),
        expect.objectContaining({
          name: 'note',
          isAutoIncrementing: false,
          isNullable: true,
          hasDefaultValue: true,
        }),
      ]);
      const withInternal = await handle.db.introspection.getTables({ withInternalKyselyTables: true });
      expect(withInternal.map((t) => t.name)).toContain('kysely_migration');
      expect((await handle.db.introspection.getSchemas()).map((s) => s.name)).toEqual(
        expect.arrayContaining([mine, other]),
      );
    } finally {
      await handle.close();
      await sql`drop schema ${sql.id(mine)} cascade`.execute(admin.db);
      await sql`drop schema ${sql.id(other)} cascade`.execute(admin.db);
      await admin.close();
    }
  });
});
