import { execFileSync } from 'node:child_process';
import { randomBytes, X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A throwaway certificate authority and a server certificate it signed, all PEM text, memory only. */
export interface TlsFixtures {
  /** The CA to trust (`ca` option / destination `ca_pem`). */
  readonly caCert: string;
  /** Leaf certificate for `localhost`, `127.0.0.1` and `::1` (plus any extra names), signed by `caCert`. */
  readonly serverCert: string;
  /** Private key of the leaf. */
  readonly serverKey: string;
  /** Leaf followed by the CA, for servers that send the whole chain (clients then see SELF_SIGNED_CERT_IN_CHAIN). */
  readonly serverChain: string;
  /** A second, unrelated CA: trusting only this one must fail verification. */
  readonly otherCaCert: string;
  /** SHA-256 fingerprint of `caCert` in `AA:BB:…` form (Elasticsearch's `caFingerprint`). */
  readonly caFingerprint256: string;
  /** Names and addresses in the leaf's subjectAltName. */
  readonly altNames: readonly string[];
}

/** Options of {@link createTlsFixtures}. */
export interface TlsFixtureOptions {
  /** Extra DNS names or IP addresses for the leaf's subjectAltName. */
  readonly extraAltNames?: readonly string[];
  /** Validity in days (default 2: long enough for a test run, useless afterwards). */
  readonly days?: number;
}

const DEFAULT_ALT_NAMES = ['localhost', '127.0.0.1', '::1'];
const tmpRoot = fileURLToPath(new URL('../../.tmp', import.meta.url));

/**
 * Generates a fresh CA, a server certificate and an unrelated second CA with the `openssl` binary.
 * Files live only for the duration of the call in a private folder under `.tmp`, so no private key
 * ever sits in the repository. EC P-256 keys keep this to roughly 100 ms.
 */
export function createTlsFixtures(options: TlsFixtureOptions = {}): TlsFixtures {
  const altNames = [...DEFAULT_ALT_NAMES, ...(options.extraAltNames ?? [])];
  const days = String(options.days ?? 2);
  mkdirSync(tmpRoot, { recursive: true });
  const dir = mkdtempSync(path.join(tmpRoot, 'tls-'));
  const file = (name: string) => path.join(dir, name);
  try {
    makeCa(file('ca'), 'Socdrill Test CA', days);
    makeCa(file('other-ca'), 'Socdrill Unrelated Test CA', days);
    openssl(
      ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      [
        '-keyout',
        file('server.key'),
        '-out',
        file('server.csr'),
        '-subj',
        '/CN=localhost/O=Socdrill simulator',
      ],
    );
    const san = altNames.map((n) => (isIp(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
    writeFileSync(
      file('server.ext'),
      [
        `subjectAltName=${san}`,
        'basicConstraints=critical,CA:FALSE',
        'keyUsage=critical,digitalSignature,keyEncipherment',
        'extendedKeyUsage=serverAuth',
        '',
      ].join('\n'),
    );
    openssl(
      ['x509', '-req', '-in', file('server.csr')],
      [
        '-CA',
        file('ca.crt'),
        '-CAkey',
        file('ca.key'),
        '-set_serial',
        `0x${randomBytes(8).toString('hex')}`,
        '-days',
        days,
        '-extfile',
        file('server.ext'),
        '-out',
        file('server.crt'),
      ],
    );
    const caCert = readFileSync(file('ca.crt'), 'utf8');
    const serverCert = readFileSync(file('server.crt'), 'utf8');
    return {
      caCert,
      serverCert,
      serverKey: readFileSync(file('server.key'), 'utf8'),
      serverChain: serverCert + caCert,
      otherCaCert: readFileSync(file('other-ca.crt'), 'utf8'),
      caFingerprint256: new X509Certificate(caCert).fingerprint256,
      altNames,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let shared: TlsFixtures | undefined;

/** One set of fixtures per process, for test files that need TLS but not distinct CAs. */
export function sharedTlsFixtures(): TlsFixtures {
  shared ??= createTlsFixtures();
  return shared;
}

function makeCa(base: string, commonName: string, days: string): void {
  openssl(
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
    [
      '-keyout',
      `${base}.key`,
      '-out',
      `${base}.crt`,
      '-days',
      days,
      '-subj',
      `/CN=${commonName}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
  );
}

function openssl(head: string[], tail: string[]): void {
  execFileSync('openssl', [...head, ...tail], { stdio: ['ignore', 'ignore', 'pipe'] });
}

function isIp(name: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(name) || name.includes(':');
}
