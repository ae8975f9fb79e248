import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * Paths never written to logs: credentials in headers and in destination settings, logged at the
 * top level or one object down (a destination's SIEM Q group one further). A SIEM's answer text is
 * not a path: SIEM clients scrub their secrets from it before any message is made
 * (siems/shared/secret-scrubber.ts).
 */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'authorization',
  '*.authorization',
  '*.headers.authorization',
  'password',
  'token',
  'api_key',
  'management_token',
  'management_password',
  '*.password',
  '*.token',
  '*.api_key',
  '*.management_token',
  '*.management_password',
  'siem_q.token',
  '*.siem_q.token',
];

/** JSON-lines logger on stdout (or a silent one for tests); `destination` replaces stdout (tests). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' } }, destination);
}
