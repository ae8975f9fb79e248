import type { paths } from '../../api/schema.gen.ts';

type WipeOperation = paths['/api/sessions']['delete'];

/** The answer of a wipe that succeeded for every SIEM (200). */
export type WipeResult = WipeOperation['responses'][200]['content']['application/json'];

/** The answer of a wipe that failed for at least one SIEM (502): the same fields plus `errors`. */
export type WipeFailure = WipeOperation['responses'][502]['content']['application/json'];

/** One SIEM Q destination's offense cleanup in a wipe's answer (same shape on 200 and 502). */
export type OffenseCleanup = NonNullable<WipeResult['offense_cleanup']>[number];

/** What a wipe ended with: every SIEM wiped, or some failed (502 with per-SIEM errors). */
export type WipeOutcome =
  | { readonly failed: false; readonly body: WipeResult }
  | { readonly failed: true; readonly body: WipeFailure };

/** The text a person must type to confirm wiping these SIEMs, e.g. `wipe splunk-lab, elastic-lab`. */
export function confirmationText(names: readonly string[]): string {
  return `wipe ${names.join(', ')}`;
}

/** Whether the typed confirmation matches exactly (no trimming, case-sensitive). */
export function isConfirmed(names: readonly string[], typed: string): boolean {
  return names.length > 0 && typed === confirmationText(names);
}

/** Whether a 502 body is the wipe's own answer (not a proxy's page). */
export function isWipeFailure(body: unknown): body is WipeFailure {
  if (!body || typeof body !== 'object') return false;
  const b = body as Record<string, unknown>;
  return Array.isArray(b.errors) && Array.isArray(b.wiped);
}

/** How many offenses a cleanup closed, e.g. `offenses closed 3 of 3` (or that none were open). */
export function offenseCount(cleanup: OffenseCleanup): string {
  if (cleanup.found === 0 && cleanup.status === 'ok') return 'no open offenses found';
  const count = `offenses closed ${cleanup.closed} of ${cleanup.found}`;
  return cleanup.failed > 0 ? `${count}, ${cleanup.failed} could not be closed` : count;
}
