import type { Clock } from '../clock.ts';
import { EXERCISE_BUCKET } from '../exercises/exercise-archives.ts';
import type { Exercise, StoredArchive } from '../exercises/exercise-types.ts';
import { LEGACY_SECTION } from '../exercises/exercise-types.ts';
import type { Logger } from '../logger.ts';
import type { Shipping } from '../shipping/shipping.ts';
import type { ObjectStorage } from '../storage/object-storage.ts';
import type { AttemptRow } from './attempt-store.ts';
import { sectionIdentity } from './section-identity.ts';

/** What shipping one section uses. */
export interface SectionShipperDeps {
  readonly shipping: Shipping;
  readonly storage: ObjectStorage;
  readonly clock: Clock;
  readonly log: Logger;
  /** Aborted at shutdown: a shipment then stops, its section `failed` (retried later). */
  readonly stopping: AbortSignal;
  /** SHIPMENT_DEADLINE_SECONDS in ms: pass 1 and the shipment are each held to it. */
  readonly deadlineMs: number;
}

/** How one section's shipment ended. */
export interface SectionShipment {
  readonly status: 'shipped' | 'failed';
  readonly shipped: number;
  readonly failed: number;
  readonly error: string | null;
}

/**
 * Ships one claimed section of an attempt through the shipping path: its archive in the
 * destination's format, the attempt's one shift (so later sections continue the timeline), and the
 * section's identity as syslog HOSTNAME for kinds that take one. Never throws: what went wrong is
 * the outcome's error, and the section is `failed` (retried by Ship logs after its cooldown).
 */
export async function shipSection(
  deps: SectionShipperDeps,
  attempt: AttemptRow,
  exercise: Exercise,
  archives: readonly StoredArchive[],
  sectionKey: string,
): Promise<SectionShipment> {
  const section = exercise.sections.find((s) => s.id === sectionKey);
  const sectionName =
    sectionKey === LEGACY_SECTION ? 'the exercise archive' : `section "${section?.name ?? sectionKey}"`;
  let events = 0;
  try {
    const target = await deps.shipping.target(attempt.siem);
    const { destination, kind } = target;
    const format = destination.payload_format;
    const archive = archives.find(
      (a) =>
        a.format === format &&
        (sectionKey === LEGACY_SECTION ? a.sectionId === null : a.sectionId === sectionKey),
    );
    if (!archive) {
      return failed(
        0,
        `SIEM "${destination.name}" takes ${format.toUpperCase()}, and ${sectionName} has no ${format.toUpperCase()} archive`,
      );
    }
    events = archive.events;
    deps.shipping.warmFor(format);
    const data = await deps.storage.get(EXERCISE_BUCKET, archive.storageKey, deps.stopping);
    const preparing = AbortSignal.any([deps.stopping, AbortSignal.timeout(deps.deadlineMs)]);
    const sources = await deps.shipping.prepare(
      [
        {
          data,
          kind: archive.archiveKind,
          name: archive.filename,
          label: `${exercise.title} / ${sectionName}`,
        },
      ],
      { format, signal: preparing },
    );
    events = sources.shipment.events;
    const identity = kind.capabilities.sourceIdentity
      ? sectionIdentity(
          exercise.id,
          sectionKey === LEGACY_SECTION ? null : (section?.position ?? null),
          destination.name,
        )
      : undefined;
    const outcome = await deps.shipping.ship({
      target,
      sources,
      shiftMs: Number(attempt.shift_ms),
      ...(identity !== undefined ? { identity } : {}),
      signal: deps.stopping,
    });
    if (outcome.failed === 0 && outcome.shipped === events) {
      return { status: 'shipped', shipped: outcome.shipped, failed: 0, error: null };
    }
    return {
      status: 'failed',
      shipped: outcome.shipped,
      failed: events - outcome.shipped,
      error: `${events - outcome.shipped} of ${events} events of ${sectionName} not delivered to SIEM "${destination.name}": ${outcome.errors[0] ?? 'unknown cause'}`,
    };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    deps.log.warn({ attempt: attempt.id, section: sectionKey, err: message }, 'Section shipment failed.');
    return failed(events, `${sectionName}: ${message}`);
  }
}

function failed(events: number, error: string): SectionShipment {
  return { status: 'failed', shipped: 0, failed: events, error };
}
