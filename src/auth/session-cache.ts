import type { Clock } from '../clock.ts';
import type { SessionEnded, SessionEvents } from './session-events.ts';
import { hashSessionToken, type ResolvedSession } from './sessions.ts';

/** How long a resolved session answers from memory before the database is asked again. */
export const SESSION_CACHE_MS = 2_000;

/** Entries beyond this are swept of expired ones (one per signed-in browser, in practice few). */
const SWEEP_AT = 10_000;

type Lookup = (token: string) => Promise<ResolvedSession | null>;

/**
 * Resolved sessions kept for {@link SESSION_CACHE_MS}, with concurrent lookups of one session
 * shared. Why: every API request resolved its session with two queries, and on the embedded
 * database those run on the event loop; 200 concurrent requests meant 400 queries in a row and a
 * p99 of seconds (docs/performance.md, `npm run bench -- api`). A cached session still ends at
 * its absolute and idle expiry to the millisecond. Sign-out, password change, disabling and
 * deletion (SessionEvents `ended`) drop it at once, and a change of roles, permissions or name
 * (`accessChanged`) drops every entry; another instance sharing the database sees those changes
 * within {@link SESSION_CACHE_MS}.
 */
export class SessionCache {
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #entries = new Map<string, { session: ResolvedSession; until: number }>();
  readonly #pending = new Map<string, Promise<ResolvedSession | null>>();
  // Bumped by every invalidation: a lookup that began before one is not remembered.
  #generation = 0;

  constructor(clock: Clock, events: SessionEvents, ttlMs = SESSION_CACHE_MS) {
    this.#clock = clock;
    this.#ttlMs = ttlMs;
    events.on('ended', (what: SessionEnded) => this.#forget(what));
    events.on('accessChanged', () => this.clear());
  }

  /** The session of `token` (null when it is not a valid one), from memory when fresh. */
  async resolve(token: string, lookup: Lookup): Promise<ResolvedSession | null> {
    const key = hashSessionToken(token);
    const now = this.#clock.now();
    const hit = this.#entries.get(key);
    if (hit !== undefined && now < hit.until && now < hit.session.validUntil) return hit.session;
    const pending = this.#pending.get(key);
    if (pending !== undefined) return pending;
    const generation = this.#generation;
    const looking = lookup(token).then(
      (session) => {
        if (this.#pending.get(key) === looking) this.#pending.delete(key);
        // Refusals are not kept: a stale tab's token is not worth memory, and random tokens must not fill it.
        if (session !== null && generation === this.#generation) this.#remember(key, session);
        return session;
      },
      (err: unknown) => {
        if (this.#pending.get(key) === looking) this.#pending.delete(key);
        throw err;
      },
    );
    this.#pending.set(key, looking);
    return looking;
  }

  /** Forgets every session (a role, permission or user changed). */
  clear(): void {
    this.#generation += 1;
    this.#entries.clear();
    this.#pending.clear();
  }

  #forget(what: SessionEnded): void {
    this.#generation += 1;
    this.#pending.clear();
    if ('sessionHash' in what) {
      this.#entries.delete(what.sessionHash);
      return;
    }
    for (const [key, entry] of this.#entries) {
      if (entry.session.actor.userId === what.userId) this.#entries.delete(key);
    }
  }

  #remember(key: string, session: ResolvedSession): void {
    const now = this.#clock.now();
    if (this.#entries.size >= SWEEP_AT) {
      for (const [k, entry] of this.#entries) if (now >= entry.until) this.#entries.delete(k);
      if (this.#entries.size >= SWEEP_AT) this.#entries.clear();
    }
    this.#entries.set(key, { session, until: now + this.#ttlMs });
  }
}
