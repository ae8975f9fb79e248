import { rootCertificates } from 'node:tls';

/** TLS settings of an outbound connection, as a client reads them (shared/tls-settings.ts). */
export interface TlsSettings {
  readonly tls_verify: boolean;
  readonly ca_pem: string | null;
}

/** TLS part of an undici connector: what `tls_verify` and `ca_pem` mean for every HTTP driver. */
export interface TlsConnectOptions {
  rejectUnauthorized: boolean;
  ca?: string[];
}

/**
 * Verification stays on unless the destination turned it off. A configured `ca_pem` is trusted in
 * addition to the bundled public CAs (Node's `ca` option replaces them, so they are passed along),
 * which keeps a SIEM behind a public certificate working after a private CA is added.
 */
export function tlsConnectOptions(settings: TlsSettings): TlsConnectOptions {
  return {
    rejectUnauthorized: settings.tls_verify,
    ...(settings.ca_pem ? { ca: [...rootCertificates, settings.ca_pem] } : {}),
  };
}
