import type { Logger } from '../../logger.ts';
import type { ShipResult } from '../siem-client.ts';

/** Logs a finished shipment the same way for every driver, and hands the result back. */
export function logShipResult(log: Logger, siem: string, result: ShipResult): ShipResult {
  if (result.failed > 0) {
    log.error(
      {
        siem,
        shipped: result.shipped,
        failed: result.failed,
        retried: result.retried,
        error: result.errors[0],
      },
      'Events were not delivered to the SIEM.',
    );
  } else {
    log.debug({ siem, shipped: result.shipped, retried: result.retried }, 'Shipment delivered.');
  }
  return result;
}
