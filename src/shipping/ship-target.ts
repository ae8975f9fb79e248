import type { DestinationDeps } from '../destinations/destination-service.ts';
import { loadDestination } from '../destinations/destination-service.ts';
import type { Destination } from '../destinations/destination-types.ts';
import { AppError } from '../errors.ts';
import type { ShipTarget } from './ship.ts';

/**
 * The destination named `siem` with its kind, ready to ship to: `404 not_found` when there is no
 * such destination, `409 destination_disabled` when it is disabled (decisions.md §5).
 */
export async function loadShipTarget(
  deps: DestinationDeps,
  siem: string,
  options: { allowDisabled?: boolean } = {},
): Promise<ShipTarget> {
  const destination = await loadDestination(deps, siem);
  if (!options.allowDisabled) assertEnabled(destination);
  return { destination, kind: deps.siems.kindOf(destination) };
}

/** `409 destination_disabled` for a disabled destination: nothing is shipped to it. */
export function assertEnabled(destination: Destination): void {
  if (destination.enabled) return;
  throw new AppError('destination_disabled', `SIEM destination "${destination.name}" is disabled`, {
    details: { siem: destination.name },
  });
}
