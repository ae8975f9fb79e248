import { describe, expect, it } from 'vitest';
import type { Wait } from './backoff.ts';
import { type DeliverContext, deliverBatch, type EncodedEvent, type SendOutcome } from './deliver.ts';
import { ShipLedger } from './ship-ledger.ts';

const events = (n: number): EncodedEvent[] =>
  Array.from({ length: n }, (_, i) => ({ text: `e${i}`, size: 2 }));

/** A send that answers from a script and records what it was given. */
function scripted(outcomes: SendOutcome[]) {
  const sent: string[][] = [];
  const send = async (batch: readonly EncodedEvent[]) => {
    sent.push(batch.map((e) => e.text));
    return outcomes.shift() ?? { kind: 'ok' as const };
  };
  return { send, sent };
}

function context(overrides: Partial<DeliverContext> = {}): DeliverContext & { waits: number[] } {
  const waits: number[] = [];
  const wait: Wait = async (ms) => {
    waits.push(ms);
    return true;
  };
  return {
    ledger: new ShipLedger(),
    policy: { attempts: 3, baseMs: 100, capMs: 1_000 },
    wait,
    signal: new AbortController().signal,
    describe: (cause) => `SIEM "s" x: ${cause}`,
    random: () => 0,
    waits,
    ...overrides,
  };
}

