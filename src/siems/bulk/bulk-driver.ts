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
import { type BulkAdminContext, checkBulk, ensureBulkIndex, wipeBulkIndex } from './bulk-admin.ts';
import { classifyBulkAnswer } from './bulk-classify.ts';
import { createBulkEncoder, newIdPrefix } from './bulk-encode.ts';
import { type BulkDestination, BulkSettings } from './bulk-settings.ts';

/** 5,000 documents or 5 MiB per request (the bulk helpers' defaults), four requests in flight. */
export const BULK_BATCH_DEFAULTS: BatchLimits = { maxEvents: 5_000, maxBytes: 5 << 20, concurrency: 4 };

/**
 * Only what the driver reads back: the error flag and each item's status and error. Keeps the
 * answer to a 5,000-item request at a few dozen bytes per item.
 */
const BULK_PATH = '/_bulk?filter_path=errors,items.*.status,items.*.error';

/**
 * The `vendorB_bulk` driver: ECS documents to Elasticsearch 8+ or OpenSearch 2+ through `_bulk`.
 * A thin undici client rather than an official one: `@elastic/elasticsearch` refuses any server
 * without the `X-Elastic-Product` header (so never talks to OpenSearch) and its v9 media types are
 * refused by ES 8, while `@opensearch-project/opensearch` has no ApiKey auth; plain
 * `application/json` / `application/x-ndjson` over HTTP works with both products
 * (protocols-hec-bulk.md 3.9-3.10, 4).
 */
export function createBulkDriver(
  destination: BulkDestination,
  deps: SiemDeps,
  options: HttpDriverOptions = {},
): IndexingSiemClient {
  const opts = resolveDriverOptions(options, BULK_BATCH_DEFAULTS);
  const siem = destination.name;
  // Every secret setting, and the Basic pair: scrubbed from every answer as it is read
  // (HttpEndpoint) and from every message.
  const scrubber = secretScrubber({
    secrets: secretValues(BulkSettings, destination),
    basic: [{ user: destination.username, password: destination.password }],
  });
  const message = (endpoint: string, cause: string) => scrubber.text(siemMessage(siem, endpoint, cause));
  warnIfUnverified(deps.log, siem, destination.tls_verify, [destination.url]);

  const endpoint = new HttpEndpoint(destination.url, destination, {
    connections: opts.batch.concurrency,
    timeouts: opts.timeouts,
    scrubber,
  });
  const authorization = destination.api_key
    ? `ApiKey ${destination.api_key}`
    : destination.username !== null && destination.password !== null
      ? `Basic ${Buffer.from(`${destination.username}:${destination.password}`).toString('base64')}`
      : undefined;
  const baseHeaders: Record<string, string> = {
    accept: 'application/json',
    ...(authorization ? { authorization } : {}),
  };
  const bulkHeaders = { ...baseHeaders, 'content-type': 'application/x-ndjson' };
  const admin: BulkAdminContext = {
    endpoint,
    headers: baseHeaders,
    describe: (path, cause) => message(endpoint.label(path), cause),
    wipeTimeoutMs: opts.jobTimeoutMs,
  };
  const badIndex = (index: string): string | undefined => {
    const problem = plainIndexNameProblem(index, { dots: true });
    return problem ? `index name "${index}" refused: ${problem}` : undefined;
  };

  return {
    intake: 'events',
    destination,

    async send(batches, shipOptions: SendOptions = {}): Promise<ShipResult> {
      const ledger = new ShipLedger(shipOptions.onProgress);
      const signal = shipOptions.signal ?? new AbortController().signal;
      const index = shipOptions.index ?? destination.index;
      const label = endpoint.label(BULK_PATH);
      const describe = (cause: string) => message(label, cause);
      const problem = index === null ? 'no index: the destination has no default index' : badIndex(index);
      if (problem) ledger.stop(failure('config', describe(problem)));
      const encode = createBulkEncoder(index ?? '', newIdPrefix());
      // Bodies come from a pool of the shipment's: a new buffer of megabytes per request faults
      // its pages in as it is written, which took a quarter of a bulk shipment's main thread
      // (docs/performance.md). A body goes back only after an answer with a verdict for every
      // item: the SIEM read every byte, so nothing of the buffer waits on the socket.
      const buffers = new BodyBuffers(opts.batch.concurrency);
      const send: SendBatch = async (events, sendSignal) => {
        const held = buffers.take(maxBodyBytes(events));
        const length = writeRequestBody(events, held);
        // Batches are cut by UTF-16 units (cheap to count); text outside ASCII takes up to three
        // bytes per unit, so a body can come out larger than the byte limit: halve it unsent.
        if (length > opts.batch.maxBytes && events.length > 1) {
          buffers.give(held);
          return overLimit(length, opts.batch.maxBytes);
        }
        const body = held.subarray(0, length);
        const answer = await endpoint.request({
          method: 'POST',
          path: BULK_PATH,
          headers: bulkHeaders,
          body,
          signal: sendSignal,
        });
        if (answer.kind === 'network') return networkOutcome(answer);
        const outcome = classifyBulkAnswer(
          answer.status,
          answer.text,
          answer.headers,
          events.length,
          Date.now(),
          index ?? undefined,
        );
        // An answer with a verdict for every item (ok or per item): only then has the SIEM read
        // every byte. A 200 that lists the wrong number of items may come from something that
        // answered before reading the body, and the buffer may still be going out.
        if (answer.status === 200 && (outcome.kind === 'ok' || outcome.kind === 'partial'))
          buffers.give(held);
        return outcome.kind === 'ok' ? { kind: 'ok', bytes: body.length } : outcome;
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
      const problem = badIndex(index);
      if (problem) return { ok: false, index, error: message(endpoint.label(''), problem) };
      return ensureBulkIndex(admin, index, signal);
    },

    async wipe(indexes, signal = new AbortController().signal): Promise<IndexOutcome[]> {
      const outcomes: IndexOutcome[] = [];
      for (const index of indexes) {
        const problem = badIndex(index);
        const outcome: IndexOutcome = problem
          ? { ok: false, index, error: message(endpoint.label(''), problem) }
          : await wipeBulkIndex(admin, index, signal);
        if (outcome.ok) deps.log.info({ siem, index, deleted: outcome.deleted }, 'Index wiped.');
        else deps.log.error({ siem, index, error: outcome.error }, 'Index wipe failed.');
        outcomes.push(outcome);
      }
      return outcomes;
    },

    async check(signal = new AbortController().signal): Promise<CheckStep[]> {
      const steps = await checkBulk(admin, destination.index, signal);
      return steps.map((s) => ({ ...s, message: scrubber.text(s.message) }));
    },

    async close(): Promise<void> {
      await endpoint.close();
    },
  };
}
