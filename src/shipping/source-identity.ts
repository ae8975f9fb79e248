import { createHeaderWriter } from '../pipeline/syslog/header-mode.ts';
import type { PreparedSources } from './prepared-sources.ts';
import type { ShipTarget } from './ship.ts';
import { frameFormatOf } from './ship.ts';

/**
 * Why shipping `sources` to `target` cannot go ahead without a source identity, or undefined: the
 * kind's frames must synthesize syslog headers (force_synthesize for every line, or
 * synthesize_if_missing for lines that carry none, counted in pass 1) and neither the destination
 * nor the shipment names the HOSTNAME they need (decisions.md §5). Checked before anything is sent.
 */
export function sourceIdentityProblem(
  target: ShipTarget,
  sources: PreparedSources,
  identity: string | undefined,
): string | undefined {
  if (target.kind.intake !== 'frames') return undefined;
  const { header } = frameFormatOf(target, identity);
  if (header.mode === 'preserve_raw') return undefined;
  const problem = createHeaderWriter(header).problem;
  if (problem === undefined) return undefined;
  const { events, headerless } = sources.shipment;
  const lines = header.mode === 'force_synthesize' ? events : headerless;
  if (lines === 0) return undefined;
  const which =
    header.mode === 'force_synthesize'
      ? 'every line'
      : `${lines} of ${events} lines carry no syslog header and`;
  return (
    `${which} would need a synthesized header (${header.mode}), and ${problem}: set the destination's ` +
    'source_identity, or name one for this shipment (syslogSourceIdentity)'
  );
}
