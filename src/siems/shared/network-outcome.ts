import type { SendOutcome } from './deliver.ts';
import type { NetworkFailure } from './network-failure.ts';

/**
 * A request without an answer: cancelled stays cancelled, a TLS failure is a configuration error
 * (retrying cannot fix a certificate), anything else — refused, reset, timed out — is retried.
 */
export function networkOutcome(failure: NetworkFailure): SendOutcome {
  if (failure.cancelled) return { kind: 'cancelled' };
  if (failure.tls) return { kind: 'stop', reason: failure.message, cause: { reason: 'tls' } };
  return { kind: 'retry', reason: failure.message, cause: { reason: 'unreachable' } };
}
