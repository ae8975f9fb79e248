import type { ArchiveLimits } from '../pipeline/archive/archive-limits.ts';
import type { EcsScanPool } from '../pipeline/ecs/ecs-scan-pool.ts';
import {
  type PreparedShipment,
  prepareShipment,
  type ShipmentFormat,
  type ShipmentSource,
} from '../pipeline/shipment/prepare-shipment.ts';

/** Archives read and rebased (pass 1) once, ready to ship to one target or several. */
export interface PreparedSources {
  readonly shipment: PreparedShipment;
  /** Each source's label (a storage path, a URL's host and path), for messages. */
  readonly labels: readonly string[];
}

/**
 * Opens every source, checks each entry's format (failing closed), and runs pass 1: counts and one
 * rebase shift for all of them (decisions.md §5). Throws `no_events` when nothing is left to ship,
 * `archive_invalid` or `payload_too_large` for an archive the limits refuse.
 */
export async function prepareSources(
  sources: readonly ShipmentSource[],
  options: {
    format: ShipmentFormat;
    now: number;
    limits: Partial<ArchiveLimits>;
    signal?: AbortSignal;
    ecsScanPool?: EcsScanPool | null;
  },
): Promise<PreparedSources> {
  const shipment = await prepareShipment(sources, options);
  return { shipment, labels: sources.map((s) => s.label) };
}
