import type { Destination } from '../destinations/destination-types.ts';
import { AppError } from '../errors.ts';

/**
 * The SIEM Q readiness gate of spec 3.3/4.2, run before anything is downloaded or shipped: when a
 * syslog_tcp destination has "Provision log source" on, every exercise section's log source must
 * be provisioned and deployed, and the console API reachable. Log-source provisioning is not part
 * of this version, so such a destination fails closed with an error saying so rather than shipping
 * into a SIEM Q that cannot attribute the events.
 */
export async function assertSiemQReady(destination: Destination): Promise<void> {
  // A setting only SIEM Q's syslog kind has; other kinds' destinations never set it.
  if (destination.provision_log_source !== true) return;
  throw new AppError(
    'conflict',
    `SIEM "${destination.name}" has provision_log_source on, but SIEM Q log-source provisioning is not available in this version; turn provision_log_source off to ship without per-section log sources`,
    { details: { siem: destination.name, reason: 'siem_q_provisioning_unavailable' } },
  );
}
