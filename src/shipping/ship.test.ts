import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { buildZip } from '../../test/fixtures/archives/zip-builder.ts';
import { manualClock } from '../clock.ts';
import type { Destination } from '../destinations/destination-types.ts';
import { createLogger } from '../logger.ts';
import type { OutboundEvent } from '../pipeline/shipment/outbound-event.ts';
import { SiemRegistry } from '../siems/registry.ts';
import { plainIndexNameProblem } from '../siems/shared/index-name.ts';
import type { EventSiemClient, ShipResult } from '../siems/siem-client.ts';
import { type FailureReason, failure } from '../siems/siem-failure.ts';
import { defineSiemKind, type IndexSupport } from '../siems/siem-kind.ts';
import { prepareSources } from './prepared-sources.ts';
import type { ArchiveIndex } from './route-for.ts';
import { ship } from './ship.ts';

const NOW = Date.UTC(2026, 10, 27, 12, 0, 0);
const T = Date.UTC(2026, 10, 20, 8, 0, 0);
const log = createLogger('silent');

/** What a scripted client was handed in one send. */
interface Sent {
  index: string | null | undefined;
  events: OutboundEvent[];
}

/**
 * How a scripted client answers one send: everything shipped, or everything failed for `reason`;
 * `hang`: a receiver that never answers, until the shipment's signal ends the send (its events
 * failed `cancelled`, as the drivers count them).
 */
type Answer = 'ok' | FailureReason | 'throw' | 'hang';

/** A test kind whose client answers each send as scripted and records what it was handed. */
function scripted(indexes: IndexSupport, answers: Answer[], sent: Sent[]) {
  let call = 0;
  return defineSiemKind({
    name: 'test_scripted',
    title: 'scripted (test only)',
    settings: Type.Object({}),
    payloadFormats: ['leef'],
    intake: 'events',
    capabilities: {
      indexes,
      labelsIndex: indexes === 'label',
      indexCreation: false,
      wipe: false,
      sourceIdentity: false,
      logSources: false,
    },
    indexNameProblem: (name) => plainIndexNameProblem(name, { dots: false }),
    create: (destination): EventSiemClient => ({
      intake: 'events',
      destination,
      async send(batches, options = {}): Promise<ShipResult> {
        const answer = answers[call++] ?? 'ok';
        if (answer === 'throw') throw new Error('a bug in the client');
        const events: OutboundEvent[] = [];
        for await (const batch of batches) events.push(...batch);
        sent.push({ index: options.index, events });
        if (answer === 'hang') {
          const signal = options.signal as AbortSignal;
          await new Promise((resolve) => {
            if (signal.aborted) resolve(undefined);
            else signal.addEventListener('abort', resolve, { once: true });
          });
          const message = `SIEM "${destination.name}": cancelled`;
          return {
            ...{ shipped: 0, failed: events.length, retried: 0, bytes: 0, errors: [message] },
            failures: [{ reason: 'cancelled', message, events: events.length }],
          };
        }
        if (answer === 'ok')
          return { shipped: events.length, failed: 0, retried: 0, bytes: 0, errors: [], failures: [] };
        const index = options.index ?? destination.index ?? undefined;
        const f = failure(
          answer,
          `SIEM "${destination.name}": ${answer}`,
          answer === 'index_refused' ? index : undefined,
        );
        return {
          shipped: 0,
          failed: events.length,
          retried: 0,
          bytes: 0,
          errors: [f.message],
          failures: [{ ...f, events: events.length }],
        };
      },
      check: async () => [],
      close: async () => {},
    }),
  });
}

/** Archives of `counts[i]` LEEF lines each, a second apart, the last at T. */
async function sources(counts: number[]) {
  let n = counts.reduce((a, b) => a + b, 0);
  const archives = counts.map((count, a) => {
    const lines = Array.from({ length: count }, () => {
      n--;
      return `LEEF:1.0|V|P|1|E|devTime=${T - n * 1000}\tsrc=10.0.0.${a}`;
    });
    return {
      data: buildZip([{ name: 'a.log', data: lines.join('\n') }]),
      kind: 'zip' as const,
      label: `a${a}.zip`,
    };
  });
  return prepareSources(archives, { format: 'leef', now: NOW, limits: {} });
}

