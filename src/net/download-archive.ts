import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { Agent, request } from 'undici';
import { AppError } from '../errors.ts';
import type { ArchiveFile, ArchiveInput } from '../pipeline/archive/archive-input.ts';
import {
  type ArchiveUrlPolicy,
  blockedUrl,
  checkArchiveUrl,
  hostOf,
  isAllowedHost,
  isIpLiteral,
  redactUrl,
} from './archive-url.ts';
import type { SpillTarget } from './download-gate.ts';
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
  /**
   * Where the body goes past `spill.memoryBytes` (a DownloadGate slot): a file, never a Buffer of
   * it all. Without it the whole body is held in memory.
   */
  spill?: SpillTarget;
}

const defaultResolver: Resolver = (host) => dnsLookup(host, { all: true, verbatim: true });

/**
 * Downloads an archive, defending against SSRF (reliability-notes §2.3): every URL (first and each
 * redirect hop) is checked, its host resolved once, every address must be public unless the host
 * is allow-listed, and the connection goes to the vetted address only, so a DNS rebinding answer
 * cannot redirect it. Redirects are followed by hand (at most 3 by default). The body is capped
 * while streaming; Content-Length is never trusted. It is returned in memory, or as the file of
 * `options.spill` once it outgrew `spill.memoryBytes` (the file is the spill target's to remove,
 * on failure too).
 */
export async function downloadArchive(rawUrl: string, options: DownloadOptions): Promise<ArchiveInput> {
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
      return await readCapped(res.body, url, options.maxBytes, deadline, options.spill);
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

/** Chunks written to a spill file at once. */
const WRITE_BYTES = 1024 * 1024;

async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(): void },
  url: URL,
  maxBytes: number,
  deadline: AbortSignal,
  spill: SpillTarget | undefined,
): Promise<ArchiveInput> {
  // In memory while the body fits spill.memoryBytes; then the chunks so far and every later one go
  // to the file, at most WRITE_BYTES held between writes. The loop awaits each write, so a slow disk
  // slows the download instead of filling memory.
  let chunks: Buffer[] = [];
  let held = 0;
  let total = 0;
  let file: { path: string; handle: FileHandleLike } | null = null;
  const flush = async (target: { handle: FileHandleLike }) => {
    const out = chunks;
    chunks = [];
    held = 0;
    await writeAll(target.handle, out);
  };
  try {
    for await (const chunk of body) {
      total += chunk.length;
      if (total > maxBytes) {
        body.destroy();
        throw tooLarge(maxBytes);
      }
      chunks.push(chunk);
      held += chunk.length;
      if (file === null && spill !== undefined && total > spill.memoryBytes) file = await spill.createFile();
      if (file !== null && held >= WRITE_BYTES) await flush(file);
    }
    if (file !== null) await flush(file);
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw downloadFailed(url, err, deadline);
  } finally {
    await file?.handle.close().catch(() => {});
  }
  if (file !== null) return { path: file.path, size: total } satisfies ArchiveFile;
  return Buffer.concat(chunks, total);
}

/** The part of a FileHandle the spill uses. */
type FileHandleLike = Awaited<ReturnType<SpillTarget['createFile']>>['handle'];

/** Writes every byte of `chunks` (a write may take fewer bytes than it was given). */
async function writeAll(handle: FileHandleLike, chunks: readonly Buffer[]): Promise<void> {
  let pending = chunks.filter((c) => c.length > 0);
  while (pending.length > 0) {
    let { bytesWritten } = await handle.writev(pending);
    const rest: Buffer[] = [];
    for (const chunk of pending) {
      if (bytesWritten >= chunk.length) bytesWritten -= chunk.length;
      else {
        rest.push(chunk.subarray(bytesWritten));
        bytesWritten = 0;
      }
    }
    pending = rest;
  }
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
