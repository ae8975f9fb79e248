import type { TObject, TProperties } from 'typebox';
import type { Destination, DestinationBase, PayloadFormat } from '../destinations/destination-types.ts';
import type { FrameFormat } from '../pipeline/frames/frame-format.ts';
import type { ResolvedSettings } from './settings-schema.ts';
import type { SiemClient, SiemDeps } from './siem-client.ts';

/**
 * Where a SIEM puts events by index:
 * - `native`: it stores events in named indexes a shipment picks (a custom index is a real target);
 * - `label`: it has none of its own; the lab index travels in each event (`labIndex=`), and the
 *   collector routes by it;
 * - `none`: indexes mean nothing to it.
 */
export type IndexSupport = 'native' | 'label' | 'none';

/** What a SIEM kind can do; domain code asks these, never a kind's name. */
export interface SiemCapabilities {
  readonly indexes: IndexSupport;
  /**
   * Events of a noise archive carry their lab index as a label: `labIndex=` on LEEF lines,
   * `labels.labIndex` on ECS documents converted from LEEF.
   */
  readonly labelsIndex: boolean;
  /** Indexes are created on the SIEM when a noise job routes to a new one (client.ensureIndex). */
  readonly indexCreation: boolean;
  /** Its events can be deleted (client.wipe): session wipes delete from it; it needs a default index. */
  readonly wipe: boolean;
  /** A shipment may name the syslog HOSTNAME its events carry (per-exercise log sources). */
  readonly sourceIdentity: boolean;
  /**
   * It has a console with log sources and offenses: its clients offer `logSources`
   * (log-source-admin.ts) when the destination is configured for it (SIEM Q, spec 2.6 and 3.4).
   */
  readonly logSources: boolean;
}

/** A destination of a kind whose settings are `P`, as its client reads it. */
export type KindDestination<P extends TProperties> = DestinationBase & ResolvedSettings<P>;

/**
 * A SIEM kind: everything the service knows about one kind of SIEM, in its own folder. Adding a
 * kind is a folder exporting one of these and a line in registry.ts (docs/ARCHITECTURE.md).
 */
export interface SiemKind<P extends TProperties = TProperties> {
  /** The `driver` value of its destinations (spec 2.1), e.g. `vendorA_hec`. */
  readonly name: string;
  /** A short human name for forms and docs. */
  readonly title: string;
  /** Its settings beyond the common ones (settings-schema.ts: required, Defaulted, Secret, groups). */
  readonly settings: TObject<P>;
  /** Payload formats it ships; the first is the default. */
  readonly payloadFormats: readonly [PayloadFormat, ...PayloadFormat[]];
  readonly capabilities: SiemCapabilities;
  /**
   * What its client takes: `events` (it encodes them itself) or `frames` (ready syslog frames
   * the shipping path writes in the pipeline, per frameFormat).
   */
  readonly intake: 'events' | 'frames';
  /** The frames of a shipment to `destination` (kinds with `frames` intake), with its source identity. */
  frameFormat?(destination: KindDestination<P>, shipment: { identity?: string }): FrameFormat;
  /** Why `name` cannot be an index on this SIEM (characters, length), or undefined. */
  indexNameProblem(name: string): string | undefined;
  /** Rules across settings the schema cannot state (credentials that go in pairs), by field. */
  settingsProblems?(settings: ResolvedSettings<P>): Record<string, string>;
  /** The client of one destination of this kind. */
  create(destination: KindDestination<P>, deps: SiemDeps): SiemClient;
}

/** A kind of any settings, as the registry holds it. */
export interface AnySiemKind extends Omit<SiemKind, 'create' | 'settingsProblems' | 'frameFormat'> {
  settingsProblems?(settings: Readonly<Record<string, unknown>>): Record<string, string>;
  frameFormat?(destination: Destination, shipment: { identity?: string }): FrameFormat;
  create(destination: Destination, deps: SiemDeps): SiemClient;
}

/** Declares a kind: checks its shape against its settings' types, and erases them for the registry. */
export function defineSiemKind<P extends TProperties>(kind: SiemKind<P>): AnySiemKind {
  return kind as unknown as AnySiemKind;
}
