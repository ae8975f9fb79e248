import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { SendBatch } from '../shared/deliver.ts';
import { type HttpDriverOptions, resolveDriverOptions, warnIfUnverified } from '../shared/driver-options.ts';
import { HttpEndpoint } from '../shared/http-endpoint.ts';
import { plainIndexNameProblem } from '../shared/index-name.ts';
import { logShipResult } from '../shared/log-ship-result.ts';
import { networkOutcome } from '../shared/network-outcome.ts';
import { BodyBuffers, maxBodyBytes, writeRequestBody } from '../shared/request-body.ts';
import { secretScrubber, secretValues } from '../shared/secret-scrubber.ts';
import { ShipLedger } from '../shared/ship-ledger.ts';
import { type BatchLimits, overLimit, runShipment } from '../shared/ship-loop.ts';
import { siemMessage } from '../shared/siem-message.ts';
import type {
  CheckStep,
  IndexingSiemClient,
  IndexOutcome,
  SendOptions,
  ShipResult,
  SiemDeps,
} from '../siem-client.ts';
import { failure } from '../siem-failure.ts';
import { checkHec } from './hec-check.ts';
import { classifyHecAnswer } from './hec-classify.ts';
import { createHecEncoder } from './hec-encode.ts';
import { ensureHecIndex, type ManagementContext, wipeHecIndex } from './hec-management.ts';
import { type HecDestination, HecSettings } from './hec-settings.ts';

/** HEC tuning: the bulk options plus the gzip level of request bodies. */
export interface HecDriverOptions extends HttpDriverOptions {
  /** zlib level 1-9 (default 1: the collector is usually near, and CPU is the scarce resource). */
  readonly gzipLevel?: number;
  /** Retry a 404 from the collector (HEC_RETRY_NOT_FOUND; default false: stop). */
  readonly retryNotFound?: boolean;
}

/** About 1 MiB per request, as Vector sends, and four in flight. */
export const HEC_BATCH_DEFAULTS: BatchLimits = { maxEvents: 5_000, maxBytes: 1 << 20, concurrency: 4 };

const EVENT_PATH = '/services/collector/event';
const gzipAsync = promisify(gzip);

/**
 * The `vendorA_hec` driver: events to the HTTP Event Collector (`/services/collector/event`,
 * gzip, concatenated envelopes), indexes and wipes through the management API.
 */
