import { shipmentFrames } from '../pipeline/frames/shipment-frames.ts';
import { createHeaderWriter } from '../pipeline/syslog/header-mode.ts';
import type { PreparedSources } from './prepared-sources.ts';
import type { ShipTarget } from './ship.ts';
import { frameFormatOf } from './ship.ts';

/** Lines that would need a synthesized syslog header nobody can name the HOSTNAME of. */
export interface IdentityProblem {
  readonly message: string;
  /** Lines that would be refused for it. */
  readonly lines: number;
  /** Lines of the shipment. */
  readonly events: number;
}

/**
 * Why shipping `sources` to `target` cannot go ahead without a source identity, or undefined
 * (decisions.md §5): the kind's frames must synthesize syslog headers — force_synthesize for
 * every line, synthesize_if_missing for lines without one — and neither the destination nor the
 * shipment names the HOSTNAME they need. Which lines lack a header is decided by the frame writer
 * itself, in a pass over the shipment that sends nothing, so the check and the shipment never
 * disagree; it runs only in that configuration (no identity, headers kept where present).
 */
export async function sourceIdentityProblem(
  target: ShipTarget,
  sources: PreparedSources,
  identity: string | undefined,
  signal: AbortSignal,
): Promise<IdentityProblem | undefined> {
  if (target.kind.intake !== 'frames') return undefined;
  const format = frameFormatOf(target, identity);
  const { header } = format;
  if (header.mode === 'preserve_raw') return undefined;
  const problem = createHeaderWriter(header).problem;
  if (problem === undefined) return undefined;
  const { shipment } = sources;
  const events = shipment.events;
  let lines = events;
  if (header.mode === 'synthesize_if_missing') {
    lines = 0;
    for (let i = 0; i < sources.labels.length; i++) {
      for await (const piece of shipmentFrames(shipment, i, format)) {
        if (piece.kind === 'refused' && piece.cause === 'no_header') lines += piece.events;
        signal.throwIfAborted();
      }
    }
  }
  if (lines === 0) return undefined;
  const which =
    header.mode === 'force_synthesize'
      ? 'every line'
      : `${lines} of ${events} lines carry no syslog header and`;
  return {
    message:
      `${which} would need a synthesized header (${header.mode}), and ${problem}: set the destination's ` +
      'source_identity, or name one for this shipment (syslogSourceIdentity)',
    lines,
    events,
  };
}
