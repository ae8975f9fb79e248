import { performance } from 'node:perf_hooks';
import type { AppContext } from '../context.ts';
import { createDriver } from '../siems/registry.ts';
import type { CheckStep } from '../siems/siem-client.ts';
import { loadDestination } from './destination-service.ts';

export type { CheckStep };

/** Result of POST /api/destinations/:name/test. */
export interface CheckResult {
  ok: boolean;
  siem: string;
  driver: string;
  checks: CheckStep[];
  duration_ms: number;
}

/** Longest a whole check may take; each request also has its own connect and read timeouts. */
const CHECK_TIMEOUT_MS = 30_000;

/**
 * Runs the driver's live check against the SIEM. A SIEM that is down is an answer, not an error:
 * `ok: false` with each step's message. `ok` is true only when there were steps and all passed.
 * A driver that does not exist yet answers 501 rather than pretending the SIEM is reachable.
 */
export async function checkDestination(ctx: AppContext, name: string): Promise<CheckResult> {
  const destination = await loadDestination(ctx.db, ctx.secretBox, name);
  const started = performance.now();
  // Throws not_implemented for a driver that is not written yet.
  const driver = createDriver(destination, { log: ctx.log, clock: ctx.clock });
  let checks: CheckStep[];
  try {
    checks = await driver.check(AbortSignal.timeout(CHECK_TIMEOUT_MS));
  } finally {
    await driver.close().catch(() => {});
  }
  return {
    ok: checks.length > 0 && checks.every((c) => c.ok),
    siem: destination.name,
    driver: destination.driver,
    checks,
    duration_ms: Math.round(performance.now() - started),
  };
}
