import { type Kysely, sql } from 'kysely';

/** Noise jobs (with the scheduler's lease columns) and their run rows. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('noise_jobs')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('targets', 'jsonb', (c) => c.notNull())
    .addColumn('schedule', 'jsonb', (c) => c.notNull())
    .addColumn('propagate_on_wipe', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('archives', 'jsonb', (c) => c.notNull())
    .addColumn('next_run_at', 'timestamptz')
    .addColumn('last_run_at', 'timestamptz')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // The scheduler's claim query: enabled jobs by due time.
  await db.schema
    .createIndex('noise_jobs_due_idx')
    .on('noise_jobs')
    .column('next_run_at')
    .where(sql.ref('enabled'), '=', true)
    .execute();

  await db.schema
    .createTable('noise_runs')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('job_id', 'uuid', (c) => c.notNull().references('noise_jobs.id').onDelete('cascade'))
    .addColumn('siem', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('events_shipped', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('events_failed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('owner', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('started_at', 'timestamptz')
    .addColumn('finished_at', 'timestamptz')
    .addCheckConstraint(
      'noise_runs_status_check',
      sql`status in ('pending', 'running', 'succeeded', 'partial', 'failed', 'skipped')`,
    )
    .addCheckConstraint('noise_runs_trigger_check', sql`trigger in ('schedule', 'manual')`)
    .execute();
  await db.schema
    .createIndex('noise_runs_job_idx')
    .on('noise_runs')
    .columns(['job_id', 'created_at'])
    .execute();
  await db.schema.createIndex('noise_runs_created_idx').on('noise_runs').column('created_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('noise_runs').ifExists().execute();
  await db.schema.dropTable('noise_jobs').ifExists().execute();
}
