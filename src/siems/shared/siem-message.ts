/**
 * `scheme://host:port/path` of a request, for messages: no user-info, no query string (tokens can
 * travel there), and the port spelled out even when it is the scheme's default.
 */
export function endpointLabel(base: string, path = ''): string {
  const url = new URL(joinPath(base, path));
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const host =
    url.hostname.includes(':') && !url.hostname.startsWith('[') ? `[${url.hostname}]` : url.hostname;
  return `${url.protocol}//${host}:${port}${url.pathname}`;
}

/** The base URL's path joined with a request path (`https://h/proxy` + `/_bulk` → `/proxy/_bulk`). */
export function joinPath(base: string, path: string): string {
  const url = new URL(base);
  const prefix = url.pathname.replace(/\/+$/, '');
  const suffix = path === '' ? '' : path.startsWith('/') ? path : `/${path}`;
  return `${url.protocol}//${url.host}${prefix}${suffix}`;
}

/** One error line: which SIEM, which endpoint, what went wrong. */
export function siemMessage(siem: string, endpoint: string, cause: string): string {
  return `SIEM "${siem}" ${endpoint}: ${cause}`;
}

/**
 * Replaces every occurrence of a secret in `text` with `[redacted]`. A last line of defence: the
 * drivers never put secrets in messages, but answer bodies they quote could echo one back.
 * Secrets shorter than 4 characters are ignored (they would mangle ordinary words).
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4 && out.includes(secret)) out = out.split(secret).join('[redacted]');
  }
  return out;
}

/** Shortens quoted answer text so one odd body cannot flood a run record. */
export function clip(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