export function createHecDriver(
  destination: HecDestination,
  deps: SiemDeps,
  options: HecDriverOptions = {},
): IndexingSiemClient {
  const opts = resolveDriverOptions(options, HEC_BATCH_DEFAULTS);
  const gzipLevel = options.gzipLevel ?? 1;
  const retryNotFound = options.retryNotFound ?? false;
  const siem = destination.name;
  // Every secret setting, and the Basic pair of the management API: scrubbed from every answer
  // as it is read (HttpEndpoint) and from every message.
  const scrubber = secretScrubber({
    secrets: secretValues(HecSettings, destination),
    basic: [{ user: destination.management_username, password: destination.management_password }],
  });
  const message = (endpoint: string, cause: string) => scrubber.text(siemMessage(siem, endpoint, cause));
  warnIfUnverified(deps.log, siem, destination.tls_verify, [destination.url, destination.management_url]);

  const collector = new HttpEndpoint(destination.url, destination, {
    connections: opts.batch.concurrency,
    timeouts: opts.timeouts,
    scrubber,
  });
  const management = destination.management_url
    ? new HttpEndpoint(destination.management_url, destination, {
        connections: 2,
        timeouts: opts.timeouts,
        scrubber,
      })
    : undefined;
  const managementAuth = destination.management_token
    ? `Bearer ${destination.management_token}`
    : destination.management_username && destination.management_password !== null
      ? `Basic ${Buffer.from(`${destination.management_username}:${destination.management_password}`).toString('base64')}`
      : undefined;
  const collectorHeaders: Record<string, string> = {
    authorization: `Splunk ${destination.token}`,
    'content-type': 'application/json',
    'content-encoding': 'gzip',
    ...(destination.channel ? { 'x-splunk-request-channel': destination.channel } : {}),
  };

  const managementContext = (): ManagementContext | string => {
    if (!management) return 'no management_url is configured';
    if (!managementAuth)
      return 'no management credentials are configured (management_token or username and password)';
    return {
      endpoint: management,
      authorization: managementAuth,
      describe: (path, cause) => message(management.label(path), cause),
      wait: opts.wait,
      pollMs: opts.jobPollMs,
      jobTimeoutMs: opts.jobTimeoutMs,
    };
  };

  /** Index names are validated on input already; a wildcard here could wipe far more than the lab's data. */
  const badIndex = (index: string): IndexOutcome | undefined => {
    const problem = plainIndexNameProblem(index, { dots: false });
    return problem
      ? { ok: false, index, error: message(collector.label(''), `index name "${index}" refused: ${problem}`) }
      : undefined;
  };

  return {
    intake: 'events',
    destination,

    async send(batches, shipOptions: SendOptions = {}): Promise<ShipResult> {
      const ledger = new ShipLedger(shipOptions.onProgress);
      const signal = shipOptions.signal ?? new AbortController().signal;
      const index = shipOptions.index ?? destination.index;
      const label = collector.label(EVENT_PATH);
      const describe = (cause: string) => message(label, cause);
      const problem = index === null ? undefined : plainIndexNameProblem(index, { dots: false });
      if (problem) ledger.stop(failure('config', describe(`index name "${index}" refused: ${problem}`)));
      const encode = createHecEncoder({
        format: destination.payload_format,
        index,
        source: destination.source,
        sourcetype: destination.sourcetype,
        now: shipOptions.now ?? deps.clock.now(),
      });
      // The uncompressed body is only read by gzip: its buffer serves the next batch.
      const buffers = new BodyBuffers(opts.batch.concurrency);
      const send: SendBatch = async (events, sendSignal) => {
        const held = buffers.take(maxBodyBytes(events));
        const rawLength = writeRequestBody(events, held);
        // Cut by UTF-16 units; text outside ASCII can make the body larger than the byte limit.
        if (rawLength > opts.batch.maxBytes && events.length > 1) {
          buffers.give(held);
          return overLimit(rawLength, opts.batch.maxBytes);
        }
        let body: Buffer;
        try {
          body = await gzipAsync(held.subarray(0, rawLength), { level: gzipLevel, chunkSize: 64 * 1024 });
        } finally {
          buffers.give(held);
        }
        const answer = await collector.request({
          method: 'POST',
          path: EVENT_PATH,
          headers: collectorHeaders,
          body,
          signal: sendSignal,
        });
        if (answer.kind === 'network') return networkOutcome(answer);
        const outcome = classifyHecAnswer(
          answer.status,
          answer.text,
          answer.headers,
          events.length,
          index,
          Date.now(),
          retryNotFound,
        );
        return outcome.kind === 'ok' ? { kind: 'ok', bytes: rawLength } : outcome;
      };
      await runShipment(batches, encode, send, opts.batch, {
        ledger,
        signal,
        policy: opts.retry,
        wait: opts.wait,
        random: opts.random,
        describe,
      });
      return logShipResult(deps.log, siem, ledger.result());
    },

    async ensureIndex(index, signal = new AbortController().signal): Promise<IndexOutcome> {
      const bad = badIndex(index);
      if (bad) return bad;
      const ctx = managementContext();
      if (typeof ctx === 'string') return { ok: false, index, error: message(collector.label(''), ctx) };
      return ensureHecIndex(ctx, index, signal);
    },

    async wipe(indexes, signal = new AbortController().signal): Promise<IndexOutcome[]> {
      const outcomes: IndexOutcome[] = [];
      for (const index of indexes) {
        const bad = badIndex(index);
        if (bad) {
          outcomes.push(bad);
          continue;
        }
        const ctx = managementContext();
        const outcome =
          typeof ctx === 'string'
            ? { ok: false as const, index, error: message(collector.label(''), ctx) }
            : await wipeHecIndex(ctx, index, signal);
        if (outcome.ok) deps.log.info({ siem, index, deleted: outcome.deleted }, 'Index wiped.');
        else deps.log.error({ siem, index, error: outcome.error }, 'Index wipe failed.');
        outcomes.push(outcome);
      }
      return outcomes;
    },

    async check(signal = new AbortController().signal): Promise<CheckStep[]> {
      const ctx = managementContext();
      return checkHec({
        destination,
        collector,
        collectorHeaders,
        management: typeof ctx === 'string' ? undefined : ctx,
        managementProblem: management && typeof ctx === 'string' ? ctx : undefined,
        scrub: scrubber.text,
        signal,
      });
    },

    async close(): Promise<void> {
      await Promise.all([collector.close(), management?.close()]);
    },
  };
}
