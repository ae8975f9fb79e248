import { type Kysely, sql } from 'kysely';

/**
 * Object storage in the database (decisions.md §1: with DATABASE_URL, archives live in PostgreSQL so
 * that several instances share them). An object is one `storage_objects` row and its content
 * `storage_chunks` rows of at most 1 MiB each, never one value holding a whole archive. An upload
 * writes a row that is not yet `committed` and its chunks, then swaps it in for the old object in
 * one short transaction: readers see the old object or the whole new one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('storage_objects')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('bucket', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('chunk_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('sha256', 'text')
    .addColumn('committed', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint(
      'storage_objects_bucket_check',
      sql`bucket in ('noise-archives', 'exercise-archives')`,
    )
    .execute();
  // One visible object per path; uploads still being written are not in it.
  await db.schema
    .createIndex('storage_objects_path_idx')
    .on('storage_objects')
    .columns(['bucket', 'key'])
    .unique()
    .where(sql.ref('committed'), '=', true)
    .execute();

  await db.schema
    .createTable('storage_chunks')
    .addColumn('object_id', 'uuid', (c) => c.notNull().references('storage_objects.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('bytes', 'bytea', (c) => c.notNull())
    .addPrimaryKeyConstraint('storage_chunks_pk', ['object_id', 'seq'])
    .execute();
  // Archives are compressed already: store chunks out of line without trying to compress them.
  await sql`alter table storage_chunks alter column bytes set storage external`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('storage_chunks').ifExists().execute();
  await db.schema.dropTable('storage_objects').ifExists().execute();
}
