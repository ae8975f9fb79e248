import type { Destination } from '../destinations/destination-types.ts';
import type { Logger } from '../logger.ts';
import type { FrameFormat } from '../pipeline/frames/frame-format.ts';
import { shipmentFrames } from '../pipeline/frames/shipment-frames.ts';
import { shipmentEvents } from '../pipeline/shipment/shipment-events.ts';
import type { SiemRegistry } from '../siems/registry.ts';
import type { SendOptions, ShipCounters, ShipResult, SiemClient } from '../siems/siem-client.ts';
import { type Failure, failure, type SiemFailure } from '../siems/siem-failure.ts';
import type { AnySiemKind } from '../siems/siem-kind.ts';
import type { PreparedSources } from './prepared-sources.ts';
import { type ArchiveIndex, landingIndex, type Route, routeFor } from './route-for.ts';

/** A destination ready to ship to, with its kind. */
export interface ShipTarget {
  readonly destination: Destination;
  readonly kind: AnySiemKind;
}

/** One shipment of prepared sources to one target. */
export interface ShipRequest {
  readonly target: ShipTarget;
  readonly sources: PreparedSources;
  /** Each source's own index choice (noise job archives); absent or null: none. */
  readonly routing?: readonly (ArchiveIndex | null)[];
  /** The syslog HOSTNAME the events carry, for a kind with the `sourceIdentity` capability. */
  readonly identity?: string;
  /**
   * The rebase shift to apply instead of the one pass 1 found: several shipments on one timeline
   * (an attempt's sections shipped hours apart) pass the same shift.
   */
  readonly shiftMs?: number;
  readonly signal: AbortSignal;
  /**
   * Longest the shipment may run, in ms (default: ShipDeps.deadlineMs, SHIPMENT_DEADLINE_SECONDS).
   * Then it stops as a cancelled one does, the rest failed with reason `deadline` (ShipOutcome.stopped).
   */
  readonly deadlineMs?: number;
  /** Counts so far over all sources, after each acknowledged batch. */
  readonly onProgress?: (counts: { shipped: number; failed: number }) => void;
}

/** What one source of a shipment came to. */
export interface SourceOutcome {
  readonly events: number;
  readonly shipped: number;
  readonly failed: number;
}

/** The outcome of a shipment; every event of the sources ends up shipped or failed. */
export interface ShipOutcome {
  readonly siem: string;
  readonly driver: string;
  /** Events of all sources. */
  readonly events: number;
  readonly shipped: number;
  /** events − shipped: refused, undeliverable, or never sent (cancelled, target stopped). */
  readonly failed: number;
  readonly retried: number;
  readonly bytes: number;
  /** Distinct error messages in the order they came, each naming the SIEM (and source, when several). */
  readonly errors: readonly string[];
  /** Why events failed, as data (reason, index, events). */
  readonly failures: readonly SiemFailure[];
  readonly perSource: readonly SourceOutcome[];
  /**
   * Why the shipment ended before every event was sent, when its deadline or its caller stopped it;
   * what it shipped by then is in `shipped`, the rest in `failed`. Null otherwise.
   */
  readonly stopped: ShipStop | null;
}

/** A shipment stopped early: its deadline passed (`deadlineMs` after it began), or it was cancelled. */
export type ShipStop =
  | { readonly reason: 'deadline'; readonly deadlineMs: number }
  | { readonly reason: 'cancelled' };

/** What ship() uses. */
export interface ShipDeps {
  readonly siems: SiemRegistry;
  readonly log: Logger;
  /** Longest a shipment runs, in ms (SHIPMENT_DEADLINE_SECONDS); none when absent. */
  readonly deadlineMs?: number;
}

/**
 * Ships the prepared sources, in order, to one target through one client of its kind — the only
 * caller of a kind's send side. Each source gets its route (routeFor). When the SIEM refuses a
 * source's index and nothing of it got through, later sources routed to that index are not sent
 * (their events fail with the same reason); when a source fails for a reason that concerns the
 * whole target (down, credentials, configuration), the later sources are not tried, so a broken
 * SIEM costs one retry schedule, not one per archive. Never throws for delivery; a client that
 * throws (a bug) fails the rest of the shipment with the reason.
 */
