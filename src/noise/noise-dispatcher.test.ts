import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildZip } from '../../test/fixtures/archives/zip-builder.ts';
import { builtinKindsWith, type ClientWrapper } from '../../test/helpers/siem-kinds.ts';
import { buildTestApp, type TestApp } from '../../test/helpers/test-app.ts';
import { startHecSimulator } from '../../test/simulators/hec-simulator.ts';
import { createDestination } from '../destinations/destination-service.ts';
import type { Destination } from '../destinations/destination-types.ts';
import type { FramePiece } from '../pipeline/frames/frame-format.ts';
import type { OutboundEvent } from '../pipeline/shipment/outbound-event.ts';
import { createShipping } from '../shipping/shipping.ts';
import { SiemRegistry } from '../siems/registry.ts';
import type { FrameSiemClient, SendOptions, ShipResult } from '../siems/siem-client.ts';
import type { ObjectStorage } from '../storage/object-storage.ts';
import { createS3Storage } from '../storage/s3-storage.ts';
import type { DispatchRequest } from './dispatch-types.ts';
import { createJob } from './job-service.ts';
import { createNoiseDispatcher } from './noise-dispatcher.ts';
import { createRunRows, getRuns, markRunsRunning, type RunView } from './run-store.ts';

const t0 = Date.UTC(2024, 0, 10, 8, 0, 0);
const lines = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `LEEF:1.0|V|P|1|${prefix}${i}|devTime=${t0 + i * 1000}`);

/** `promise`, or a rejection once `ms` passed: a hang fails the test quickly instead of stalling it. */
function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  return Promise.race([
    promise,
    sleep(ms, undefined, { ref: false }).then(() => {
      throw new Error(`still pending after ${ms} ms`);
    }),
  ]);
}

/**
 * A syslog_tcp client that takes every frame, recording the LEEF lines in them (the synthesized
 * headers cut off); `onShip` may interfere.
 */
function recordingClient(
  destination: Destination,
  log: Array<{ siem: string; index: string | null | undefined; events: OutboundEvent[] }>,
  onShip?: (call: number, options: SendOptions) => Promise<void> | void,
  afterShip?: (call: number) => void,
): FrameSiemClient {
  let calls = 0;
  return {
    intake: 'frames',
    destination,
    async send(frames, options = {}): Promise<ShipResult> {
      const call = calls++;
      const events: OutboundEvent[] = [];
      let failed = 0;
      await onShip?.(call, options);
      for await (const piece of frames) {
        if (piece.kind === 'refused') failed += piece.events;
        else {
          for (const frame of piece.data.toString('utf8').split('\n').filter(Boolean))
            events.push({ line: frame.slice(frame.indexOf('LEEF:')), time: null });
        }
      }
      log.push({ siem: destination.name, index: options.index, events });
      afterShip?.(call);
      return { shipped: events.length, failed, retried: 0, bytes: 0, errors: [], failures: [] };
    },
    check: async () => [],
    close: async () => {},
  };
}

