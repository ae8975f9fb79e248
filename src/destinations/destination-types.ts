/** Payload formats a SIEM can take (spec 2.1): LEEF lines or ECS documents. */
export const PAYLOAD_FORMATS = ['leef', 'ecs'] as const;
export type PayloadFormat = (typeof PAYLOAD_FORMATS)[number];

/** Fields every destination has, whatever its kind. */
// A type, not an interface: a kind's destination type must be assignable to Destination's index
// signature, which TypeScript allows for type aliases only.
export type DestinationBase = {
  readonly id: string;
  readonly name: string;
  /** Its SIEM kind's name (src/siems/registry.ts). */
  readonly driver: string;
  readonly payload_format: PayloadFormat;
  /** Default index (on a kind with native indexes the target, else the labIndex= default). */
  readonly index: string | null;
  readonly enabled: boolean;
};

/**
 * A destination with its settings resolved and secrets decrypted: what a SIEM kind's client is
 * built from. Never sent to clients of the API. A kind reads its own settings through its typed
 * view (siems/siem-kind.ts KindDestination).
 */
export type Destination = DestinationBase & Readonly<Record<string, unknown>>;
