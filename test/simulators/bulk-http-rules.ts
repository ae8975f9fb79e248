import { authFailure, type BulkFlavor, type BulkPrincipal, esError } from './bulk-errors.ts';
import { applyFilterPath } from './bulk-filter-path.ts';
import type { SimRequest, SimResponse } from './sim-http-server.ts';

/** Credentials the bulk simulator accepts. */
export interface BulkCredentials {
  readonly flavor: BulkFlavor;
  readonly security: boolean;
  readonly users: ReadonlyArray<{ readonly username: string; readonly password: string }>;
  readonly apiKeys: readonly string[];
  readonly bearerTokens: readonly string[];
}

const BODY_TYPES = [
  'application/json',
  'application/x-ndjson',
  'application/smile',
  'application/cbor',
  'application/yaml',
];
const VENDOR = /^application\/vnd\.elasticsearch\+([a-z-]+)\s*;\s*compatible-with\s*=\s*(\d+)/i;

/**
 * The 401 for a request whose credentials do not check out, or undefined. Elasticsearch words
 * missing, wrong Basic and wrong token credentials differently; OpenSearch answers plain text.
 */
export function authenticateBulk(creds: BulkCredentials, req: SimRequest): SimResponse | undefined {
  const { flavor, users, apiKeys, bearerTokens } = creds;
  const es = flavor === 'elasticsearch';
  if (!creds.security) return undefined;
  const uri = req.record.url;
  const missing = () =>
    authFailure(flavor, `missing authentication credentials for REST request [${uri}]`, undefined, es);
  const header = Array.isArray(req.headers.authorization)
    ? req.headers.authorization[0]
    : req.headers.authorization;
  if (!header) return missing();
  const space = header.indexOf(' ');
  const scheme = (space < 0 ? header : header.slice(0, space)).toLowerCase();
  const value = space < 0 ? '' : header.slice(space + 1).trim();
  if (scheme === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return missing();
    const name = decoded.slice(0, colon);
    if (users.some((u) => u.username === name && u.password === decoded.slice(colon + 1))) return undefined;
    return authFailure(
      flavor,
      `unable to authenticate user [${name}] for REST request [${uri}]`,
      undefined,
      es,
    );
  }
  const anonymous =
    'unable to authenticate with provided credentials and anonymous access is not allowed for this request';
  if (scheme === 'apikey' && es) {
    if (apiKeys.includes(value)) return undefined;
    const id = Buffer.from(value, 'base64').toString('utf8').split(':')[0] ?? '';
    return authFailure(flavor, anonymous, `API key: unable to find apikey with id ${id}`);
  }
  if (scheme === 'bearer') {
    if (bearerTokens.includes(value)) return undefined;
    return authFailure(flavor, anonymous, undefined, es);
  }
  return missing();
}

/** Who the request's Authorization header names (`fallbackUser` for a token or no header). */
export function principalOf(req: SimRequest, fallbackUser: string): BulkPrincipal {
  const header = single(req.headers.authorization) ?? '';
  const space = header.indexOf(' ');
  const scheme = (space < 0 ? header : header.slice(0, space)).toLowerCase();
  const decoded = Buffer.from(space < 0 ? '' : header.slice(space + 1).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (scheme === 'basic' && colon > 0) return { user: decoded.slice(0, colon) };
  if (scheme === 'apikey' && colon > 0) return { user: fallbackUser, apiKeyId: decoded.slice(0, colon) };
  return { user: fallbackUser };
}

/** Content-Type / Accept rules, checked before authentication as Elasticsearch's REST layer does. */
export function checkBulkMediaTypes(
  flavor: BulkFlavor,
  major: number,
  req: SimRequest,
): SimResponse | undefined {
  const es = flavor === 'elasticsearch';
  const ct = single(req.headers['content-type']);
  const accept = single(req.headers.accept);
  const vendorCt = ct ? VENDOR.exec(ct) : null;
  const vendorAccept = accept ? VENDOR.exec(accept) : null;
  if (!es && (vendorCt || vendorAccept)) {
    return {
      status: 406,
      body: { error: `Content-Type header [${vendorCt ? ct : accept}] is not supported`, status: 406 },
    };
  }
  if (es) {
    const wrong = (
      [
        ['Accept', accept, vendorAccept],
        ['Content-Type', ct, vendorCt],
      ] as const
    ).find(([, , v]) => v && Number(v[2]) !== major && Number(v[2]) !== major - 1);
    if (wrong) {
      const [name, value, v] = wrong;
      return esError(
        400,
        {
          type: 'media_type_header_exception',
          reason: 'Invalid media-type value on headers [Accept, Content-Type]',
        },
        {
          type: 'status_exception',
          reason: `${name} version must be either version ${major} or ${major - 1}, but found ${v?.[2]}. ${name}=${value}`,
        },
      );
    }
  }
  if (req.body.length === 0) return undefined;
  if (!ct) return { status: 406, body: { error: 'Content-Type header is missing', status: 406 } };
  const base = (ct.split(';')[0] ?? '').trim().toLowerCase();
  if (!BODY_TYPES.includes(base) && !vendorCt) {
    return { status: 406, body: { error: `Content-Type header [${ct}] is not supported`, status: 406 } };
  }
  return undefined;
}

/** JSON answers get the product's Content-Type (echoing a compatible-with Accept), `filter_path` and `pretty`. */
export function shapeBulkAnswer(flavor: BulkFlavor, req: SimRequest, res: SimResponse): SimResponse {
  const es = flavor === 'elasticsearch';
  const vendor = es ? VENDOR.exec(single(req.headers.accept) ?? '') : null;
  const contentType = vendor
    ? `application/vnd.elasticsearch+json;compatible-with=${vendor[2]}`
    : 'application/json';
  if (typeof res.body !== 'object' || Buffer.isBuffer(res.body)) return res;
  const filterPath = req.query.get('filter_path');
  const shaped = filterPath ? applyFilterPath(res.body, filterPath) : res.body;
  const text = req.query.has('pretty') ? `${JSON.stringify(shaped, null, 2)}\n` : JSON.stringify(shaped);
  return {
    ...res,
    headers: { 'content-type': contentType, ...res.headers },
    body: req.method === 'HEAD' ? '' : text,
  };
}

/** First value of a header that may repeat. */
export function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
