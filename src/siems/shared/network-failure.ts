/** A request that got no HTTP answer, classified for the retry rules. */
export interface NetworkFailure {
  readonly kind: 'network';
  /** The error code (`ECONNREFUSED`, `UND_ERR_HEADERS_TIMEOUT`, `SELF_SIGNED_CERT_IN_CHAIN`, …) or `unknown`. */
  readonly code: string;
  /** A short human cause, without secrets (codes and library messages only). */
  readonly message: string;
  /** Certificate or handshake problem: a configuration error, never retried. */
  readonly tls: boolean;
  /** The caller's signal aborted the request. */
  readonly cancelled: boolean;
}

const TLS_CODE =
  /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_SSL|ERR_TLS|EPROTO|HOSTNAME_MISMATCH/;

const FRIENDLY: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed while sending',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed (temporary)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no answer within the read timeout',
  UND_ERR_BODY_TIMEOUT: 'answer body stalled beyond the read timeout',
  UND_ERR_SOCKET: 'connection closed by the other side',
  UND_ERR_CLOSED: 'connection closed',
};

/** Classifies what a failed request threw; looks through `cause` chains (undici wraps socket errors). */
export function classifyNetworkError(err: unknown, signal?: AbortSignal): NetworkFailure {
  const code = findCode(err) ?? 'unknown';
  const cancelled =
    signal?.aborted === true ||
    code === 'UND_ERR_ABORTED' ||
    code === 'ABORT_ERR' ||
    (err as { name?: string } | undefined)?.name === 'AbortError';
  if (cancelled) return { kind: 'network', code, message: 'cancelled', tls: false, cancelled: true };
  const tls = TLS_CODE.test(code);
  let message: string;
  if (tls) {
    // Node appends advice about its own flags after a ';' (--use-system-ca): not ours to give.
    const detail = (codeMessage(err) ?? 'the certificate could not be verified').split(';')[0]?.trim();
    message = `TLS failure (${code}): ${detail}; trust the SIEM's CA with ca_pem`;
  } else {
    message = FRIENDLY[code] ? `${FRIENDLY[code]} (${code})` : (codeMessage(err) ?? String(err));
  }
  return { kind: 'network', code, message, tls, cancelled: false };
}

function findCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') {
      // undici's SocketError hides the socket's own code (ECONNRESET) in its cause: prefer the deeper one.
      const deeper = findCode((current as { cause?: unknown }).cause);
      return code === 'UND_ERR_SOCKET' && deeper ? deeper : code;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function codeMessage(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    if ((current as { code?: unknown }).code && current instanceof Error) return current.message;
    current = (current as { cause?: unknown }).cause;
  }
  return err instanceof Error ? err.message : undefined;
}
