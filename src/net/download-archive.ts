import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { Agent, request } from 'undici';
import { AppError } from '../errors.ts';
import {
  type ArchiveUrlPolicy,
  blockedUrl,
  checkArchiveUrl,
  hostOf,
  isAllowedHost,
  isIpLiteral,
  redactUrl,
} from './archive-url.ts';
import { isPublicAddress } from './public-address.ts';

/** Resolves a host name to every address it has (A and AAAA). Injectable for tests. */
export type Resolver = (host: string) => Promise<LookupAddress[]>;

/** Options of one archive download. */
export interface DownloadOptions extends ArchiveUrlPolicy {
  /** Byte cap counted while streaming (ARCHIVE_MAX_BYTES); more is a 413. */
  maxBytes: number;
  maxRedirects?: number;
  /** Overall deadline for the whole download, redirects included. */
  timeoutMs?: number;
  /** Longest pause between two chunks of the body or before the headers. */
  idleTimeoutMs?: number;
  connectTimeoutMs?: number;
  resolve?: Resolver;
  /** Extra CA certificates to trust (tests, private storage). */
  ca?: string;
  signal?: AbortSignal;
}

const defaultResolver: Resolver = (host) => dnsLookup(host, { all: true, verbatim: true });

/**
 * Downloads an archive into memory, defending against SSRF (reliability-notes §2.3): every URL
 * (first and each redirect hop) is checked, its host resolved once, every address must be public
 * unless the host is allow-listed, and the connection goes to the vetted address only, so a DNS
 * rebinding answer cannot redirect it. Redirects are followed by hand (at most 3 by default). The
 * body is capped while streaming; Content-Length is never trusted.
 */
export async function downloadArchive(rawUrl: string, options: DownloadOptions): Promise<Buffer> {
  const maxRedirects = options.maxRedirects ?? 3;
  const deadline = AbortSignal.timeout(options.timeoutMs ?? 120_000);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  let url = checkArchiveUrl(rawUrl, options, { requireZip: true });

  for (let hop = 0; ; hop++) {
    const addresses = await vetAddresses(url, options);
    const agent = pinnedAgent(addresses, options);
    try {
      const res = await request(url, {
        method: 'GET',
        dispatcher: agent,
        signal,
        headers: { accept: 'application/zip, application/octet-stream, */*' },
      }).catch((err: unknown) => {
        throw downloadFailed(url, err, deadline);
      });
      if (res.statusCode >= 300 && res.statusCode < 400 && res.headers.location) {
        await res.body.dump().catch(() => {});
        if (hop >= maxRedirects) {
          throw new AppError(
            'archive_download_failed',
            `Archive download from ${url.host} redirected more than ${maxRedirects} times`,
          );
        }
        const location = String(res.headers.location);
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new AppError(
            'archive_download_failed',
            `Archive server ${url.host} sent an invalid redirect`,
          );
        }
        url = checkArchiveUrl(next.href, options, { requireZip: false });
        continue;
      }
      if (res.statusCode !== 200) {
        await res.body.dump().catch(() => {});
        throw new AppError(
          'archive_download_failed',
          `Archive download failed: ${redactUrl(url)} answered HTTP ${res.statusCode}`,
          { details: { status: res.statusCode, host: url.host } },
        );
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxBytes) {
        res.body.destroy();
        throw tooLarge(options.maxBytes);
      }
      return await readCapped(res.body, url, options.maxBytes, deadline);
    } finally {
      await agent.close().catch(() => {});
    }
  }
}

/** Resolves the URL's host and returns the addresses to connect to; throws when any is not public. */
async function vetAddresses(url: URL, options: DownloadOptions): Promise<LookupAddress[]> {
  const host = hostOf(url);
  const allowed = isAllowedHost(url, options.allowedHosts);
  let addresses: LookupAddress[];
  if (isIpLiteral(url)) {
    addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }];
  } else {
    try {
      addresses = await (options.resolve ?? defaultResolver)(host);
    } catch (err) {
      throw new AppError('archive_download_failed', `Archive host ${url.host} could not be resolved`, {
        cause: err,
      });
    }
    if (addresses.length === 0) {
      throw new AppError('archive_download_failed', `Archive host ${url.host} has no address`);
    }
  }
  if (!allowed) {
    // Every address must be public: a mixed answer is refused, not filtered.
    const bad = addresses.find((a) => !isPublicAddress(a.address));
    if (bad) throw blockedUrl(url, bad.address);
  }
  return addresses;
}

/** An undici agent whose connections can only go to the vetted addresses (no second DNS lookup). */
function pinnedAgent(addresses: LookupAddress[], options: DownloadOptions): Agent {
  const first = addresses[0] as LookupAddress;
  return new Agent({
    connectTimeout: options.connectTimeoutMs ?? 10_000,
    headersTimeout: options.idleTimeoutMs ?? 30_000,
    bodyTimeout: options.idleTimeoutMs ?? 30_000,
    connect: {
      ...(options.ca ? { ca: options.ca } : {}),
      lookup: (_hostname, opts, callback) => {
        const cb = callback as (
          err: Error | null,
          address: string | LookupAddress[],
          family?: number,
        ) => void;
        if ((opts as { all?: boolean }).all) cb(null, addresses);
        else cb(null, first.address, first.family);
      },
    },
  } as ConstructorParameters<typeof Agent>[0]);
}

async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(): void },
  url: URL,
  maxBytes: number,
  deadline: AbortSignal,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of body) {
      total += chunk.length;
      if (total > maxBytes) {
        body.destroy();
        throw tooLarge(maxBytes);
      }
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw downloadFailed(url, err, deadline);
  }
  return Buffer.concat(chunks, total);
}

function tooLarge(maxBytes: number): AppError {
  return new AppError(
    'payload_too_large',
    `Archive is larger than the ${maxBytes}-byte download limit (ARCHIVE_MAX_BYTES)`,
    {
      details: { limit_bytes: maxBytes },
    },
  );
}

function downloadFailed(url: URL, err: unknown, deadline: AbortSignal): AppError {
  if (err instanceof AppError) return err;
  const reason = deadline.aborted
    ? 'timed out'
    : ((err as { code?: string })?.code ?? (err instanceof Error ? err.message : String(err)));
  return new AppError('archive_download_failed', `Archive download from ${url.host} failed: ${reason}`, {
    details: { host: url.host },
    cause: err,
  });
}
