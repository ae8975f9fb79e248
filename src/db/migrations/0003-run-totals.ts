import type { Kysely } from 'kysely';

/**
 * `noise_runs.events_total`: the events of the run for that target, written once its archives are
 * prepared (null until then, and on rows of earlier versions). A run whose dispatch died is
 * recovered with `events_failed = events_total - events_shipped`, so its counts add up.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('noise_runs').addColumn('events_total', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('noise_runs').dropColumn('events_total').execute();
}
