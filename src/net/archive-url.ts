import { isIP } from 'node:net';
import { AppError, invalidInput } from '../errors.ts';

/** Rules for URLs the service downloads archives from. */
export interface ArchiveUrlPolicy {
  /** Allow `http://` (ARCHIVE_ALLOW_HTTP); https only otherwise. */
  allowHttp: boolean;
  /** `host` or `host:port` entries that may resolve to private addresses (ARCHIVE_ALLOWED_HOSTS). */
  allowedHosts: readonly string[];
}

/**
 * Syntax checks made before any DNS lookup or download: absolute, http(s) per policy, no
 * user-info, and (for the first URL of a download) a path ending in `.zip`. Returns the parsed URL.
 * Errors never echo the query string: signed URLs carry credentials there.
 */
export function checkArchiveUrl(
  raw: string,
  policy: ArchiveUrlPolicy,
  options: { requireZip: boolean },
): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidInput('Invalid archiveDownloadUrl', { archiveDownloadUrl: 'must be an absolute URL' });
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) {
    throw invalidInput('Invalid archiveDownloadUrl', {
      archiveDownloadUrl: policy.allowHttp ? 'must be an http or https URL' : 'must be an https URL',
    });
  }
  if (url.username !== '' || url.password !== '') {
    throw invalidInput('Invalid archiveDownloadUrl', {
      archiveDownloadUrl: 'must not carry user-info (user:password@)',
    });
  }
  if (options.requireZip) {
    const pathname = decodeURIComponentSafe(url.pathname).toLowerCase();
    if (!pathname.endsWith('.zip')) {
      const reason = /\.(tar\.gz|tgz)$/.test(pathname)
        ? 'must point to a .zip archive (.tar.gz is not accepted at session start)'
        : 'must point to a .zip archive (path ending in .zip)';
      throw invalidInput('Invalid archiveDownloadUrl', { archiveDownloadUrl: reason });
    }
  }
  return url;
}

/** True when the URL's host (or host:port) is in the allow-list of lab hosts. */
export function isAllowedHost(url: URL, allowedHosts: readonly string[]): boolean {
  const host = hostOf(url);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return allowedHosts.some((entry) => {
    const e = entry.toLowerCase();
    return e === host || e === `${host}:${port}` || e === `[${host}]:${port}`;
  });
}

/** The URL's hostname without IPv6 brackets, lower-cased. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/** True when the URL's host is an IP literal (after WHATWG normalisation of hex/octal/decimal forms). */
export function isIpLiteral(url: URL): boolean {
  return isIP(hostOf(url)) !== 0;
}

/** `scheme://host[:port]/path` of a URL, for messages and logs (no query, no fragment, no user-info). */
export function redactUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** A blocked-address error naming the host and why, never the query. */
export function blockedUrl(url: URL, address: string): AppError {
  return new AppError(
    'archive_url_blocked',
    `Archive host ${url.host} resolves to ${address}, which is not a public address (add the host to ARCHIVE_ALLOWED_HOSTS for lab networks)`,
    { details: { host: url.host, address } },
  );
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
