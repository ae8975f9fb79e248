import { type Kysely, sql } from 'kysely';

/**
 * Exercises (steps, artifacts, sections, archives) and analysts' attempts with their per-section
 * shipments, submissions, findings and hint reveals (decisions.md §6).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('exercises')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('draft'))
    .addColumn('destinations', 'jsonb', (c) => c.notNull())
    .addColumn('convert_to_leef', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('deadlock_override', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('tags', 'jsonb', (c) => c.notNull())
    // Every change increments it; PATCH with If-Match compares it (412 when stale).
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_by', 'uuid', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('published_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('exercises_state_check', sql`state in ('draft', 'active')`)
    .execute();

  await db.schema
    .createTable('exercise_steps')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('exercise_id', 'uuid', (c) => c.notNull().references('exercises.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('exercise_steps_exercise_idx')
    .on('exercise_steps')
    .columns(['exercise_id', 'position'])
    .execute();

  await db.schema
    .createTable('exercise_sections')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('exercise_id', 'uuid', (c) => c.notNull().references('exercises.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    // null: ships at start; else { condition, delay_minutes, artifact_ids, gate_mode }.
    .addColumn('release', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('exercise_sections_position_key', ['exercise_id', 'position'])
    .execute();

  await db.schema
    .createTable('exercise_artifacts')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('exercise_id', 'uuid', (c) => c.notNull().references('exercises.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('values', 'jsonb', (c) => c.notNull())
    .addColumn('match', 'text', (c) => c.notNull())
    .addColumn('points', 'integer', (c) => c.notNull().defaultTo(10))
    .addColumn('section_id', 'uuid', (c) => c.references('exercise_sections.id').onDelete('set null'))
    .addColumn('hint', 'text')
    .addColumn('hint_penalty', 'integer')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('exercise_artifacts_exercise_idx')
    .on('exercise_artifacts')
    .column('exercise_id')
    .execute();

  // One archive per format per section; section_id null is the exercise's legacy archive.
  await db.schema
    .createTable('exercise_archives')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('exercise_id', 'uuid', (c) => c.notNull().references('exercises.id').onDelete('cascade'))
    .addColumn('section_id', 'uuid', (c) => c.references('exercise_sections.id').onDelete('cascade'))
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('archive_kind', 'text', (c) => c.notNull())
    .addColumn('files', 'integer', (c) => c.notNull())
    .addColumn('events', 'integer', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    // Latest readable event time (epoch ms), so an attempt's one shift is known without reading archives.
    .addColumn('latest_event_ms', 'bigint')
    .addColumn('converted_from', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('exercise_archives_format_check', sql`format in ('leef', 'ecs')`)
    .execute();
  await sql`create unique index exercise_archives_slot_key on exercise_archives
    (exercise_id, coalesce(section_id, '00000000-0000-0000-0000-000000000000'::uuid), format)`.execute(db);

  await db.schema
    .createTable('attempts')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('exercise_id', 'uuid', (c) => c.notNull().references('exercises.id').onDelete('cascade'))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('siem', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('started_at', 'timestamptz', (c) => c.notNull())
    // The one rebase shift of every shipment of the attempt (ms), fixed at start and redo.
    .addColumn('shift_ms', 'bigint', (c) => c.notNull())
    .addColumn('completed_at', 'timestamptz')
    .addColumn('score', 'integer')
    .addColumn('max_score', 'integer')
    .addColumn('offense_cleanup', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('attempts_state_check', sql`state in ('running', 'completed')`)
    .execute();
  // One running attempt per analyst and exercise.
  await sql`create unique index attempts_running_key on attempts (exercise_id, user_id)
    where state = 'running'`.execute(db);
  await db.schema
    .createIndex('attempts_user_idx')
    .on('attempts')
    .columns(['user_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('attempt_sections')
    .addColumn('attempt_id', 'uuid', (c) => c.notNull().references('attempts.id').onDelete('cascade'))
    // The section's id, or 'legacy' for the archive of a sectionless exercise.
    .addColumn('section_key', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('events_shipped', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('events_failed', 'integer', (c) => c.notNull().defaultTo(0))
    // When a delay part of its release passes (null: no delay part); the release tick's index.
    .addColumn('releases_at', 'timestamptz')
    .addColumn('released_at', 'timestamptz')
    .addColumn('last_try_at', 'timestamptz')
    .addColumn('shipped_at', 'timestamptz')
    .addColumn('error', 'text')
    // Who is shipping it and until when: a crashed instance's claim expires and is taken over.
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'timestamptz')
    .addPrimaryKeyConstraint('attempt_sections_pkey', ['attempt_id', 'section_key'])
    .addCheckConstraint(
      'attempt_sections_status_check',
      sql`status in ('not_due', 'waiting_on_artifact', 'shipping', 'shipped', 'failed')`,
    )
    .execute();
  await sql`create index attempt_sections_due_idx on attempt_sections (releases_at)
    where status in ('not_due', 'waiting_on_artifact', 'shipping')`.execute(db);

  await db.schema
    .createTable('attempt_submissions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('attempt_id', 'uuid', (c) => c.notNull().references('attempts.id').onDelete('cascade'))
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('artifact_id', 'uuid')
    .addColumn('matched', 'boolean', (c) => c.notNull())
    .addColumn('points', 'integer')
    .addColumn('submitted_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('attempt_submissions_attempt_idx')
    .on('attempt_submissions')
    .columns(['attempt_id', 'submitted_at'])
    .execute();

  await db.schema
    .createTable('attempt_findings')
    .addColumn('attempt_id', 'uuid', (c) => c.notNull().references('attempts.id').onDelete('cascade'))
    .addColumn('artifact_id', 'uuid', (c) => c.notNull())
    .addColumn('points', 'integer', (c) => c.notNull())
    .addColumn('found_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('attempt_findings_pkey', ['attempt_id', 'artifact_id'])
    .execute();

  await db.schema
    .createTable('attempt_hints')
    .addColumn('attempt_id', 'uuid', (c) => c.notNull().references('attempts.id').onDelete('cascade'))
    .addColumn('artifact_id', 'uuid', (c) => c.notNull())
    .addColumn('penalty', 'integer', (c) => c.notNull())
    .addColumn('revealed_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('attempt_hints_pkey', ['attempt_id', 'artifact_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'attempt_hints',
    'attempt_findings',
    'attempt_submissions',
    'attempt_sections',
    'attempts',
    'exercise_archives',
    'exercise_artifacts',
    'exercise_sections',
    'exercise_steps',
    'exercises',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
