import { performance } from 'node:perf_hooks';
import type { CheckStep } from '../siems/siem-client.ts';
import { type DestinationDeps, loadDestination } from './destination-service.ts';

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
 * Runs the kind's live check against the SIEM, through the context's registry (the same clients
 * shipping uses). A SIEM that is down is an answer, not an error: `ok: false` with each step's
 * message. `ok` is true only when there were steps and all passed.
 */
export async function checkDestination(deps: DestinationDeps, name: string): Promise<CheckResult> {
  const destination = await loadDestination(deps, name);
  const started = performance.now();
  const client = deps.siems.client(destination);
  let checks: CheckStep[];
  try {
    checks = await client.check(AbortSignal.timeout(CHECK_TIMEOUT_MS));
  } finally {
    await client.close().catch(() => {});
  }
  return {
    ok: checks.length > 0 && checks.every((c) => c.ok),
    siem: destination.name,
    driver: destination.driver,
    checks,
    duration_ms: Math.round(performance.now() - started),
  };
}
