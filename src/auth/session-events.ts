import { EventEmitter } from 'node:events';

/** Which sessions ended: one session, or every session of a user. */
export type SessionEnded = { readonly sessionHash: string } | { readonly userId: string };

/**
 * In-process notifications that sessions ended (sign-out, rotation, password change, disabling,
 * deletion), so long-lived responses such as event streams close at once instead of at their next
 * check. Expiry is not announced: streams re-check their session periodically.
 */
export class SessionEvents extends EventEmitter<{ ended: [SessionEnded]; accessChanged: [] }> {
  constructor() {
    super();
    // One listener per open stream; a busy console may hold many.
    this.setMaxListeners(0);
  }

  /** Announces ended sessions. */
  ended(what: SessionEnded): void {
    this.emit('ended', what);
  }

  /** Announces that what some signed-in user may do or is called changed (roles, permissions, name). */
  accessChanged(): void {
    this.emit('accessChanged');
  }
}
