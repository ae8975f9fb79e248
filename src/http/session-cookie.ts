import type { CookieSerializeOptions } from '@fastify/cookie';
import type { Config } from '../config.ts';

/** `__Host-` prefixed (Secure, host-only, Path=/) when served over https. */
export function sessionCookieName(config: Pick<Config, 'secureCookies'>): string {
  return config.secureCookies ? '__Host-socdrill_session' : 'socdrill_session';
}

/** Attributes of the session cookie (decisions.md §2). */
export function sessionCookieOptions(
  config: Pick<Config, 'secureCookies' | 'sessionAbsoluteSeconds'>,
): CookieSerializeOptions {
  return {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: config.secureCookies,
    maxAge: config.sessionAbsoluteSeconds,
  };
}
