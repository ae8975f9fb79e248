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
 * Shortens quoted answer text so one odd body cannot flood a run record. Only ever on text whose
 * secrets are already scrubbed (answers are, as HttpEndpoint reads them): a cut through a secret
 * would leave a piece that no scrubbing recognises afterwards.
 */
export function clip(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${cutAt(flat, max)}…` : flat;
}

/** The first `max` UTF-16 units of `text`, one less when the cut would split a surrogate pair. */
export function cutAt(text: string, max: number): string {
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