export async function ship(deps: ShipDeps, request: ShipRequest): Promise<ShipOutcome> {
  const { target, sources } = request;
  const { destination, kind } = target;
  const shipment = sources.shipment;
  const totals = new Totals();
  const perSource: SourceOutcome[] = [];
  const refused = new Map<string, Failure>();
  let stopped: Failure | undefined;

  let client: SiemClient;
  try {
    client = deps.siems.client(destination);
  } catch (err) {
    const why = failure(
      'internal',
      `SIEM "${destination.name}": its client could not be built: ${messageOf(err)}`,
    );
    totals.notSent(shipment.events, why);
    return outcome(
      target,
      sources,
      totals,
      sources.labels.map((_, i) => notSentSource(shipment.eventsPerSource[i] ?? 0)),
    );
  }
  // One shift for every source: pass 1's, or the caller's timeline (a shallow copy; pass 2 reads it).
  const timeline = request.shiftMs === undefined ? shipment : { ...shipment, shiftMs: request.shiftMs };
  // From here the shipment runs against its deadline: `signal` is the caller's or the deadline's.
  const deadline = shipmentDeadline(request.deadlineMs ?? deps.deadlineMs, request.signal, destination.name);
  const signal = deadline.signal;
  const stopReason = (): Failure => deadline.failure ?? cancelled(request.signal);
  try {
    for (const [i, label] of sources.labels.entries()) {
      const events = shipment.eventsPerSource[i] ?? 0;
      const route = routeFor(kind, request.routing?.[i] ?? null, destination);
      const landing = landingIndex(kind, route, destination);
      const skip = stopped ?? (signal.aborted ? stopReason() : undefined) ?? refusedFor(refused, landing);
      if (events === 0 || skip !== undefined) {
        if (events > 0) totals.notSent(events, skip as Failure);
        perSource.push(notSentSource(events));
        continue;
      }
      if (shipment.format === 'ecs' && route.output === 'leef') {
        stopped = failure(
          'config',
          `SIEM "${destination.name}": ECS archives cannot be shipped to a LEEF destination`,
        );
        totals.notSent(events, stopped);
        perSource.push(notSentSource(events));
        continue;
      }
      if (unlabelled(kind, request.routing?.[i] ?? null, route)) {
        // Saving a job refuses this (decisions.md §5); the destination's index was cleared since.
        totals.notSent(
          events,
          failure(
            'config',
            `SIEM "${destination.name}" has no index, so the lines of ${label} (index_mode default) would ` +
              "carry no labIndex= and the collector could not route them; set the destination's index",
          ),
        );
        perSource.push(notSentSource(events));
        continue;
      }
      const before = { shipped: totals.shipped, failed: totals.failed };
      const options: SendOptions = {
        index: route.index,
        now: shipment.now,
        signal,
        onProgress: (c: Readonly<ShipCounters>) =>
          request.onProgress?.({ shipped: before.shipped + c.shipped, failed: before.failed + c.failed }),
      };
      let result: ShipResult;
      try {
        // The kind says what its client takes: events, or syslog frames written here in the
        // pipeline (most straight from the archive's bytes) per the kind's frame format.
        result =
          client.intake === 'frames'
            ? await client.send(
                untilAborted(
                  shipmentFrames(timeline, i, frameFormatOf(target, request.identity), {
                    labIndex: route.labIndex,
                  }),
                  signal,
                ),
                options,
              )
            : await client.send(
                untilAborted(
                  shipmentEvents(timeline, i, { kind: route.output, labIndex: route.labIndex }),
                  signal,
                ),
                options,
              );
      } catch (err) {
        if (signal.aborted) {
          stopped = stopReason();
        } else {
          deps.log.error({ err, siem: destination.name }, 'SIEM client failed.');
          stopped = failure('internal', `${label}: the shipment failed: ${messageOf(err)}`);
        }
        totals.notSent(events, stopped);
        perSource.push(notSentSource(events));
        continue;
      }
      // A client counts what the deadline cut off as cancelled: it is the deadline's.
      totals.add(result, deadline.failure);
      // Events a client was handed but neither shipped nor failed (cancelled before it pulled them).
      const unsent = events - result.shipped - result.failed;
      if (unsent > 0)
        totals.notSent(
          unsent,
          signal.aborted
            ? stopReason()
            : failure('internal', `SIEM "${destination.name}": ${unsent} events were not sent`),
        );
      perSource.push({ events, shipped: result.shipped, failed: events - result.shipped });
      request.onProgress?.({ shipped: totals.shipped, failed: totals.failed });
      if (result.shipped === 0 && result.failed > 0) {
        const indexRefusal =
          landing !== null &&
          result.failures.length > 0 &&
          result.failures.every(
            (f) => f.reason === 'index_refused' && (f.index === undefined || f.index === landing),
          );
        if (indexRefusal) refused.set(landing, result.failures[0] as Failure);
        else
          stopped =
            deadline.failure ?? result.failures.find((f) => f.reason !== 'rejected') ?? result.failures[0];
      }
    }
  } finally {
    deadline.clear();
    await client.close().catch((err: unknown) => {
      deps.log.warn({ err, siem: destination.name }, 'SIEM client did not close cleanly.');
    });
  }
  const done = outcome(target, sources, totals, perSource);
  if (done.failed === 0 || !signal.aborted) return done;
  if (deadline.failure === undefined) return { ...done, stopped: { reason: 'cancelled' } };
  // The deadline's message first: it is why the rest was not sent.
  const why = deadline.failure.message;
  return {
    ...done,
    errors: [why, ...done.errors.filter((e) => e !== why)],
    stopped: { reason: 'deadline', deadlineMs: deadline.ms as number },
  };
}

