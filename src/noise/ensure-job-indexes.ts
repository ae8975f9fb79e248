import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { loadDestination } from '../destinations/destination-service.ts';
import type { Destination } from '../destinations/destination-types.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import type { Driver } from '../siems/siem-client.ts';
import type { NoiseArchive } from './job-store.ts';

/** Builds a SIEM driver for a destination; undefined while no driver exists in this build. */
export type CreateDriver = (destination: Destination) => Driver;

/** How long one index creation may take. */
const ENSURE_TIMEOUT_MS = 15_000;

/**
 * Creates the job's `new` indexes on its vendorA_hec and vendorB_bulk targets (spec 4.1, last
 * paragraph) and returns a warning for every index that is not known to exist afterwards: on
 * syslog_tcp targets (created on the collector by hand), when no driver factory is wired in, and
 * when the SIEM refused or did not answer. Never throws: the job is saved either way.
 */
export async function ensureJobIndexes(
  deps: { db: Kysely<Database>; secretBox: SecretBox; createDriver: CreateDriver | undefined },
  job: { targets: readonly string[]; archives: readonly NoiseArchive[] },
): Promise<string[]> {
  const indexes = [
    ...new Set(job.archives.filter((a) => a.index_mode === 'new').map((a) => a.index as string)),
  ];
  const byDefault = job.archives.filter((a) => a.index_mode === 'default').map((a) => a.storage_path);
  if (indexes.length === 0 && byDefault.length === 0) return [];
  const warnings: string[] = [];
  await Promise.all(
    job.targets.map(async (siem) => {
      let destination: Destination;
      try {
        destination = await loadDestination(deps.db, deps.secretBox, siem);
      } catch (err) {
        warnings.push(`Indexes were not created on "${siem}": ${messageOf(err)}`);
        return;
      }
      if (destination.driver === 'syslog_tcp') {
        // decisions.md §5: labIndex= carries the destination's default index; without one there
        // is nothing to carry, and the collector cannot route those lines.
        if (byDefault.length > 0 && destination.index === null) {
          warnings.push(
            `syslog_tcp target "${siem}" has no index: lines of ${byDefault.map((p) => JSON.stringify(p)).join(', ')} ` +
              "(index_mode default) are sent without labIndex=; set the destination's index to label them",
          );
        }
        for (const index of indexes) {
          warnings.push(
            `Index "${index}" must be created on the collector of syslog_tcp target "${siem}"; ` +
              `Socdrill does not create it there (its events carry labIndex=${index})`,
          );
        }
        return;
      }
      if (indexes.length === 0) return;
      if (deps.createDriver === undefined) {
        for (const index of indexes) {
          warnings.push(
            `Index "${index}" was not created on ${destination.driver} target "${siem}": SIEM drivers ` +
              'are not available yet; create the index on the SIEM, or save the job again later',
          );
        }
        return;
      }
      let driver: Driver | undefined;
      try {
        driver = deps.createDriver(destination);
        for (const index of indexes) {
          try {
            const outcome = await driver.ensureIndex(index, AbortSignal.timeout(ENSURE_TIMEOUT_MS));
            if (!outcome.ok)
              warnings.push(`Index "${index}" could not be created on "${siem}": ${outcome.error}`);
          } catch (err) {
            warnings.push(`Index "${index}" could not be created on "${siem}": ${messageOf(err)}`);
          }
        }
      } catch (err) {
        warnings.push(`Indexes were not created on "${siem}": ${messageOf(err)}`);
      } finally {
        await driver?.close().catch(() => {});
      }
    }),
  );
  return warnings.sort();
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