function setup(indexes: IndexSupport, answers: Answer[], index: string | null = 'lab') {
  const sent: Sent[] = [];
  const kind = scripted(indexes, answers, sent);
  const siems = new SiemRegistry([kind], { log, clock: manualClock(NOW) });
  const destination = {
    id: 'd1',
    name: 'siem-x',
    driver: 'test_scripted',
    payload_format: 'leef',
    index,
    enabled: true,
  } as Destination;
  return { sent, deps: { siems, log }, target: { destination, kind } };
}

const signal = new AbortController().signal;
const own = (index: string): ArchiveIndex => ({ index_mode: 'existing', index });
const byDefault: ArchiveIndex = { index_mode: 'default', index: null };

describe('ship: one target, several sources', () => {
  it('ships each source to its route and counts every event once', async () => {
    const { sent, deps, target } = setup('native', []);
    const prepared = await sources([2, 3]);
    const out = await ship(deps, { target, sources: prepared, routing: [own('dns'), byDefault], signal });
    expect(out).toMatchObject({ siem: 'siem-x', events: 5, shipped: 5, failed: 0, errors: [], failures: [] });
    expect(out.perSource).toEqual([
      { events: 2, shipped: 2, failed: 0 },
      { events: 3, shipped: 3, failed: 0 },
    ]);
    expect(sent.map((s) => [s.index, s.events.length])).toEqual([
      ['dns', 2],
      [null, 3],
    ]);
    // One shift for both: the newest event of all lands at now + 2 h.
    expect(sent[1]?.events.at(-1)?.time).toBe(NOW + 2 * 3_600_000);
  });

  it('skips later sources to an index the SIEM refused, and still ships the others', async () => {
    const { sent, deps, target } = setup('native', ['index_refused']);
    const prepared = await sources([2, 3, 4]);
    const out = await ship(deps, {
      target,
      sources: prepared,
      routing: [own('gone'), own('gone'), own('web')],
      signal,
    });
    expect(sent.map((s) => s.index)).toEqual(['gone', 'web']);
    expect(out).toMatchObject({ events: 9, shipped: 4, failed: 5 });
    expect(out.failures).toEqual([
      { reason: 'index_refused', index: 'gone', message: 'SIEM "siem-x": index_refused', events: 5 },
    ]);
  });

  it('stops at a failure of the whole target: later sources are not tried, their events fail with it', async () => {
    const { sent, deps, target } = setup('native', ['auth']);
    const out = await ship(deps, { target, sources: await sources([2, 3]), signal });
    expect(sent).toHaveLength(1);
    expect(out).toMatchObject({ shipped: 0, failed: 5, errors: ['SIEM "siem-x": auth'] });
    expect(out.failures).toEqual([{ reason: 'auth', message: 'SIEM "siem-x": auth', events: 5 }]);
  });

  it('fails the rest as internal when a client throws', async () => {
    const { deps, target } = setup('native', ['ok', 'throw']);
    const out = await ship(deps, { target, sources: await sources([2, 3, 1]), signal });
    expect(out).toMatchObject({ shipped: 2, failed: 4 });
    expect(out.failures.map((f) => [f.reason, f.events])).toEqual([['internal', 4]]);
    expect(out.errors[0]).toMatch(/^a1\.zip: the shipment failed: a bug in the client/);
  });

  it('sends nothing once cancelled, and counts it all failed with the reason', async () => {
    const { sent, deps, target } = setup('native', []);
    const controller = new AbortController();
    controller.abort(new Error('the service is shutting down'));
    const out = await ship(deps, { target, sources: await sources([2, 3]), signal: controller.signal });
    expect(sent).toEqual([]);
    expect(out.failures).toEqual([
      { reason: 'cancelled', message: 'cancelled: the service is shutting down', events: 5 },
    ]);
  });

  it('applies the shift a caller passes for a timeline of several shipments', async () => {
    const { sent, deps, target } = setup('native', []);
    const prepared = await sources([1]);
    await ship(deps, { target, sources: prepared, shiftMs: 3_600_000, signal });
    expect(sent[0]?.events[0]?.time).toBe(T + 3_600_000);
    expect(sent[0]?.events[0]?.line).toBe(`LEEF:1.0|V|P|1|E|devTime=${T + 3_600_000}\tsrc=10.0.0.0`);
  });

  it('labels the events of a label kind, and refuses an archive to its default index when it has none', async () => {
    const labelled = setup('label', []);
    await ship(labelled.deps, {
      target: labelled.target,
      sources: await sources([1, 1]),
      routing: [own('dns'), byDefault],
      signal,
    });
    expect(labelled.sent.map((s) => s.events[0]?.line?.split('\t').at(-1))).toEqual([
      'labIndex=dns',
      'labIndex=lab',
    ]);

    const bare = setup('label', [], null);
    const out = await ship(bare.deps, {
      target: bare.target,
      sources: await sources([1, 2]),
      routing: [own('dns'), byDefault],
      signal,
    });
    expect(bare.sent).toHaveLength(1);
    expect(out).toMatchObject({ shipped: 1, failed: 2 });
    expect(out.failures[0]).toMatchObject({ reason: 'config', events: 2 });
    expect(out.errors[0]).toMatch(
      /has no index, so the lines of a1\.zip \(index_mode default\) would carry no labIndex=/,
    );
  });
});