/** The signal a shipment runs with: the caller's, aborted too when `ms` pass first. */
interface Deadline {
  readonly signal: AbortSignal;
  readonly ms: number | undefined;
  /** The failure of the events the deadline cut off, once it passed (before any cancellation). */
  readonly failure: Failure | undefined;
  clear(): void;
}

function shipmentDeadline(ms: number | undefined, caller: AbortSignal, siem: string): Deadline {
  if (ms === undefined) return { signal: caller, ms, failure: undefined, clear: () => {} };
  const controller = new AbortController();
  let passed: Failure | undefined;
  const timer = setTimeout(() => {
    if (caller.aborted) return;
    passed = failure(
      'deadline',
      `SIEM "${siem}": the shipment stopped at its ${ms / 1000} s deadline (SHIPMENT_DEADLINE_SECONDS)`,
    );
    controller.abort(new Error(passed.message));
  }, ms);
  timer.unref();
  return {
    signal: AbortSignal.any([caller, controller.signal]),
    ms,
    get failure() {
      return passed;
    },
    clear: () => clearTimeout(timer),
  };
}

function outcome(
  target: ShipTarget,
  sources: PreparedSources,
  totals: Totals,
  perSource: SourceOutcome[],
): ShipOutcome {
  return {
    siem: target.destination.name,
    driver: target.destination.driver,
    events: sources.shipment.events,
    shipped: totals.shipped,
    failed: sources.shipment.events - totals.shipped,
    retried: totals.retried,
    bytes: totals.bytes,
    errors: totals.errors,
    failures: totals.failures,
    perSource,
    stopped: null,
  };
}

function notSentSource(events: number): SourceOutcome {
  return { events, shipped: 0, failed: events };
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Sums the results of a shipment's sources. */
class Totals {
  shipped = 0;
  failed = 0;
  retried = 0;
  bytes = 0;
  readonly errors: string[] = [];
  readonly failures: SiemFailure[] = [];

  /** A client's result; its `cancelled` events count for `cancelledBy` instead, when given. */
  add(result: ShipResult, cancelledBy?: Failure): void {
    this.shipped += result.shipped;
    this.failed += result.failed;
    this.retried += result.retried;
    this.bytes += result.bytes;
    const cancelled = (f: Failure) => cancelledBy !== undefined && f.reason === 'cancelled';
    const replaced = new Set(result.failures.filter(cancelled).map((f) => f.message));
    // A client's messages name the SIEM and endpoint already.
    for (const e of result.errors) this.#error(replaced.has(e) ? (cancelledBy as Failure).message : e);
    for (const f of result.failures) this.#failure(cancelled(f) ? (cancelledBy as Failure) : f, f.events);
  }

  /** `events` never handed to the client, for `why`. */
  notSent(events: number, why: Failure): void {
    this.failed += events;
    this.#error(why.message);
    this.#failure(why, events);
  }

  #error(message: string): void {
    if (!this.errors.includes(message)) this.errors.push(message);
  }

  #failure(f: Failure, events: number): void {
    const i = this.failures.findIndex((x) => x.reason === f.reason && x.index === f.index);
    const same = this.failures[i];
    if (same) this.failures[i] = { ...same, events: same.events + events };
    else
      this.failures.push({
        reason: f.reason,
        ...(f.index === undefined ? {} : { index: f.index }),
        message: f.message,
        events,
      });
  }
}

/** The failure of a source whose index the SIEM refused earlier in this shipment, if so. */
function refusedFor(refused: ReadonlyMap<string, Failure>, landing: string | null): Failure | undefined {
  return landing === null ? undefined : refused.get(landing);
}

/** An archive with index routing to a kind that labels events, and no label to give them. */
function unlabelled(kind: AnySiemKind, archive: ArchiveIndex | null, route: Route): boolean {
  return archive !== null && kind.capabilities.indexes === 'label' && route.labIndex === null;
}

function cancelled(signal: AbortSignal): Failure {
  const reason: unknown = signal.reason;
  return failure(
    'cancelled',
    `cancelled: ${reason instanceof Error ? reason.message : 'the shipment was cancelled'}`,
  );
}

/** The frames of a shipment to a kind that takes frames, with the shipment's source identity. */
export function frameFormatOf(target: ShipTarget, identity: string | undefined): FrameFormat {
  const { kind, destination } = target;
  if (!kind.frameFormat)
    throw new Error(`SIEM kind "${kind.name}" takes frames but declares no frame format`);
  return kind.frameFormat(
    destination,
    kind.capabilities.sourceIdentity && identity !== undefined ? { identity } : {},
  );
}

/** Stops pulling once the shipment is cancelled; the client then ends with what it has. */
async function* untilAborted<T>(source: AsyncGenerator<T>, signal: AbortSignal): AsyncGenerator<T> {
  // Leaving the loop early closes the source (for await calls its return()).
  for await (const batch of source) {
    if (signal.aborted) return;
    yield batch;
  }
}
