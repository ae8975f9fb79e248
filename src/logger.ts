import pino, { type Logger } from 'pino';

export type { Logger };

/** Paths never written to logs: credentials in headers and in destination settings. */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.token',
  '*.api_key',
  '*.management_token',
  '*.management_password',
];

/** JSON-lines logger on stdout (or a silent one for tests). */
export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' } });
}