describe('ship: the shipment deadline', () => {
  it('stops a shipment stuck on a receiver at its deadline: what was shipped stays, the rest fails `deadline`', async () => {
    const { sent, deps, target } = setup('native', ['ok', 'hang']);
    const out = await ship(
      { ...deps, deadlineMs: 60_000 },
      { target, sources: await sources([2, 3, 4]), signal, deadlineMs: 50 },
    );
    // The third source was never handed to the client.
    expect(sent.map((s) => s.events.length)).toEqual([2, 3]);
    expect(out).toMatchObject({
      events: 9,
      shipped: 2,
      failed: 7,
      stopped: { reason: 'deadline', deadlineMs: 50 },
    });
    expect(out.failures).toEqual([
      {
        reason: 'deadline',
        message: 'SIEM "siem-x": the shipment stopped at its 0.05 s deadline (SHIPMENT_DEADLINE_SECONDS)',
        events: 7,
      },
    ]);
    expect(out.errors).toEqual([out.failures[0]?.message]);
    expect(out.perSource.map((s) => [s.shipped, s.failed])).toEqual([
      [2, 0],
      [0, 3],
      [0, 4],
    ]);
  });

  it("takes the service's deadline when the request sets none, and reports nothing when it is not reached", async () => {
    const stuck = setup('native', ['hang']);
    const out = await ship(
      { ...stuck.deps, deadlineMs: 30 },
      { target: stuck.target, sources: await sources([2]), signal },
    );
    expect(out).toMatchObject({ shipped: 0, failed: 2, stopped: { reason: 'deadline', deadlineMs: 30 } });

    const quick = setup('native', []);
    const done = await ship(
      { ...quick.deps, deadlineMs: 60_000 },
      { target: quick.target, sources: await sources([2]), signal },
    );
    expect(done).toMatchObject({ shipped: 2, failed: 0, stopped: null });
  });

  it('says cancelled, not deadline, when the caller stopped it first', async () => {
    const { deps, target } = setup('native', ['hang']);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('the service is shutting down')), 20);
    const out = await ship(
      { ...deps, deadlineMs: 60_000 },
      { target, sources: await sources([2, 1]), signal: controller.signal },
    );
    expect(out).toMatchObject({ shipped: 0, failed: 3, stopped: { reason: 'cancelled' } });
    expect(out.failures.map((f) => f.reason)).toEqual(['cancelled']);
  });
});
