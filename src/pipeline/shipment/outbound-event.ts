/**
 * One event on its way to a SIEM, after rebasing. LEEF drivers read `line` (a LEEF line, possibly
 * with the syslog header it came with); ECS drivers read `json` (the document as one line of JSON
 * text, as read and rebased from an archive) or else `doc`. `time` is the rebased event time in
 * epoch ms, or null when the event had no readable time.
 */
export interface OutboundEvent {
  readonly line?: string;
  readonly json?: string;
  readonly doc?: Readonly<Record<string, unknown>>;
  readonly time: number | null;
  /**
   * A LEEF line held as bytes (leef-byte-events.ts): `line` is `lineBuf[lineStart, lineEnd)` as
   * UTF-8, decoded only when read. A driver that writes bytes reads them instead.
   */
  readonly lineBuf?: Buffer;
  readonly lineStart?: number;
  readonly lineEnd?: number;
  /**
   * With `writeJson`: an ECS document held as bytes (ecs-byte-document.ts) whose `json` is built
   * only when read. A driver that writes bytes copies it with writeJson, `jsonBytes` long.
   */
  readonly jsonBytes?: number;
  /** Writes the document's bytes (see jsonBytes) at `out[offset]`; returns the offset after them. */
  writeJson?(out: Buffer, offset: number): number;
}
