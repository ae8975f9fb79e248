/** Longest HOSTNAME RFC 5424 allows (§6.2.4). */
export const SYSLOG_HOSTNAME_MAX = 255;

/**
 * Why `value` cannot be a syslog HOSTNAME (printable US-ASCII 33-126, no spaces, 1-255 characters),
 * or undefined when it can (decisions.md §5).
 */
export function syslogHostnameProblem(value: string): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (value.length > SYSLOG_HOSTNAME_MAX) return `must be at most ${SYSLOG_HOSTNAME_MAX} characters`;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 33 || c > 126) return 'must be printable ASCII without spaces';
  }
  return undefined;
}
