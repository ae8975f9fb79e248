import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildZip } from '../../test/fixtures/archives/zip-builder.ts';
import { wrapClients } from '../../test/helpers/siem-kinds.ts';
import { SwitchableDispatcher } from '../../test/helpers/switchable-dispatcher.ts';
import { buildTestApp, type TestApp } from '../../test/helpers/test-app.ts';
import { type HecSimulator, startHecSimulator } from '../../test/simulators/hec-simulator.ts';
import { createDestination } from '../destinations/destination-service.ts';
import type { OutboundEvent } from '../pipeline/shipment/outbound-event.ts';
import { createShipping } from '../shipping/shipping.ts';
import { hecKind } from '../siems/hec/hec-kind.ts';
import { SiemRegistry } from '../siems/registry.ts';
import type { EventSiemClient, SendOptions } from '../siems/siem-client.ts';
import type { NoiseDispatcher } from './dispatch-types.ts';
import { LEASE_EXPIRED_ERROR } from './job-lease.ts';
import { createJob } from './job-service.ts';
import { createNoiseDispatcher } from './noise-dispatcher.ts';
import { getRuns, recordRunProgress, recordRunTotal } from './run-store.ts';

const t0 = Date.UTC(2024, 0, 10, 8, 0, 0);
const ENTRIES = 10;
const LINES_PER_ENTRY = 1_000;
const TOTAL = ENTRIES * LINES_PER_ENTRY;
/** The test's scale: HEC requests of 100 events, 4 in flight, so one batch window is 400 events. */
const BATCH = { maxEvents: 100, concurrency: 4 };
const WINDOW = BATCH.maxEvents * BATCH.concurrency;
const BY = { actor: 'system' } as const;

/** 10 entries of 1,000 LEEF lines: the pipeline hands the client at least one batch per entry. */
const ARCHIVE = buildZip(
  Array.from({ length: ENTRIES }, (_, e) => ({
    name: `noise/${String(e).padStart(2, '0')}.log`,
    data: Array.from(
      { length: LINES_PER_ENTRY },
      (_, i) => `LEEF:1.0|V|P|1|e${e}-${i}|devTime=${t0 + (e * LINES_PER_ENTRY + i) * 1000}`,
    ).join('\n'),
  })),
);

