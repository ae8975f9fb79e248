import type { paths } from '../../api/schema.gen.ts';

type WipeOperation = paths['/api/sessions']['delete'];

/** The answer of a wipe that succeeded for every SIEM (200). */
export type WipeResult = WipeOperation['responses'][200]['content']['application/json'];

/** The answer of a wipe that failed for at least one SIEM (502): the same fields plus `errors`. */
export type WipeFailure = WipeOperation['responses'][502]['content']['application/json'];

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
