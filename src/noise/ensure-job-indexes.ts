import { type DestinationDeps, loadDestination } from '../destinations/destination-service.ts';
import type { Destination } from '../destinations/destination-types.ts';
import type { SiemClient } from '../siems/siem-client.ts';
import type { NoiseArchive } from './job-store.ts';

/** How long one index creation may take. */
const ENSURE_TIMEOUT_MS = 15_000;

/**
 * Creates the job's `new` indexes on its targets whose kind creates indexes (spec 4.1, last
 * paragraph: vendorA_hec, vendorB_bulk) and returns a warning for every index that is not known to
 * exist afterwards: on targets whose kind only labels events with it (syslog_tcp: created on the
 * collector by hand, named in the warning), and when the SIEM refused or did not answer. Never
 * throws: the job is saved either way.
 */
export async function ensureJobIndexes(
  deps: DestinationDeps,
  job: { targets: readonly string[]; archives: readonly NoiseArchive[] },
): Promise<string[]> {
  const indexes = [
    ...new Set(job.archives.filter((a) => a.index_mode === 'new').map((a) => a.index as string)),
  ];
  if (indexes.length === 0) return [];
  const warnings: string[] = [];
  await Promise.all(
    job.targets.map(async (siem) => {
      let destination: Destination;
      try {
        destination = await loadDestination(deps, siem);
      } catch (err) {
        warnings.push(`Indexes were not created on "${siem}": ${messageOf(err)}`);
        return;
      }
      const kind = deps.siems.kindOf(destination);
      if (kind.capabilities.indexes === 'label') {
        for (const index of indexes) {
          warnings.push(
            `Index "${index}" must be created on the collector of ${kind.name} target "${siem}"; ` +
              `Socdrill does not create it there (its events carry labIndex=${index})`,
          );
        }
        return;
      }
      if (!kind.capabilities.indexCreation) return;
      let client: SiemClient | undefined;
      try {
        client = deps.siems.client(destination);
        for (const index of indexes) {
          try {
            const outcome = client.ensureIndex
              ? await client.ensureIndex(index, AbortSignal.timeout(ENSURE_TIMEOUT_MS))
              : { ok: false as const, index, error: `the ${kind.name} client cannot create indexes` };
            if (!outcome.ok)
              warnings.push(`Index "${index}" could not be created on "${siem}": ${outcome.error}`);
          } catch (err) {
            warnings.push(`Index "${index}" could not be created on "${siem}": ${messageOf(err)}`);
          }
        }
      } catch (err) {
        warnings.push(`Indexes were not created on "${siem}": ${messageOf(err)}`);
      } finally {
        await client?.close().catch(() => {});
      }
    }),
  );
  return warnings.sort();
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
