import type { AfterCompleteHook, BeforeShipGate } from '../attempts/attempt-hooks.ts';
import { assertSiemQReady } from '../lab-sessions/siem-q-readiness.ts';
import type { PublishCheck } from './publish-exercise.ts';

/**
 * The SIEM Q seams of exercises until per-section log-source provisioning exists: a destination
 * with `provision_log_source` on cannot be published for (a `siem_q_error` problem naming it) nor
 * shipped to (the readiness gate's 409), rather than shipping events the SIEM cannot attribute.
 * The SIEM Q issue replaces these three with the console client's provisioning, gate and cleanup.
 */
export const siemQPublishCheck: PublishCheck = {
  name: 'siem_q_provisioning',
  async check(_exercise, destinations) {
    const problems = destinations
      .filter((d) => d.provision_log_source === true)
      .map((d) => ({
        code: 'siem_q_error',
        siem: d.name,
        message: `SIEM "${d.name}" has provision_log_source on, but SIEM Q log-source provisioning is not available in this version; turn provision_log_source off to publish without per-section log sources`,
      }));
    return { problems, warnings: [] };
  },
};

/** Before an attempt ships: the same readiness rule session start applies. */
export const siemQGate: BeforeShipGate = {
  name: 'siem_q_readiness',
  check: (_exercise, destination) => assertSiemQReady(destination),
};

/** The offense cleanup seam: nothing to close while no log source is provisioned. */
export const siemQCleanup: AfterCompleteHook = {
  name: 'siem_q_offense_cleanup',
  run: async () => null,
};
