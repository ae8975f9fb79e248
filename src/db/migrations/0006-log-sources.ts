import { type Kysely, sql } from 'kysely';

/**
 * SIEM Q log sources provisioned per exercise section and destination (spec 2.6, decisions.md §7).
 * `section_key` is the section's id, or 'legacy' for a sectionless exercise's one log source, so
 * one unique key covers both.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('exercise_log_sources')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('exercise_id', 'uuid', (c) => c.notNull().references('exercises.id').onDelete('cascade'))
    .addColumn('section_id', 'uuid', (c) => c.references('exercise_sections.id').onDelete('cascade'))
    .addColumn('section_key', 'text', (c) => c.notNull())
    .addColumn('siem', 'text', (c) => c.notNull())
    // The log source identifier, also the syslog HOSTNAME the section's events carry.
    .addColumn('identifier', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('log_source_id', 'bigint')
    .addColumn('requires_deploy', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('error', 'text')
    .addColumn('checked_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint(
      'exercise_log_sources_status_check',
      sql`status in ('provisioned', 'missing', 'failed')`,
    )
    .addUniqueConstraint('exercise_log_sources_unit_key', ['exercise_id', 'section_key', 'siem'])
    .execute();
  await db.schema
    .createIndex('exercise_log_sources_siem_idx')
    .on('exercise_log_sources')
    .columns(['siem', 'identifier'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('exercise_log_sources').execute();
}
