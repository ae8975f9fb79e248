import type { OutboundEvent } from '../../../src/pipeline/shipment/outbound-event.ts';
import { ShipLedger } from '../../../src/siems/shared/ship-ledger.ts';
import type {
  CheckStep,
  IndexingSiemClient,
  IndexOutcome,
  SendOptions,
  ShipResult,
} from '../../../src/siems/siem-client.ts';
import { type Failure, failure } from '../../../src/siems/siem-failure.ts';
import type { LinesDestination } from './lines-settings.ts';

/**
 * The client of a test_lines SIEM: each batch is one `POST /indexes/<index>/events` of JSON lines
 * `{"time":…,"event":…}`; indexes are created with `PUT /indexes/<index>` and wiped with
 * `DELETE /indexes/<index>/events`; the check is `GET /health`. Small on purpose: it is the fourth
 * kind of the test that adds a kind from one folder.
 */
export function createLinesClient(destination: LinesDestination): IndexingSiemClient {
  const base = destination.url.replace(/\/+$/, '');
  const headers = { authorization: `Bearer ${destination.token}` };
  const describe = (cause: string) => `SIEM "${destination.name}" ${base}: ${cause}`;
  const call = async (method: string, path: string, body?: string): Promise<Response | Failure> => {
    try {
      return await fetch(`${base}${path}`, {
        method,
        headers: body === undefined ? headers : { ...headers, 'content-type': 'application/x-ndjson' },
        ...(body === undefined ? {} : { body }),
      });
    } catch (err) {
      return failure('unreachable', describe(err instanceof Error ? err.message : String(err)));
    }
  };
  return {
    intake: 'events',
    destination,

    async send(
      batches: AsyncIterable<readonly OutboundEvent[]>,
      options: SendOptions = {},
    ): Promise<ShipResult> {
      const ledger = new ShipLedger(options.onProgress);
      const index = options.index ?? destination.index ?? 'main';
      for await (const batch of batches) {
        if (ledger.stopped) {
          ledger.fail(batch.length, ledger.stopped);
          continue;
        }
        const body = batch
          .map((e) => JSON.stringify({ time: e.time, event: e.line ?? e.json ?? e.doc }))
          .join('\n');
        const answer = await call('POST', `/indexes/${encodeURIComponent(index)}/events`, body);
        if (!(answer instanceof Response)) {
          ledger.stop(answer);
          ledger.fail(batch.length, answer);
        } else if (answer.ok) {
          ledger.accept(batch.length, Buffer.byteLength(body));
          ledger.progress();
        } else {
          const why =
            answer.status === 401
              ? failure('auth', describe('HTTP 401: the token was refused'))
              : answer.status === 404
                ? failure('index_refused', describe(`HTTP 404: no index "${index}"`), index)
                : failure('unavailable', describe(`HTTP ${answer.status}`));
          ledger.stop(why);
          ledger.fail(batch.length, why);
        }
      }
      return ledger.result();
    },

    async check(): Promise<CheckStep[]> {
      const answer = await call('GET', '/health');
      if (!(answer instanceof Response)) return [{ name: 'health', ok: false, message: answer.message }];
      return [
        { name: 'health', ok: answer.ok, message: `HTTP ${answer.status}`, endpoint: `${base}/health` },
      ];
    },

    async ensureIndex(index: string): Promise<IndexOutcome> {
      const answer = await call('PUT', `/indexes/${encodeURIComponent(index)}`);
      if (!(answer instanceof Response)) return { ok: false, index, error: answer.message };
      return answer.ok
        ? { ok: true, index, created: answer.status === 201 }
        : { ok: false, index, error: describe(`HTTP ${answer.status}`) };
    },

    async wipe(indexes: readonly string[]): Promise<IndexOutcome[]> {
      const out: IndexOutcome[] = [];
      for (const index of indexes) {
        const answer = await call('DELETE', `/indexes/${encodeURIComponent(index)}/events`);
        if (!(answer instanceof Response)) out.push({ ok: false, index, error: answer.message });
        else if (!answer.ok) out.push({ ok: false, index, error: describe(`HTTP ${answer.status}`) });
        else out.push({ ok: true, index, deleted: ((await answer.json()) as { deleted: number }).deleted });
      }
      return out;
    },

    async close(): Promise<void> {},
  };
}
