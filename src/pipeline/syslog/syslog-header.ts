import {
  type CivilFields,
  MAX_WRITABLE_MS,
  MIN_WRITABLE_MS,
  msToCivil,
  newCivilFields,
  pad2,
  padZero,
} from '../time/civil.ts';
import { formatRfc3164Time } from '../time/rfc3164-time.ts';

/** PRI of synthesized headers unless the destination sets another: local0 (16) × 8 + info (6). */
export const DEFAULT_PRI = 134;

/** PRI = facility × 8 + severity (RFC 5424 §6.2.1), or -1 unless facility is 0-23 and severity 0-7. */
export function syslogPri(facility: number, severity: number): number {
  if (!Number.isInteger(facility) || !Number.isInteger(severity)) return -1;
  if (facility < 0 || facility > 23 || severity < 0 || severity > 7) return -1;
  return facility * 8 + severity;
}

/**
 * RFC 3339 UTC with exactly three fraction digits and `Z` (decisions.md §5), e.g.
 * `2024-01-02T03:04:05.006Z`. `fields`: a record to fill, for a caller that writes many (a
 * HeaderWriter has its own; a new one when not given).
 */
export function formatRfc5424Time(ms: number, fields: CivilFields = newCivilFields()): string {
  const f = msToCivil(clampMs(ms), fields);
  return `${padZero(f.year, 4)}-${pad2(f.month)}-${pad2(f.day)}T${pad2(f.hour)}:${pad2(f.minute)}:${pad2(f.second)}.${padZero(f.millisecond, 3)}Z`;
}

/** `<PRI>Mmm dd hh:mm:ss HOST ` (RFC 3164, UTC, day space-padded); `fields` as in formatRfc5424Time. */
export function formatRfc3164Header(
  pri: number,
  ms: number,
  host: string,
  fields: CivilFields = newCivilFields(),
): string {
  return `<${pri}>${formatRfc3164Time(clampMs(ms), false, false, fields)} ${host} `;
}

/**
 * `<PRI>1 TIMESTAMP HOST - - - ` (RFC 5424 with nil APP-NAME, PROCID and MSGID, the form the
 * project settled on). Strictly, STRUCTURED-DATA would need a fourth `-`; rsyslog 8.2302 and
 * QRadar's own examples accept the message right after MSGID.
 */
export function formatRfc5424Header(
  pri: number,
  ms: number,
  host: string,
  fields: CivilFields = newCivilFields(),
): string {
  return `<${pri}>1 ${formatRfc5424Time(ms, fields)} ${host} - - - `;
}

function clampMs(ms: number): number {
  if (!Number.isFinite(ms)) return 0;
  return Math.min(Math.max(Math.floor(ms), MIN_WRITABLE_MS), MAX_WRITABLE_MS);
}
