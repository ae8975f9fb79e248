/**
 * Why events did not reach a SIEM, as data (engineering-models C.3): callers decide on the reason
 * (a noise run skips the later archives of a refused index but stops at refused credentials),
 * never on the wording of a message.
 * - `unreachable`: no connection, or it broke (refused, reset, timed out), past the retries;
 * - `tls`: the certificate or TLS handshake was refused (retrying cannot fix it);
 * - `auth`: the SIEM refused the credentials (token, API key, user);
 * - `index_refused`: the SIEM refuses the target index (missing, not allowed for the credentials);
 * - `unavailable`: the SIEM answered but would not take events (overloaded, blocked) past the retries;
 * - `rejected`: these events themselves were refused (bad data, too large, no header to send);
 * - `config`: a setting the SIEM cannot work with (wrong URL or path, unsupported request);
 * - `cancelled`: the shipment was cancelled (shutdown, lost lease);
 * - `deadline`: the shipment ran out of time (SHIPMENT_DEADLINE_SECONDS) before these were sent;
 * - `internal`: a fault on our side (the event source failed, an unexpected error).
 */
export type FailureReason =
  | 'unreachable'
  | 'tls'
  | 'auth'
  | 'index_refused'
  | 'unavailable'
  | 'rejected'
  | 'config'
  | 'cancelled'
  | 'deadline'
  | 'internal';

/** One cause of failure: its reason, the index it concerns when there is one, and a message for people. */
export interface Failure {
  readonly reason: FailureReason;
  /** The SIEM's index the failure concerns (`index_refused`). */
  readonly index?: string;
  /** Names the SIEM, the endpoint and what went wrong; secrets scrubbed. */
  readonly message: string;
}

/** A failure with the number of events it cost, as a shipment reports it. */
export interface SiemFailure extends Failure {
  readonly events: number;
}

/** A Failure of `reason` with `message` (and the index, for `index_refused`). */
export function failure(reason: FailureReason, message: string, index?: string): Failure {
  return index === undefined ? { reason, message } : { reason, message, index };
}
