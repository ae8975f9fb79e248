import { detectSyslogHeaderInto, newSyslogHeader } from '../syslog/detect-syslog-header.ts';

/**
 * ECS `log.syslog` of the text that stands before `LEEF:` on a line, when it is an RFC 3164 or
 * RFC 5424 header (protocols §2.2, §3.5): priority, facility and severity (code and name),
 * HOSTNAME; for RFC 5424 also VERSION and the APP-NAME, PROCID and MSGID that are not `-`; for
 * RFC 3164 the APP-NAME and PROCID of a TAG `name[pid]:` or `name:` between HOSTNAME and `LEEF:`.
 * Null when the prefix is no header (nothing, an octet count alone, rsyslog's file format).
 */
export function syslogHeaderToEcs(prefix: string): Record<string, unknown> | null {
  const h = detectSyslogHeaderInto(prefix, header);
  if (h.kind !== 'rfc3164' && h.kind !== 'rfc5424') return null;
  const out: Record<string, unknown> = {};
  if (h.pri >= 0) {
    const facility = h.pri >> 3;
    const severity = h.pri & 7;
    out.priority = h.pri;
    out.facility = { code: facility, name: FACILITIES[facility] ?? `facility${facility}` };
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
    // APP-NAME PROCID MSGID (and STRUCTURED-DATA): all three, or the header ended at HOSTNAME
    // (QRadar's examples put `LEEF:` right after it).
    if (parts.length >= 3) {
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

const header = newSyslogHeader();

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

// RFC 5424 §6.2.1 (names as syslog implementations spell them).
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
  'security',
  'console',
  'solaris-cron',
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
