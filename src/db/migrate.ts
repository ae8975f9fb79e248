import { type Kysely, sql } from 'kysely';
import { type MigrationResultSet, Migrator } from 'kysely/migration';
import { AppError } from '../errors.ts';
import { migrations } from './migrations/index.ts';

/** Applies every pending migration; throws with the failing migration's name on error. */
export async function migrateToLatest(db: Kysely<unknown>): Promise<string[]> {
  // Without a schema, Kysely takes its bookkeeping tables in ANY schema of the database as its
  // own; a second schema (parallel test schemas, or another app on the server) then breaks start-up.
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(rows[0]?.schema ? { migrationTableSchema: rows[0].schema } : {}),
  });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new AppError('internal', `Migration ${failed} failed: ${String(result.error)}`, {
      cause: result.error,
    });
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
