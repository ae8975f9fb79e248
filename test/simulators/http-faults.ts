import { EventEmitter } from 'node:events';

/** Which requests a queued fault applies to; omitted parts match anything. */
export interface RequestMatch {
  readonly method?: string;
  /** Exact path, or a pattern tested against the path (query string excluded). */
  readonly path?: string | RegExp;
}

/**
 * One injected fault for one request:
 * - `status`: answer with this status without processing; the simulator fills in the product's
 *   body for that status unless `body` is given (`errorType` picks a variant, e.g. a bulk 429 type);
 * - `close: 'mid-body'`: drop the connection after `afterBytes` body bytes (default 0); nothing stored;
 * - `close: 'after-processing'`: process and store normally, then drop the connection unanswered
 *   (the sender cannot know its data arrived).
 * `reset` sends a TCP RST instead of a FIN; `delayMs` delays just this answer.
 */
export type HttpFault =
  | {
      readonly status: number;
      readonly body?: string | object;
      readonly headers?: Readonly<Record<string, string>>;
      readonly errorType?: string;
      readonly delayMs?: number;
      readonly match?: RequestMatch;
    }
  | {
      readonly close: 'mid-body';
      readonly afterBytes?: number;
      readonly reset?: boolean;
      readonly match?: RequestMatch;
    }
  | {
      readonly close: 'after-processing';
      readonly reset?: boolean;
      readonly delayMs?: number;
      readonly match?: RequestMatch;
    };

/** Hooks a fault controller needs from its server. */
export interface ListenerControl {
  stopListening(): Promise<void>;
  resumeListening(): Promise<void>;
}

/**
 * Fault switches of one simulated HTTP endpoint. Queued faults (`next`) are consumed in order by the
 * first requests they match; the properties apply to every request while set.
 */
export class HttpFaults {
  /** Milliseconds to wait before every answer (a slow receiver). */
  delayMs = 0;
  /** Read request bodies at about this rate (slow reads; the sender's writes back up). */
  readBytesPerSecond: number | null = null;
  /** Answer every request by resetting its connection. */
  resetConnections = false;
  readonly #queue: Array<{ fault: HttpFault; left: number }> = [];
  readonly #events = new EventEmitter();
  readonly #listener: ListenerControl;
  #stallReads = false;

  constructor(listener: ListenerControl) {
    this.#listener = listener;
    this.#events.setMaxListeners(0);
  }

  /** Stop reading request bodies until set back to false (the sender sees back-pressure). */
  get stallReads(): boolean {
    return this.#stallReads;
  }

  set stallReads(value: boolean) {
    this.#stallReads = value;
    if (!value) this.#events.emit('unstall');
  }

  /** Applies `fault` to the next `count` matching requests. */
  next(count: number, fault: HttpFault): void {
    if (count > 0) this.#queue.push({ fault, left: count });
  }

  /** Drops the next `count` connections after `bytes` body bytes were read. */
  closeAfter(bytes: number, count = 1): void {
    this.next(count, { close: 'mid-body', afterBytes: bytes });
  }

  /** Processes and stores the next `count` requests, then drops their connections unanswered. */
  acceptThenClose(count = 1): void {
    this.next(count, { close: 'after-processing' });
  }

  /** Stops listening: new connections get ECONNREFUSED (idle keep-alive connections are closed). */
  refuse(): Promise<void> {
    return this.#listener.stopListening();
  }

  /** Listens again on the same port. */
  accept(): Promise<void> {
    return this.#listener.resumeListening();
  }

  /** Queued faults not yet consumed (sum of remaining counts). */
  pending(): number {
    return this.#queue.reduce((n, q) => n + q.left, 0);
  }

  /** Forgets queued faults and resets every switch (listening is left as it is). */
  clear(): void {
    this.#queue.length = 0;
    this.delayMs = 0;
    this.readBytesPerSecond = null;
    this.resetConnections = false;
    this.stallReads = false;
  }

  /** The fault for this request, consumed from the queue; used by the simulator servers. */
  take(method: string, path: string): HttpFault | undefined {
    const i = this.#queue.findIndex((q) => matches(q.fault.match, method, path));
    if (i < 0) return undefined;
    const entry = this.#queue[i]!;
    entry.left--;
    if (entry.left === 0) this.#queue.splice(i, 1);
    return entry.fault;
  }

  /** Resolves when reads are not stalled; used by the simulator servers. */
  async whileStalled(): Promise<void> {
    while (this.#stallReads) await new Promise((resolve) => this.#events.once('unstall', resolve));
  }
}

function matches(match: RequestMatch | undefined, method: string, path: string): boolean {
  if (!match) return true;
  if (match.method && match.method.toUpperCase() !== method) return false;
  if (match.path === undefined) return true;
  return typeof match.path === 'string' ? match.path === path : match.path.test(path);
}
