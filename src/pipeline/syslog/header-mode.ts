import { newLeefLayout, scanLeefInto } from '../leef/leef-layout.ts';
import { newCivilFields } from '../time/civil.ts';
import { detectSyslogHeaderInto, newSyslogHeader, octetPrefixEnd } from './detect-syslog-header.ts';
import { DEFAULT_PRI, formatRfc3164Header, formatRfc5424Header, syslogPri } from './syslog-header.ts';
import { syslogHostnameProblem } from './syslog-hostname.ts';
import type { HeaderMode, SyslogFormat } from './syslog-options.ts';

/** Settings of header handling for one shipment to one syslog destination. */
export interface HeaderModeSettings {
  mode: HeaderMode;
  format: SyslogFormat;
  /**
   * HOSTNAME of synthesized headers: the request's `syslogSourceIdentity` (then the caller passes
   * mode `force_synthesize`) or the destination's source identity.
   */
  sourceIdentity: string | null;
  /** Facility 0-23 and severity 0-7; PRI 134 (local0.info) when both are omitted. */
  facility?: number;
  severity?: number;
}

/** Applies a header mode to lines; built once per shipment so validation and PRI are not per line. */
export interface HeaderWriter {
  /**
   * Why headers cannot be synthesized (missing or bad source identity, facility or severity), or
   * undefined; always undefined in preserve_raw, which never synthesizes.
   */
  readonly problem: string | undefined;
  /**
   * `line` in the writer's mode: kept, or given a synthesized header carrying `eventTimeMs` (the
   * event's rebased time) or, when that is null, `nowMs` (the shipping time). A leftover octet-count
   * prefix is always removed: it is framing, not message. Null only when a header must be
   * synthesized and `problem` is set.
   */
  apply(line: string, eventTimeMs: number | null, nowMs: number): string | null;
  /** The header a synthesizing mode puts in front (same time rules as apply), or null with `problem`. */
  headerFor(eventTimeMs: number | null, nowMs: number): string | null;
  readonly mode: HeaderMode;
}

/** A HeaderWriter for `settings`; never throws (see HeaderWriter.problem). */
export function createHeaderWriter(settings: HeaderModeSettings): HeaderWriter {
  const { mode, format } = settings;
  const facility = settings.facility;
  const severity = settings.severity;
  const pri =
    facility === undefined && severity === undefined ? DEFAULT_PRI : syslogPri(facility ?? 16, severity ?? 6);
  const host = settings.sourceIdentity;
  let synthProblem: string | undefined;
  if (pri < 0) synthProblem = 'facility must be 0-23 and severity 0-7';
  else if (host === null || host === undefined)
    synthProblem = 'a source identity is needed to synthesize syslog headers';
  else {
    const why = syslogHostnameProblem(host);
    if (why !== undefined) synthProblem = `source identity ${why}`;
  }
  const problem = mode === 'preserve_raw' ? undefined : synthProblem;
  const rfc5424 = format === 'rfc5424';
  // Records apply and header fill (the writer's own: it is built per shipment, and apply is
  // synchronous): no allocation per line.
  const layout = newLeefLayout();
  const detected = newSyslogHeader();
  const fields = newCivilFields();
  // Many consecutive events share a second (3164) or a millisecond (5424): reuse the last header.
  let lastKey = Number.NaN;
  let lastHeader = '';
  const header = (ms: number): string => {
    const key = rfc5424 ? Math.floor(ms) : Math.floor(ms / 1000);
    if (key !== lastKey) {
      lastKey = key;
      lastHeader = rfc5424
        ? formatRfc5424Header(pri, ms, host as string, fields)
        : formatRfc3164Header(pri, ms, host as string, fields);
    }
    return lastHeader;
  };

  return {
    problem,
    mode,
    headerFor(eventTimeMs: number | null, nowMs: number): string | null {
      if (synthProblem !== undefined) return null;
      return header(eventTimeMs !== null && Number.isFinite(eventTimeMs) ? eventTimeMs : nowMs);
    },
    apply(line: string, eventTimeMs: number | null, nowMs: number): string | null {
      if (typeof line !== 'string') return null;
      if (mode === 'preserve_raw') return stripOctetPrefix(line);
      // A LEEF event starts at `LEEF:`. A TAG or a nonstandard prefix (rsyslog's file format)
      // before it is dropped with a replaced header: QRadar expects one space between header and
      // `LEEF:`. Any other message keeps everything after the old header.
      const isLeef = scanLeefInto(line, layout);
      let messageStart = 0;
      if (!(isLeef && layout.start === 0)) {
        const h = detectSyslogHeaderInto(line, detected);
        const hasHeader = h.kind === 'rfc5424' || h.kind === 'rfc3164';
        if (mode === 'synthesize_if_missing' && hasHeader) return h.start > 0 ? line.slice(h.start) : line;
        messageStart = isLeef ? layout.start : hasHeader ? h.end : h.start;
      }
      if (problem !== undefined) return null;
      const t = eventTimeMs !== null && Number.isFinite(eventTimeMs) ? eventTimeMs : nowMs;
      return header(t) + (messageStart === 0 ? line : line.slice(messageStart));
    },
  };
}

/** Outcome of applyHeaderMode. */
export type HeaderModeResult = { ok: true; line: string } | { ok: false; problem: string };

/** One line through a header mode (convenience over createHeaderWriter for single events). */
export function applyHeaderMode(
  line: string,
  options: HeaderModeSettings & { eventTimeMs: number | null; nowMs: number },
): HeaderModeResult {
  const writer = createHeaderWriter(options);
  const out = writer.apply(line, options.eventTimeMs, options.nowMs);
  return out === null ? { ok: false, problem: writer.problem ?? 'not a string' } : { ok: true, line: out };
}

function stripOctetPrefix(line: string): string {
  const start = octetPrefixEnd(line);
  return start > 0 ? line.slice(start) : line;
}