describe('createNoiseDispatcher', () => {
  let t: TestApp;
  let jobId: string;
  const shipped: Array<{ siem: string; index: string | null | undefined; events: OutboundEvent[] }> = [];

  beforeAll(async () => {
    t = await buildTestApp();
    for (const [name, extra] of [
      ['syslog-a', { index: 'a-default' }],
      ['syslog-b', { index: 'b-default' }],
      ['syslog-off', { enabled: false, index: 'off-default' }],
    ] as const) {
      await createDestination(t.ctx, {
        name,
        driver: 'syslog_tcp',
        host: '127.0.0.1',
        port: 9,
        source_identity: 'lab',
        ...extra,
      });
    }
    await t.ctx.storage.put(
      'noise-archives',
      'one.zip',
      buildZip([{ name: 'a.log', data: lines('a', 3).join('\n') }]),
    );
    await t.ctx.storage.put(
      'noise-archives',
      'two.zip',
      buildZip([{ name: 'b.log', data: lines('b', 2).join('\n') }]),
    );
    const job = await createJob(t.ctx, {
      name: 'two archives',
      targets: ['syslog-a', 'syslog-b', 'syslog-off'],
      schedule: { kind: 'interval', interval_seconds: 60 },
      archives: [
        { position: 0, storage_path: 'one.zip' },
        { position: 1, storage_path: 'two.zip', index_mode: 'existing', index: 'two' },
      ],
    });
    jobId = job.id;
  });
  afterAll(async () => {
    await t.close();
  });

  async function request(targets: string[], job = jobId): Promise<DispatchRequest> {
    const run_ids = await createRunRows(t.ctx.db, {
      jobId: job,
      targets,
      trigger: 'manual',
      now: t.clock.now(),
    });
    // As the runner hands them over: running (progress is written on running rows only).
    await markRunsRunning(t.ctx.db, Object.values(run_ids), 'test', t.clock.now());
    return {
      job_id: job,
      trigger: 'manual',
      run_ids,
      archives: [
        { position: 1, storage_path: 'two.zip' },
        { position: 0, storage_path: 'one.zip' },
      ],
      targets,
      schedule: { kind: 'interval', interval_seconds: 60 },
    };
  }
  async function rows(
    req: DispatchRequest,
  ): Promise<Record<string, Omit<RunView, 'id' | 'job_id' | 'created_at'>>> {
    const all = await getRuns(t.ctx.db, Object.values(req.run_ids));
    return Object.fromEntries(
      all.map(({ id: _id, job_id: _job, created_at: _c, ...rest }) => [rest.siem, rest]),
    );
  }
  /** A dispatcher whose SIEM clients are built by `client` (given the real one too). */
  const dispatcher = (
    client: ClientWrapper,
    progressIntervalMs = 1000,
    storage: ObjectStorage = t.ctx.storage,
  ) => {
    const siems = new SiemRegistry(builtinKindsWith(client)(t.ctx.config), {
      log: t.ctx.log,
      clock: t.clock,
    });
    const shipping = createShipping({ ...t.ctx, siems, limits: {} });
    return createNoiseDispatcher({ ...t.ctx, storage, shipping }, { progressIntervalMs });
  };

  it('ships the archives in position order to every target; a disabled or missing target fails alone', async () => {
    shipped.length = 0;
    const req = await request(['syslog-a', 'syslog-b', 'syslog-off']);
    req.targets.push('ghost');
    req.run_ids.ghost = (
      await createRunRows(t.ctx.db, { jobId, targets: ['ghost'], trigger: 'manual', now: t.clock.now() })
    ).ghost as string;
    const outcome = await dispatcher((d) => recordingClient(d, shipped))(req, new AbortController().signal);
    expect(outcome).toEqual({ ok: false, failed: ['syslog-off', 'ghost'] });
    const bySiem = (siem: string) =>
      shipped.filter((s) => s.siem === siem).map((s) => s.events.map((e) => e.line?.split('|')[4]));
    expect(bySiem('syslog-a')).toEqual([
      ['a0', 'a1', 'a2'],
      ['b0', 'b1'],
    ]);
    // labIndex: none on archive one for a destination without an index; the archive's otherwise.
    const tail = (siem: string) =>
      shipped.filter((s) => s.siem === siem).map((s) => s.events[0]?.line?.split('\t').slice(1));
    expect(tail('syslog-a')).toEqual([['labIndex=a-default'], ['labIndex=two']]);
    expect(tail('syslog-b')).toEqual([['labIndex=b-default'], ['labIndex=two']]);
    const r = await rows(req);
    expect(r['syslog-a']).toMatchObject({
      status: 'succeeded',
      events_shipped: 5,
      events_failed: 0,
      error: null,
    });
    expect(r['syslog-b']).toMatchObject({
      status: 'succeeded',
      events_shipped: 5,
      events_failed: 0,
      error: null,
    });
    expect(r['syslog-off']).toMatchObject({
      status: 'failed',
      events_shipped: 0,
      events_failed: 5,
      error: 'SIEM destination "syslog-off" is disabled; nothing was sent',
    });
    expect(r.ghost).toMatchObject({
      status: 'failed',
      events_failed: 5,
      error: 'SIEM destination "ghost" does not exist',
    });
  });

  it('keeps shipping to the others when one target’s driver throws', async () => {
    shipped.length = 0;
    const req = await request(['syslog-a', 'syslog-b']);
    const outcome = await dispatcher((d) =>
      recordingClient(d, shipped, (call) => {
        if (d.name === 'syslog-a' && call === 1) throw new Error('encoder bug');
      }),
    )(req, new AbortController().signal);
    expect(outcome).toEqual({ ok: false, failed: ['syslog-a'] });
    const r = await rows(req);
    expect(r['syslog-a']).toMatchObject({
      status: 'partial',
      events_shipped: 3,
      events_failed: 2,
      error: 'two.zip: the shipment failed: encoder bug',
    });
    expect(r['syslog-b']).toMatchObject({ status: 'succeeded', events_shipped: 5 });
  });

  it('gives up on a target that took nothing of a whole archive, without trying the next ones', async () => {
    const calls: string[] = [];
    const req = await request(['syslog-a', 'syslog-b']);
    const outcome = await dispatcher((d) => {
      const client = recordingClient(d, []);
      return {
        ...client,
        async send(frames: AsyncIterable<FramePiece>, options?: SendOptions) {
          calls.push(d.name);
          if (d.name === 'syslog-a') {
            let n = 0;
            for await (const piece of frames) n += piece.events;
            return {
              shipped: 0,
              failed: n,
              retried: 5,
              bytes: 0,
              errors: ['SIEM "syslog-a" tcp://127.0.0.1:9: connection refused'],
              failures: [
                {
                  reason: 'unreachable' as const,
                  message: 'SIEM "syslog-a" tcp://127.0.0.1:9: connection refused',
                  events: n,
                },
              ],
            };
          }
          return client.send(frames, options);
        },
      };
    })(req, new AbortController().signal);
    expect(outcome).toEqual({ ok: false, failed: ['syslog-a'] });
    expect(calls.filter((c) => c === 'syslog-a')).toHaveLength(1);
    expect(calls.filter((c) => c === 'syslog-b')).toHaveLength(2);
    const r = await rows(req);
    expect(r['syslog-a']).toMatchObject({
      status: 'failed',
      events_shipped: 0,
      events_failed: 5,
      error: 'SIEM "syslog-a" tcp://127.0.0.1:9: connection refused',
    });
  });

  it('ships the later archives when the SIEM refuses one archive’s index, but stops at refused credentials', async () => {
    const hec = await startHecSimulator({ indexes: ['web-default'] });
    try {
      for (const [name, token] of [
        ['hec-lab', hec.token],
        ['hec-bad-token', 'not-the-token'],
      ] as const) {
        await createDestination(t.ctx, {
          name,
          driver: 'vendorA_hec',
          url: hec.url,
          token,
          index: 'web-default',
          tls_verify: false,
        });
      }
      // Routed to an existing index that is not there: missing on the SIEM at dispatch.
      const job = await createJob(t.ctx, {
        name: 'missing index first',
        targets: ['hec-lab', 'hec-bad-token'],
        schedule: { kind: 'interval', interval_seconds: 60 },
        archives: [
          { position: 0, storage_path: 'one.zip', index_mode: 'existing', index: 'dns-noise' },
          { position: 1, storage_path: 'two.zip' },
        ],
      });
      const req = await request(['hec-lab', 'hec-bad-token'], job.id);
      const calls: string[] = [];
      const outcome = await dispatcher((d, real) => {
        const client = real();
        if (client.intake !== 'events') throw new Error('HEC takes events');
        return {
          ...client,
          send(batches: AsyncIterable<readonly OutboundEvent[]>, options?: SendOptions) {
            calls.push(d.name);
            return client.send(batches, options);
          },
          close: () => client.close(),
        };
      })(req, new AbortController().signal);
      expect(outcome).toEqual({ ok: false, failed: ['hec-lab', 'hec-bad-token'] });
      const r = await rows(req);
      // one.zip (3 events) is refused for its index; two.zip (2 events) still reaches the SIEM.
      expect(r['hec-lab']).toMatchObject({ status: 'partial', events_shipped: 2, events_failed: 3 });
      expect(r['hec-lab']?.error).toMatch(/HTTP 400 .*code 7.*index "dns-noise"/);
      expect(hec.store.searchable('web-default')).toHaveLength(2);
      // A refused token concerns every archive: the target stops after the first one.
      expect(r['hec-bad-token']).toMatchObject({ status: 'failed', events_shipped: 0, events_failed: 5 });
      expect(r['hec-bad-token']?.error).toMatch(/the HEC token was refused/);
      expect(calls.filter((c) => c === 'hec-lab')).toHaveLength(2);
      expect(calls.filter((c) => c === 'hec-bad-token')).toHaveLength(1);
    } finally {
      await hec.close();
    }
  });

  it('fails every row naming the store when an archive download times out', async () => {
    // An S3 endpoint that accepts connections and never answers.
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const s3 = createS3Storage(
      {
        endpoint: `http://127.0.0.1:${port}`,
        region: 'us-east-1',
        accessKeyId: 'a',
        secretAccessKey: 'b',
        forcePathStyle: true,
      },
      { connectionMs: 200, answerMs: 200, idleMs: 200 },
    );
    try {
      const req = await request(['syslog-a', 'syslog-b']);
      const outcome = await within(
        15_000,
        dispatcher((d) => recordingClient(d, []), 1000, s3)(req, new AbortController().signal),
      );
      expect(outcome).toEqual({ ok: false, failed: ['syslog-a', 'syslog-b'] });
      const r = await rows(req);
      for (const siem of ['syslog-a', 'syslog-b']) {
        expect(r[siem]).toMatchObject({ status: 'failed', events_shipped: 0, events_failed: 0 });
        expect(r[siem]?.error).toMatch(
          new RegExp(
            `^the dispatch failed: archive "(one|two)\\.zip" could not be read from storage: S3 store 127\\.0\\.0\\.1:${port} failed while .*: timed out`,
          ),
        );
      }
    } finally {
      await s3.close();
      silent.close();
    }
  });

  it('stops downloading the archives when the dispatch is cancelled', async () => {
    const req = await request(['syslog-a']);
    const controller = new AbortController();
    const reads: Array<AbortSignal | undefined> = [];
    // A store whose reads hang until their signal aborts.
    const hanging: ObjectStorage = {
      ...t.ctx.storage,
      get: (_bucket, _key, signal) => {
        reads.push(signal);
        return new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
          if (reads.length === 2) controller.abort(new Error('the service stopped during the dispatch'));
        });
      },
    };
    const outcome = await within(
      5_000,
      dispatcher((d) => recordingClient(d, []), 1000, hanging)(req, controller.signal),
    );
    expect(reads).toHaveLength(2);
    expect(outcome).toEqual({ ok: false, failed: ['syslog-a'] });
    expect((await rows(req))['syslog-a']).toMatchObject({
      status: 'failed',
      events_shipped: 0,
      events_failed: 0,
      error: 'cancelled: the service stopped during the dispatch',
    });
  });

  it('puts why the dispatch was cancelled first, even when the client pulled everything and names its own cause', async () => {
    const req = await request(['syslog-a']);
    const controller = new AbortController();
    // A client that has taken every frame when the dispatch is cancelled, and then fails the
    // events it could not confirm with its own message (as the syslog client's window does).
    const confirming = (d: Destination): FrameSiemClient => ({
      ...recordingClient(d, []),
      async send(frames) {
        let events = 0;
        for await (const piece of frames) events += piece.events;
        controller.abort(new Error('the lease was lost'));
        const message = `SIEM "${d.name}" tcp://127.0.0.1:514: cancelled before the receiver confirmed`;
        return {
          shipped: 0,
          failed: events,
          retried: 0,
          bytes: 0,
          errors: [message],
          failures: [{ reason: 'cancelled', message, events }],
        };
      },
    });
    await dispatcher(confirming)(req, controller.signal);
    const row = (await rows(req))['syslog-a'];
    expect(row).toMatchObject({ status: 'failed', events_shipped: 0 });
    expect(row?.error).toMatch(
      /^cancelled: the lease was lost; SIEM "syslog-a" tcp:\/\/127\.0\.0\.1:514: cancelled before/,
    );
  });

  it('records progress after each archive', async () => {
    const req = await request(['syslog-b']);
    const seen: number[] = [];
    await dispatcher(
      (d) =>
        recordingClient(d, [], async (call) => {
          if (call === 0) return;
          // Wait for the progress write of archive one, made without waiting for it.
          for (let i = 0; i < 10_000; i++) {
            const [row] = await getRuns(t.ctx.db, [req.run_ids['syslog-b'] as string]);
            if (row?.events_shipped === 3) break;
            await new Promise((resolve) => setImmediate(resolve));
          }
          const [row] = await getRuns(t.ctx.db, [req.run_ids['syslog-b'] as string]);
          seen.push(row?.events_shipped ?? -1);
        }),
      0,
    )(req, new AbortController().signal);
    expect(seen).toEqual([3]);
  });

  it('stops at cancellation, counts the rest failed and says why', async () => {
    const req = await request(['syslog-a', 'syslog-b']);
    const controller = new AbortController();
    const aborted = new Promise((resolve) => controller.signal.addEventListener('abort', resolve));
    const outcome = await dispatcher((d) =>
      recordingClient(
        d,
        [],
        // syslog-a's first shipment starts only once the dispatch was cancelled …
        async (call) => {
          if (call === 0 && d.name === 'syslog-a') await aborted;
        },
        // … which happens when syslog-b has shipped its first archive.
        (call) => {
          if (call === 0 && d.name === 'syslog-b')
            controller.abort(new Error('the service stopped during the dispatch'));
        },
      ),
    )(req, controller.signal);
    expect(outcome).toEqual({ ok: false, failed: ['syslog-a', 'syslog-b'] });
    const r = await rows(req);
    expect(r['syslog-a']).toMatchObject({
      status: 'failed',
      events_shipped: 0,
      events_failed: 5,
      error: 'cancelled: the service stopped during the dispatch',
    });
    expect(r['syslog-b']).toMatchObject({
      status: 'partial',
      events_shipped: 3,
      events_failed: 2,
      error: 'cancelled: the service stopped during the dispatch',
    });
  });

  it('fails every row when cancelled before shipping', async () => {
    const req = await request(['syslog-a']);
    const controller = new AbortController();
    controller.abort(new Error('the dispatch lost its lease (it expired and the job was taken over)'));
    await dispatcher((d) => recordingClient(d, []))(req, controller.signal);
    expect((await rows(req))['syslog-a']).toMatchObject({
      status: 'failed',
      events_shipped: 0,
      events_failed: 0,
      error: 'cancelled: the dispatch lost its lease (it expired and the job was taken over)',
    });
  });
  it('stops a target at the shipment deadline: a partial row that says so, with the counts', async () => {
    const req = await request(['syslog-a']);
    const siems = new SiemRegistry(
      builtinKindsWith((d) =>
        recordingClient(d, [], async (call, options) => {
          // The second archive finds the SIEM stuck until the deadline ends the shipment.
          if (call === 1) {
            const signal = options.signal as AbortSignal;
            await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          }
        }),
      )(t.ctx.config),
      { log: t.ctx.log, clock: t.clock },
    );
    const shipping = createShipping({ ...t.ctx, siems, limits: {}, deadlineMs: 200 });
    const outcome = await within(
      10_000,
      createNoiseDispatcher({ ...t.ctx, shipping })(req, new AbortController().signal),
    );
    expect(outcome).toEqual({ ok: false, failed: ['syslog-a'] });
    expect((await rows(req))['syslog-a']).toMatchObject({
      status: 'partial',
      events_shipped: 3,
      events_failed: 2,
      error: 'SIEM "syslog-a": the shipment stopped at its 0.2 s deadline (SHIPMENT_DEADLINE_SECONDS)',
    });
  });
});
