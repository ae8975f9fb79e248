/**
 * A parsed LEEF event, structurally: what the LEEF parser produces and the converter consumes.
 * `delimiter` is the attribute delimiter character as used on the line (TAB for LEEF 1.0).
 * Attributes keep their order and any repeats.
 */
export interface LeefRecord {
  readonly version: string;
  readonly vendor: string;
  readonly product: string;
  readonly productVersion: string;
  readonly eventId: string;
  readonly delimiter: string;
  readonly attributes: ReadonlyArray<readonly [string, string]>;
}
