import type { Destination, PayloadFormat } from '../destinations/destination-types.ts';
import type { AnySiemKind } from '../siems/siem-kind.ts';

/**
 * An archive's own index choice (a noise job's archive, spec 4.1; decisions.md §4): the
 * destination's default index, or a named one (`existing` or `new`).
 */
export interface ArchiveIndex {
  readonly index_mode: 'default' | 'existing' | 'new';
  readonly index: string | null;
}

/** Where one archive's events go on one destination, and in which form. */
export interface Route {
  /** The index a SIEM with native indexes writes to; null is the destination's default. */
  readonly index: string | null;
  /** The lab index the events carry as a label (`labIndex=`, `labels.labIndex`), or null. */
  readonly labIndex: string | null;
  /** What the SIEM is sent: LEEF lines or ECS documents (LEEF input is converted). */
  readonly output: PayloadFormat;
}

/**
 * The route of `archive` on `destination` of `kind`, from the kind's capabilities (decisions.md
 * §5, docs/noise.md): a SIEM with native indexes writes to the archive's index, else the
 * destination's default; a kind that labels events gives them the archive's index, else the
 * destination's default, else none. An archive without index routing (null: a session start's,
 * an exercise section's) goes to the default index and carries no label.
 */
export function routeFor(kind: AnySiemKind, archive: ArchiveIndex | null, destination: Destination): Route {
  if (archive === null) return { index: null, labIndex: null, output: destination.payload_format };
  const own = archive.index_mode === 'default' ? null : archive.index;
  const { indexes, labelsIndex } = kind.capabilities;
  return {
    index: indexes === 'native' ? own : null,
    labIndex: labelsIndex && indexes !== 'none' ? (own ?? destination.index ?? null) : null,
    output: destination.payload_format,
  };
}

/**
 * The index a route's events land in on a SIEM with native indexes (the route's, else the
 * destination's default); null when the kind has none of its own (nothing there can refuse one).
 */
export function landingIndex(kind: AnySiemKind, route: Route, destination: Destination): string | null {
  if (kind.capabilities.indexes !== 'native') return null;
  return route.index ?? destination.index;
}
