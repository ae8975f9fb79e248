import { describe, expect, it } from 'vitest';
import type { OutboundEvent } from '../../pipeline/shipment/outbound-event.ts';
import type { DeliverContext, EncodedEvent, SendOutcome } from './deliver.ts';
import { ShipLedger } from './ship-ledger.ts';
import { type EncodeEvent, runShipment } from './ship-loop.ts';

const encode: EncodeEvent = (event) =>
  event.line === undefined ? { error: 'no line' } : { text: event.line, size: event.line.length };

function context(overrides: Partial<DeliverContext> = {}): DeliverContext {
  return {
    ledger: new ShipLedger(),
    policy: { attempts: 2, baseMs: 1, capMs: 1 },
    wait: async () => true,
    signal: new AbortController().signal,
    describe: (cause) => cause,
    ...overrides,
  };
}

/** Input that records how far it was read. */
function input(batches: string[][], pulled: { count: number } = { count: 0 }) {
  return (async function* () {
    for (const b of batches) {
      pulled.count++;
      yield b.map((line): OutboundEvent => ({ line, time: null }));
    }
  })();
}

describe('runShipment', () => {
  it('cuts requests by event count and by bytes, across input batches', async () => {
    const sent: string[][] = [];
    const send = async (batch: readonly EncodedEvent[]): Promise<SendOutcome> => {
      sent.push(batch.map((e) => e.text));
      return { kind: 'ok' };
    };
    const ctx = context();
    await runShipment(
      input([['aa', 'bb', 'cc'], ['dd'], ['eeeeee', 'ff']]),
      encode,
      send,
      { maxEvents: 2, maxBytes: 6, concurrency: 1 },
      ctx,
    );
    expect(sent).toEqual([['aa', 'bb'], ['cc', 'dd'], ['eeeeee'], ['ff']]);
    expect(ctx.ledger.result()).toMatchObject({ shipped: 6, failed: 0, bytes: 16 });
  });

  it('keeps at most `concurrency` requests in flight and reads no input while the window is full', async () => {
    const pulled = { count: 0 };
    const releases: Array<() => void> = [];
    let inFlight = 0;
    let most = 0;
    const send = async (): Promise<SendOutcome> => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise<void>((resolve) => releases.push(resolve));
      inFlight--;
      return { kind: 'ok' };
    };
    const ctx = context();
    const batches = Array.from({ length: 10 }, (_, i) => [`e${i}`]);
    const done = runShipment(
      input(batches, pulled),
      encode,
      send,
      { maxEvents: 1, maxBytes: 100, concurrency: 2 },
      ctx,
    );
    await new Promise((r) => setImmediate(r));
    // The first request goes alone; the second batch waits for its answer.
    expect(inFlight).toBe(1);
    expect(pulled.count).toBe(2);
    releases.shift()?.();
    await new Promise((r) => setImmediate(r));
    // Then two requests out, the next batch read and waiting for a free slot; nothing more read.
    expect(inFlight).toBe(2);
    expect(pulled.count).toBe(4);
    while (ctx.ledger.shipped + inFlight < 10 || inFlight > 0) {
      releases.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    await done;
    expect(most).toBe(2);
    expect(ctx.ledger.shipped).toBe(10);
  });

  it('sends a single request when the first answer stops the shipment (refused token), whatever the window', async () => {
    let sends = 0;
    const send = async (): Promise<SendOutcome> => {
      sends++;
      await new Promise((r) => setTimeout(r, 5));
      return { kind: 'stop', reason: 'HTTP 403 Invalid token (code 4)' };
    };
    const ctx = context();
    await runShipment(
      input(Array.from({ length: 8 }, (_, i) => [`e${i}`, `f${i}`])),
      encode,
      send,
      { maxEvents: 2, maxBytes: 100, concurrency: 4 },
      ctx,
    );
    expect(sends).toBe(1);
    expect(ctx.ledger.result()).toMatchObject({ shipped: 0, failed: 16, retried: 0 });
  });

  it('after a stop, reads the rest of the input and counts it failed without sending', async () => {
    let sends = 0;
    const send = async (): Promise<SendOutcome> => {
      sends++;
      return { kind: 'stop', reason: 'HTTP 401 token refused', cause: { reason: 'auth' } };
    };
    const ctx = context();
    const pulled = { count: 0 };
    await runShipment(
      input([['a', 'b'], ['c'], ['d', 'e']], pulled),
      encode,
      send,
      { maxEvents: 2, maxBytes: 100, concurrency: 1 },
      ctx,
    );
    expect(sends).toBe(1);
    expect(pulled.count).toBe(3);
    expect(ctx.ledger.result()).toEqual({
      shipped: 0,
      failed: 5,
      retried: 0,
      bytes: 0,
      errors: ['HTTP 401 token refused'],
      failures: [{ reason: 'auth', message: 'HTTP 401 token refused', events: 5 }],
    });
  });

  it('on cancellation stops reading and counts what it had taken as failed', async () => {
    const controller = new AbortController();
    const pulled = { count: 0 };
    const send = async (): Promise<SendOutcome> => {
      controller.abort();
      return { kind: 'cancelled' };
    };
    const ctx = context({ signal: controller.signal });
    await runShipment(
      input([['a', 'b'], ['c'], ['d'], ['e']], pulled),
      encode,
      send,
      { maxEvents: 2, maxBytes: 100, concurrency: 1 },
      ctx,
    );
    // The first batch went out and was cancelled; the second was read, then reading stopped.
    expect(pulled.count).toBe(2);
    expect(ctx.ledger.result()).toMatchObject({ shipped: 0, failed: 3, errors: ['cancelled'] });
  });

  it('counts events that cannot be encoded as failed and ships the others', async () => {
    const ctx = context();
    const events = (async function* () {
      yield [{ line: 'a', time: null }, { time: null }, { line: 'b', time: null }] as OutboundEvent[];
    })();
    await runShipment(
      events,
      encode,
      async () => ({ kind: 'ok' }),
      { maxEvents: 10, maxBytes: 100, concurrency: 1 },
      ctx,
    );
    expect(ctx.ledger.result()).toMatchObject({ shipped: 2, failed: 1, errors: ['no line'] });
  });

  it('settles what is in flight and rethrows when the input itself fails', async () => {
    const ctx = context();
    const events = (async function* () {
      yield [{ line: 'a', time: null }] as OutboundEvent[];
      throw new Error('archive broke');
    })();
    await expect(
      runShipment(
        events,
        encode,
        async () => ({ kind: 'ok' }),
        { maxEvents: 10, maxBytes: 100, concurrency: 1 },
        ctx,
      ),
    ).rejects.toThrow('archive broke');
    expect(ctx.ledger.result()).toMatchObject({ shipped: 0, failed: 1 });
  });
});
