import {
  detectSyslogHeaderInto,
  newSyslogHeader,
  type SyslogHeader,
} from '../syslog/detect-syslog-header.ts';

/**
 * ECS `log.syslog` of the text that stands before `LEEF:` on a line, when it is an RFC 3164 or
 * RFC 5424 header (protocols §2.2, §3.5): priority, facility and severity (code and name),
 * HOSTNAME; for RFC 5424 also VERSION and the APP-NAME, PROCID and MSGID that are not `-` (when
 * STRUCTURED-DATA follows them, so they are header fields); for
 * RFC 3164 the APP-NAME and PROCID of a TAG `name[pid]:` or `name:` between HOSTNAME and `LEEF:`.
 * Null when the prefix is no header (nothing, an octet count alone, rsyslog's file format).
 * `header`: a record for the detection, for a caller that converts many lines (a new one when not
 * given).
 */
export function syslogHeaderToEcs(
  prefix: string,
  header: SyslogHeader = newSyslogHeader(),
): Record<string, unknown> | null {
  const h = detectSyslogHeaderInto(prefix, header);
  if (h.kind !== 'rfc3164' && h.kind !== 'rfc5424') return null;
  const out: Record<string, unknown> = {};
  // PRI above 191 (facility 23, severity 7) is no valid PRI (RFC 5424 §6.2.1): left out, not named.
  if (h.pri >= 0 && h.pri <= 191) {
    const facility = h.pri >> 3;
    const severity = h.pri & 7;
    out.priority = h.pri;
    out.facility = { code: facility, name: FACILITIES[facility] };
    out.severity = { code: severity, name: SEVERITIES[severity] };
  }
  const hostname = prefix.slice(h.hostnameStart, h.hostnameEnd);
  if (hostname !== '-') out.hostname = hostname;
  const rest = prefix.slice(h.end).trim();
  if (h.kind === 'rfc5424') {
    // `<PRI>VERSION`: the digits after the PRI's `>`.
    const gt = prefix.indexOf('>', h.start);
    out.version = prefix.slice(gt + 1, prefix.indexOf(' ', gt));
    const parts = rest === '' ? [] : rest.split(' ');
    // APP-NAME SP PROCID SP MSGID SP STRUCTURED-DATA, single spaces: only then are the words
    // header fields. QRadar's examples end the header at HOSTNAME, and Socdrill's own synthesized
    // header has three `-` and no STRUCTURED-DATA: nothing to read in either.
    const sd = parts[3];
    if (
      sd !== undefined &&
      (sd === '-' || sd.startsWith('[')) &&
      parts[0] !== '' &&
      parts[1] !== '' &&
      parts[2] !== ''
    ) {
      if (isToken(parts[0]!, 48)) out.appname = parts[0];
      if (isToken(parts[1]!, 128)) out.procid = parts[1];
      if (isToken(parts[2]!, 32)) out.msgid = parts[2];
    }
  } else {
    const tag = TAG.exec(rest);
    if (tag !== null) {
      out.appname = tag[1];
      if (tag[2] !== undefined) out.procid = tag[2];
    }
  }
  return out;
}

// A TAG as rsyslog and most senders write it: a name, an optional `[pid]`, a colon.
const TAG = /^([!-9;-Z\\^-~]{1,48}?)(?:\[([!-Z\\^-~]{1,128})\])?:$/;

/** An RFC 5424 header field that is given (printable US-ASCII, not the NILVALUE `-`). */
function isToken(text: string, max: number): boolean {
  if (text === '-' || text.length === 0 || text.length > max) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 33 || c > 126) return false;
  }
  return true;
}

// The facilities of RFC 5424 §6.2.1 by rsyslog's names (13-15: log audit, log alert, clock daemon).
const FACILITIES = [
  'kern',
  'user',
  'mail',
  'daemon',
  'auth',
  'syslog',
  'lpr',
  'news',
  'uucp',
  'cron',
  'authpriv',
  'ftp',
  'ntp',
  'audit',
  'alert',
  'clock',
  'local0',
  'local1',
  'local2',
  'local3',
  'local4',
  'local5',
  'local6',
  'local7',
];
const SEVERITIES = ['Emergency', 'Alert', 'Critical', 'Error', 'Warning', 'Notice', 'Informational', 'Debug'];