describe('deliverBatch', () => {
  it('counts an acknowledged batch as shipped with its bytes and reports progress', async () => {
    const progress: number[] = [];
    const ctx = context({ ledger: new ShipLedger((c) => progress.push(c.shipped)) });
    const { send, sent } = scripted([{ kind: 'ok' }]);
    await deliverBatch(events(3), send, ctx);
    expect(ctx.ledger.result()).toEqual({
      shipped: 3,
      failed: 0,
      retried: 0,
      bytes: 6,
      errors: [],
      failures: [],
    });
    expect(sent).toHaveLength(1);
    expect(progress).toEqual([3]);
  });

  it('retries with growing backoff and counts the re-sent events', async () => {
    const ctx = context();
    const { send, sent } = scripted([
      { kind: 'retry', reason: 'HTTP 503' },
      { kind: 'retry', reason: 'HTTP 503' },
      { kind: 'ok' },
    ]);
    await deliverBatch(events(2), send, ctx);
    expect(sent).toHaveLength(3);
    expect(ctx.waits).toEqual([100, 200]);
    expect(ctx.ledger.result()).toMatchObject({ shipped: 2, failed: 0, retried: 4 });
  });

  it('gives up after the last attempt, fails the batch and stops the shipment', async () => {
    const ctx = context();
    const { send, sent } = scripted([
      { kind: 'retry', reason: 'connection refused', cause: { reason: 'unreachable' } },
      { kind: 'retry', reason: 'connection refused', cause: { reason: 'unreachable' } },
      { kind: 'retry', reason: 'connection refused', cause: { reason: 'unreachable' } },
    ]);
    await deliverBatch(events(4), send, ctx);
    expect(sent).toHaveLength(3);
    const reason = 'SIEM "s" x: connection refused; gave up after 3 attempts';
    expect(ctx.ledger.result()).toEqual({
      shipped: 0,
      failed: 4,
      retried: 8,
      bytes: 0,
      errors: [reason],
      failures: [{ reason: 'unreachable', message: reason, events: 4 }],
    });
    expect(ctx.ledger.stopped?.message).toBe(reason);
    // A later batch of the same shipment is failed without being sent.
    const later = scripted([]);
    await deliverBatch(events(2), later.send, ctx);
    expect(later.sent).toHaveLength(0);
    expect(ctx.ledger.failed).toBe(6);
  });

  it('counts the events a retry answer says were taken before retrying the rest', async () => {
    const ctx = context();
    const { send, sent } = scripted([{ kind: 'retry', reason: 'busy', acceptedPrefix: 2 }, { kind: 'ok' }]);
    await deliverBatch(events(5), send, ctx);
    expect(sent).toEqual([
      ['e0', 'e1', 'e2', 'e3', 'e4'],
      ['e2', 'e3', 'e4'],
    ]);
    expect(ctx.ledger.result()).toMatchObject({ shipped: 5, retried: 3 });
  });

  it('stops on a configuration error: taken prefix shipped, the rest failed, no retry', async () => {
    const ctx = context();
    const { send, sent } = scripted([
      { kind: 'stop', reason: 'HTTP 403 Invalid token (code 4)', acceptedPrefix: 1 },
    ]);
    await deliverBatch(events(3), send, ctx);
    expect(sent).toHaveLength(1);
    expect(ctx.ledger.result()).toMatchObject({ shipped: 1, failed: 2, retried: 0 });
    expect(ctx.ledger.stopped?.message).toBe('SIEM "s" x: HTTP 403 Invalid token (code 4)');
  });

  it('rejects a batch without stopping the shipment', async () => {
    const ctx = context();
    await deliverBatch(events(3), scripted([{ kind: 'reject', reason: 'HTTP 400' }]).send, ctx);
    expect(ctx.ledger.result()).toMatchObject({ shipped: 0, failed: 3 });
    expect(ctx.ledger.stopped).toBeUndefined();
  });

  it('splits a batch the receiver finds too large, down to single events', async () => {
    const ctx = context();
    const { send, sent } = scripted([
      { kind: 'split', reason: 'HTTP 413' },
      { kind: 'ok' },
      { kind: 'split', reason: 'HTTP 413' },
      { kind: 'split', reason: 'HTTP 413' },
      { kind: 'ok' },
    ]);
    await deliverBatch(events(4), send, ctx);
    expect(sent).toEqual([['e0', 'e1', 'e2', 'e3'], ['e0', 'e1'], ['e2', 'e3'], ['e2'], ['e3']]);
    expect(ctx.ledger.result()).toMatchObject({
      shipped: 3,
      failed: 1,
      errors: ['SIEM "s" x: HTTP 413; one event alone is too large'],
    });
  });

  it('sorts per-event verdicts: resends unread events at once, retries rejected ones after a backoff, in order', async () => {
    const ctx = context();
    const { send, sent } = scripted([
      {
        kind: 'partial',
        accepted: [0, 3],
        failed: [{ at: 1, reason: 'document refused: mapper_parsing_exception' }],
        resend: [4],
        retry: [2],
        retryReason: 'HTTP 429 es_rejected_execution_exception',
      },
      { kind: 'ok' },
    ]);
    await deliverBatch(events(5), send, ctx);
    expect(sent[1]).toEqual(['e2', 'e4']);
    expect(ctx.waits).toEqual([100]);
    expect(ctx.ledger.result()).toMatchObject({
      shipped: 4,
      failed: 1,
      retried: 1,
      errors: ['SIEM "s" x: document refused: mapper_parsing_exception'],
    });
  });

  it('stops the shipment after per-event verdicts that say later events will be refused too', async () => {
    const ctx = context();
    const { send, sent } = scripted([
      {
        kind: 'partial',
        accepted: [0, 3],
        failed: [{ at: 1, reason: 'document refused: cluster_block_exception' }],
        resend: [4],
        retry: [2],
        retryReason: 'HTTP 429 es_rejected_execution_exception',
        stop: 'document refused: cluster_block_exception',
      },
    ]);
    await deliverBatch(events(5), send, ctx);
    expect(sent).toHaveLength(1);
    expect(ctx.waits).toEqual([]);
    expect(ctx.ledger.result()).toMatchObject({ shipped: 2, failed: 3, retried: 0 });
    expect(ctx.ledger.stopped?.message).toBe('SIEM "s" x: document refused: cluster_block_exception');
  });

  it('fails only the per-event retries that run out of attempts, and carries on', async () => {
    const ctx = context({ policy: { attempts: 2, baseMs: 10, capMs: 10 } });
    const partial = (retry: number[], accepted: number[]): SendOutcome => ({
      kind: 'partial',
      accepted,
      failed: [],
      resend: [],
      retry,
      retryReason: 'HTTP 429',
    });
    const { send } = scripted([partial([0], [1, 2]), partial([0], [])]);
    await deliverBatch(events(3), send, ctx);
    expect(ctx.ledger.result()).toMatchObject({
      shipped: 2,
      failed: 1,
      errors: ['SIEM "s" x: HTTP 429; gave up after 2 attempts'],
    });
    expect(ctx.ledger.stopped).toBeUndefined();
  });

  it('fails events an answer says nothing about', async () => {
    const ctx = context();
    const { send } = scripted([{ kind: 'partial', accepted: [0], failed: [], resend: [], retry: [] }]);
    await deliverBatch(events(3), send, ctx);
    expect(ctx.ledger.result()).toMatchObject({
      shipped: 1,
      failed: 2,
      errors: ['SIEM "s" x: the answer did not cover every event'],
    });
  });

  it('counts a cancelled send or a cancelled backoff as failed', async () => {
    const cancelled = context();
    await deliverBatch(events(2), scripted([{ kind: 'cancelled' }]).send, cancelled);
    expect(cancelled.ledger.result()).toMatchObject({ failed: 2, errors: ['SIEM "s" x: cancelled'] });

    const controller = new AbortController();
    const during = context({
      signal: controller.signal,
      wait: async () => {
        controller.abort();
        return false;
      },
    });
    await deliverBatch(events(2), scripted([{ kind: 'retry', reason: 'busy' }]).send, during);
    expect(during.ledger.result()).toMatchObject({ shipped: 0, failed: 2, retried: 0 });
  });

  it('turns a send that throws into a counted stop instead of an unhandled error', async () => {
    const ctx = context();
    await deliverBatch(
      events(2),
      async () => {
        throw new Error('boom');
      },
      ctx,
    );
    expect(ctx.ledger.result()).toMatchObject({ failed: 2, errors: ['SIEM "s" x: internal error: boom'] });
  });
});