/**
 * The input of a shipment that stops after `limit` events as a killed process would: no further
 * batch ever comes (until the dispatch is aborted, so the test can end). What the client took
 * before is still delivered and acknowledged, as requests in flight are when a process dies.
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

describe('a noise run whose process died mid-shipment', () => {
  let t: TestApp;
  let hec: HecSimulator;
  let jobId: string;
  const dispatch = new SwitchableDispatcher();

  beforeAll(async () => {
    hec = await startHecSimulator({ indexes: ['lab'] });
    t = await buildTestApp({
      overrides: {
        noiseDispatcher: dispatch.override,
        // No heartbeat while the test runs: the "dead" dispatch must not renew its lease.
        runs: { leaseMs: 60_000, heartbeatMs: 3_600_000 },
      },
    });
    await createDestination(t.ctx, {
      name: 'splunk',
      driver: 'vendorA_hec',
      url: hec.url,
      token: hec.token,
      index: 'lab',
    });
    await t.ctx.storage.put('noise-archives', 'noise/big.zip', ARCHIVE);
    jobId = (
      await createJob(t.ctx, {
        name: 'big noise',
        targets: ['splunk'],
        schedule: { kind: 'interval', interval_seconds: 86_400 },
        archives: [{ position: 0, storage_path: 'noise/big.zip' }],
      })
    ).id;
  });
  afterEach(() => {
    dispatch.reset();
  });
  afterAll(async () => {
    await t.close();
    await hec.close();
  });

  /**
   * The context's dispatcher over HEC clients with small batches whose input freezes after
   * `freezeAt` events; an acknowledged batch takes 10 ms of the test clock, as a busy SIEM's do.
   */
  function freezingDispatcher(
    freezeAt: number,
    frozen: () => void,
    acknowledged: (shipped: number) => void,
  ): NoiseDispatcher {
    const kind = wrapClients(hecKind({ batch: BATCH }), (_destination, real) => {
      const client = real() as EventSiemClient;
      return {
        ...client,
        send: (batches, options: SendOptions = {}) =>
          client.send(freezeAfter(batches, freezeAt, options.signal, frozen), {
            ...options,
            onProgress: (counters) => {
              t.clock.advance(10);
              acknowledged(counters.shipped);
              options.onProgress?.(counters);
            },
          }),
      } satisfies EventSiemClient;
    });
    const siems = new SiemRegistry([kind], { log: t.ctx.log, clock: t.clock });
    const shipping = createShipping({ ...t.ctx, siems, limits: {} });
    // Progress every batch window (production: 4 × 5,000 events, the HEC and bulk windows).
    return createNoiseDispatcher({ ...t.ctx, shipping }, { progressEvents: WINDOW });
  }

  it('is recovered with events_shipped within one batch window of what the SIEM holds, and shipped + failed = events', async () => {
    hec.store.clear();
    let isFrozen = false;
    let acked = 0;
    dispatch.use(
      freezingDispatcher(
        6_000,
        () => (isFrozen = true),
        (shipped) => (acked = shipped),
      ),
    );
    const handle = await t.ctx.noise.runner.runJob(jobId, { trigger: 'manual', by: BY });
    const runId = handle.run_ids.splunk as string;

    // The process "dies": its input froze; wait until what it had in flight was answered (the
    // client acknowledged all the SIEM holds, for a while), then nothing more happens on its side.
    let held = -1;
    for (let i = 0, calm = 0; i < 1_000 && calm < 5; i++) {
      await sleep(10);
      const now = hec.store.searchable('lab').length;
      calm = isFrozen && now === held && acked === now ? calm + 1 : 0;
      held = now;
    }
    expect(isFrozen).toBe(true);
    expect(acked).toBe(held);
    // Room for the progress write the last answers started.
    await sleep(50);
    expect(held).toBeGreaterThanOrEqual(6_000);
    expect(held).toBeLessThan(TOTAL);
    const [running] = await getRuns(t.ctx.db, [runId]);
    expect(running?.status).toBe('running');

    // Another instance's scheduler tick after the lease expired recovers the run.
    t.clock.advance(61_000);
    await t.ctx.noise.scheduler.tick();
    const [row] = await getRuns(t.ctx.db, [runId]);
    expect(row).toMatchObject({ status: 'failed', error: LEASE_EXPIRED_ERROR });
    const { events_shipped: shipped, events_failed: failed } = row as {
      events_shipped: number;
      events_failed: number;
    };
    expect(shipped + failed).toBe(TOTAL);
    expect(shipped).toBeLessThanOrEqual(held);
    expect(held - shipped, `the SIEM holds ${held}, the row says ${shipped}`).toBeLessThanOrEqual(WINDOW);

    // The dead dispatch, woken at shutdown, changes nothing on the recovered row.
    await t.ctx.runs.close();
    await handle.done;
    expect((await getRuns(t.ctx.db, [runId]))[0]).toEqual(row);
  });
});

describe('a noise run left open by its dispatcher', () => {
  let t: TestApp;
  const dispatch = new SwitchableDispatcher();

  beforeAll(async () => {
    t = await buildTestApp({ overrides: { noiseDispatcher: dispatch.override } });
    await createDestination(t.ctx, {
      name: 'splunk',
      driver: 'vendorA_hec',
      url: 'https://a:8088',
      token: 'x',
      index: 'lab',
    });
    await t.ctx.storage.put('noise-archives', 'noise/a.zip', ARCHIVE);
  });
  afterAll(async () => {
    await t.close();
  });

  it('counts every event not confirmed shipped failed when the dispatcher throws after shipping some', async () => {
    const job = await createJob(t.ctx, {
      name: 'throws midway',
      targets: ['splunk'],
      schedule: { kind: 'interval', interval_seconds: 86_400 },
      archives: [{ position: 0, storage_path: 'noise/a.zip' }],
    });
    dispatch.use(async (request) => {
      const runId = request.run_ids.splunk as string;
      await recordRunTotal(t.ctx.db, [runId], 500);
      await recordRunProgress(t.ctx.db, runId, { events_shipped: 120, events_failed: 3 });
      throw new Error('out of memory');
    });
    const handle = await t.ctx.noise.runner.runJob(job.id, { trigger: 'manual', by: BY });
    const result = await handle.done;
    expect(result.runs.map((r) => [r.status, r.events_shipped, r.events_failed, r.error])).toEqual([
      ['failed', 120, 380, 'the dispatch failed: out of memory'],
    ]);
  });

  it('keeps the counts as they are when the run died before its events were counted', async () => {
    const job = await createJob(t.ctx, {
      name: 'throws before preparing',
      targets: ['splunk'],
      schedule: { kind: 'interval', interval_seconds: 86_400 },
      archives: [{ position: 0, storage_path: 'noise/a.zip' }],
    });
    dispatch.use(async () => {
      throw new Error('storage gone');
    });
    const handle = await t.ctx.noise.runner.runJob(job.id, { trigger: 'manual', by: BY });
    const result = await handle.done;
    expect(result.runs.map((r) => [r.status, r.events_shipped, r.events_failed])).toEqual([['failed', 0, 0]]);
  });
});
