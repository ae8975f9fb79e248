import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildZip } from '../../test/fixtures/archives/zip-builder.ts';
import { wrapClients } from '../../test/helpers/siem-kinds.ts';
import { buildTestApp, signedInAs, type TestApp } from '../../test/helpers/test-app.ts';
import { type HecSimulator, startHecSimulator } from '../../test/simulators/hec-simulator.ts';
import type { AuditRow } from '../db/schema.ts';
import type { OutboundEvent } from '../pipeline/shipment/outbound-event.ts';
import { hecKind } from '../siems/hec/hec-kind.ts';
import type { EventSiemClient, SendOptions } from '../siems/siem-client.ts';

const t0 = Date.UTC(2024, 5, 1, 10, 0, 0);
/** Two entries of 1,000 LEEF lines: the client takes the first, then its input freezes. */
const ARCHIVE = buildZip(
  [0, 1].map((e) => ({
    name: `exercise/${e}.log`,
    data: Array.from(
      { length: 1_000 },
      (_, i) => `LEEF:1.0|Acme|Firewall|9.1|deny|src=10.1.${e}.${i % 250}\tdevTime=${t0 + i * 1000}`,
    ).join('\n'),
  })),
);

/**
 * The input of a shipment that stops after `limit` events, as in a process killed mid-shipment:
 * what the client took is delivered, then nothing more comes until the shipment is aborted.
 */
async function* freezeAfter(
  input: AsyncIterable<readonly OutboundEvent[]>,
  limit: number,
  signal: AbortSignal | undefined,
  onFrozen: () => void,
): AsyncGenerator<readonly OutboundEvent[]> {
  let pulled = 0;
  for await (const batch of input) {
    if (pulled >= limit) {
      onFrozen();
      await new Promise<void>((resolve) => {
        if (signal?.aborted) resolve();
        signal?.addEventListener('abort', () => resolve(), { once: true });
      });
      return;
    }
    pulled += batch.length;
    yield batch;
  }
}

describe('the audit record of a session start', () => {
  let t: TestApp;
  let hec: HecSimulator;
  let files: Server;
  let url = '';
  let author: string;
  let frozen = false;
  let downloads = 0;
  /** Events the frozen client had acknowledged. */
  let acked = 0;

  beforeAll(async () => {
    files = createServer((_req, res) => {
      downloads++;
      res.writeHead(200, { 'content-type': 'application/zip' }).end(ARCHIVE);
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    const port = (files.address() as AddressInfo).port;
    url = `http://127.0.0.1:${port}/exercise.zip?X-Amz-Signature=secret-signature`;
    hec = await startHecSimulator({ indexes: ['lab'] });
    t = await buildTestApp({
      env: { ARCHIVE_ALLOW_HTTP: 'true', ARCHIVE_ALLOWED_HOSTS: `127.0.0.1:${port}` },
      overrides: {
        // Requests of 100 events, so what the client took is sent before its input freezes.
        siemKinds: () => [
          wrapClients(hecKind({ batch: { maxEvents: 100 } }), (destination, real) => {
            const client = real();
            if (destination.name !== 'frozen' || client.intake !== 'events') return client;
            return {
              ...client,
              send: (batches, options: SendOptions = {}) =>
                client.send(
                  freezeAfter(batches, 1_000, options.signal, () => (frozen = true)),
                  {
                    ...options,
                    onProgress: (counters) => {
                      acked = counters.shipped;
                      options.onProgress?.(counters);
                    },
                  },
                ),
            } satisfies EventSiemClient;
          }),
        ],
      },
    });
    author = (await signedInAs(t, ['author'])).cookie;
    for (const name of ['frozen', 'splunk']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/destinations',
        headers: { cookie: (await signedInAs(t, ['admin'])).cookie },
        payload: { name, driver: 'vendorA_hec', url: hec.url, token: hec.token, index: 'lab' },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
  });
  afterAll(async () => {
    await t.close();
    await hec.close();
    await new Promise((resolve) => files.close(resolve));
  });

  const start = (siem: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/sessions/start',
      headers: { cookie: author },
      payload: { archiveDownloadUrl: url, siem },
    });
  const records = (siem: string): Promise<AuditRow[]> =>
    t.ctx.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'session.start')
      .where('target', '=', siem)
      .orderBy('id')
      .execute();

  it('is written as started when the start begins, and its end names it', async () => {
    const res = await start('splunk');
    expect(res.statusCode, res.body).toBe(200);
    const [begun, ended, ...more] = await records('splunk');
    expect(more).toEqual([]);
    expect(begun).toMatchObject({
      outcome: 'started',
      details: { url: url.split('?')[0], driver: 'vendorA_hec' },
    });
    expect(ended).toMatchObject({
      outcome: 'success',
      details: { events: 2_000, events_shipped: 2_000, started_id: String(begun?.id) },
    });
    expect(JSON.stringify([begun, ended])).not.toContain('secret-signature');
  });

  it('does not begin a start whose started record cannot be written: nothing downloaded or sent', async () => {
    hec.store.clear();
    const before = downloads;
    // The database refuses exactly that record.
    await sql`alter table audit_log add constraint refuse_session_start
      check (not (action = 'session.start' and outcome = 'started')) not valid`.execute(t.ctx.db);
    try {
      const res = await start('splunk');
      expect(res.statusCode).toBe(500);
      expect(res.json().error.code).toBe('internal');
    } finally {
      await sql`alter table audit_log drop constraint refuse_session_start`.execute(t.ctx.db);
    }
    expect(downloads).toBe(before);
    expect(hec.store.searchable('lab')).toHaveLength(0);
  });

  it('shows a start interrupted mid-shipment as begun and not ended', async () => {
    hec.store.clear();
    const answer = start('frozen');
    // The process "dies" mid-shipment: the SIEM holds the first events, nothing more happens.
    for (let i = 0; i < 500 && !frozen; i++) await sleep(10);
    expect(frozen).toBe(true);
    // … and answered what it sent before.
    for (let i = 0; i < 500 && acked < 1_000; i++) await sleep(10);
    expect(acked).toBe(1_000);
    expect(hec.store.searchable('lab')).toHaveLength(1_000);

    const interrupted = await records('frozen');
    expect(interrupted.map((r) => [r.outcome, r.actor_label])).toEqual([
      ['started', expect.stringMatching(/@example\.test$/)],
    ]);
    expect(interrupted[0]?.details).toMatchObject({ url: url.split('?')[0], driver: 'vendorA_hec' });

    // A graceful stop, unlike a kill, still ends the start: the failure names the started record.
    await t.ctx.stop();
    expect((await answer).statusCode).toBe(500);
    const after = await records('frozen');
    expect(after.map((r) => r.outcome)).toEqual(['started', 'failure']);
    expect(after[1]?.details).toMatchObject({
      events: 2_000,
      events_shipped: 1_000,
      events_failed: 1_000,
      started_id: String(after[0]?.id),
    });
  });
});
