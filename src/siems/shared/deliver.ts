import { type Failure, type FailureReason, failure } from '../siem-failure.ts';
import { backoffDelay, type RetryPolicy, type Wait } from './backoff.ts';
import type { ShipLedger } from './ship-ledger.ts';

/**
 * One event, encoded for the wire: `text` is its exact part of the request body (separator
 * included). `size` is `text.length`, a stand-in for its byte size when cutting batches: equal for
 * ASCII, never more than three times too small, and free — measuring UTF-8 bytes would copy every
 * freshly built string once more. Bytes are counted exactly when the SIEM acknowledges.
 */
export interface EncodedEvent {
  readonly text: string;
  readonly size: number;
  /**
   * Writes the same bytes as `text` at `offset` of `out` (room for 3 bytes per unit of `size`) and
   * returns the offset after them. An event kept as its parts writes them one by one, so its text
   * never has to be joined (see writeRequestBody).
   */
  readonly writeTo?: (out: Buffer, offset: number) => number;
  /**
   * An event already written as bytes: `bytes[bytesStart, bytesEnd)` (its `writeTo` copies them).
   * Events that follow one another in one buffer are copied into the body in one go.
   */
  readonly bytes?: Buffer;
  readonly bytesStart?: number;
  readonly bytesEnd?: number;
}

/**
 * What one send of a batch came to, as data (engineering-models C.3): the driver's `send` never
 * throws for delivery trouble. Positions refer to the batch that was sent.
 * - `ok`: every event acknowledged (`bytes`: the body's length, when the send knows it);
 * - `retry`: nothing (past `acceptedPrefix`) was taken, for a retriable reason;
 * - `reject`: the events (past `acceptedPrefix`) are refused for good, the shipment goes on;
 * - `stop`: a configuration error — these and all later events fail without being sent;
 * - `split`: the batch is too large for the receiver; halves are sent instead;
 * - `partial`: per-event verdicts (bulk items, a HEC data error at one position); `resend` goes
 *   out again at once (it was not looked at), `retry` after a backoff; with `stop`, neither: they
 *   and all later events fail (a write block every item meets);
 * - `cancelled`: the shipment's signal aborted the send.
 *
 * `cause` says why as data (SiemFailure); without it a `reject` or a failed item is `rejected`, a
 * `stop` is `config`, and retries that run out are `unavailable`.
 */
export type SendOutcome =
  | { readonly kind: 'ok'; readonly bytes?: number }
  | {
      readonly kind: 'retry';
      readonly reason: string;
      readonly cause?: FailureCause;
      readonly afterMs?: number;
      readonly acceptedPrefix?: number;
    }
  | {
      readonly kind: 'reject';
      readonly reason: string;
      readonly cause?: FailureCause;
      readonly acceptedPrefix?: number;
    }
  | {
      readonly kind: 'stop';
      readonly reason: string;
      readonly cause?: FailureCause;
      readonly acceptedPrefix?: number;
    }
  | { readonly kind: 'split'; readonly reason: string }
  | {
      readonly kind: 'partial';
      readonly accepted: readonly number[];
      readonly failed: ReadonlyArray<{
        readonly at: number;
        readonly reason: string;
        readonly cause?: FailureCause;
      }>;
      readonly resend: readonly number[];
      readonly retry: readonly number[];
      readonly retryReason?: string;
      readonly afterMs?: number;
      /** The answer shows that later events will be refused too: stop the shipment after these verdicts. */
      readonly stop?: string;
      readonly stopCause?: FailureCause;
    }
  | { readonly kind: 'cancelled' };

/** Why an outcome failed events, as data: the reason and, for `index_refused`, the index. */
export interface FailureCause {
  readonly reason: FailureReason;
  readonly index?: string;
}

/** Sends a batch once. */
export type SendBatch = (events: readonly EncodedEvent[], signal: AbortSignal) => Promise<SendOutcome>;

/** What the delivery of one batch needs. */
export interface DeliverContext {
  readonly ledger: ShipLedger;
  readonly policy: RetryPolicy;
  readonly wait: Wait;
  readonly signal: AbortSignal;
  /** Turns a cause into a full message naming the SIEM and the endpoint. */
  readonly describe: (cause: string) => string;
  readonly random?: () => number;
}

/** A Failure of `reason` (`cause` when given) whose message names the SIEM and endpoint. */
export function described(
  ctx: Pick<DeliverContext, 'describe'>,
  text: string,
  fallback: FailureReason,
  cause?: FailureCause,
): Failure {
  return failure(cause?.reason ?? fallback, ctx.describe(text), cause?.index);
}

/**
 * Delivers one batch: sends, reads the outcome, retries with jittered exponential backoff within the
 * policy, and counts every event of the batch exactly once as shipped or failed. A whole-batch
 * retry that runs out of attempts stops the shipment (the SIEM is down or saturated: waiting again
 * for every later batch would only stretch the failure); per-event retries that run out fail just
 * those events.
 */
export async function deliverBatch(
  batch: readonly EncodedEvent[],
  send: SendBatch,
  ctx: DeliverContext,
): Promise<void> {
  const { ledger } = ctx;
  let pending = batch;
  let attempt = 1;
  while (pending.length > 0) {
    if (ledger.stopped !== undefined) return ledger.fail(pending.length, ledger.stopped);
    if (ctx.signal.aborted) return ledger.fail(pending.length, described(ctx, 'cancelled', 'cancelled'));
    const outcome = await sendSafely(send, pending, ctx.signal);
    switch (outcome.kind) {
      case 'ok':
        acknowledge(ctx, pending, outcome.bytes);
        return;
      case 'cancelled':
        return ledger.fail(pending.length, described(ctx, 'cancelled', 'cancelled'));
      case 'reject':
      case 'stop': {
        const taken = clampPrefix(outcome.acceptedPrefix, pending.length);
        if (taken > 0) acknowledge(ctx, pending.slice(0, taken));
        const why = described(
          ctx,
          outcome.reason,
          outcome.kind === 'stop' ? 'config' : 'rejected',
          outcome.cause,
        );
        if (outcome.kind === 'stop') ledger.stop(why);
        return ledger.fail(pending.length - taken, why);
      }
      case 'split': {
        if (pending.length === 1)
          return ledger.fail(
            1,
            described(ctx, `${outcome.reason}; one event alone is too large`, 'rejected'),
          );
        const half = Math.ceil(pending.length / 2);
        await deliverBatch(pending.slice(0, half), send, ctx);
        await deliverBatch(pending.slice(half), send, ctx);
        return;
      }
      case 'retry': {
        const taken = clampPrefix(outcome.acceptedPrefix, pending.length);
        if (taken > 0) acknowledge(ctx, pending.slice(0, taken));
        pending = pending.slice(taken);
        if (attempt >= ctx.policy.attempts) {
          const why = described(
            ctx,
            `${outcome.reason}; gave up after ${attempt} attempts`,
            'unavailable',
            outcome.cause,
          );
          ledger.stop(why);
          return ledger.fail(pending.length, why);
        }
        if (!(await pause(ctx, attempt, outcome.afterMs))) continue;
        ledger.retry(pending.length);
        attempt++;
        continue;
      }
      case 'partial': {
        if (outcome.accepted.length > 0) acknowledge(ctx, pick(pending, outcome.accepted));
        for (const f of outcome.failed) ledger.fail(1, described(ctx, f.reason, 'rejected', f.cause));
        const covered =
          outcome.accepted.length + outcome.failed.length + outcome.resend.length + outcome.retry.length;
        // Conservation over convenience: an event the answer says nothing about is not delivered.
        ledger.fail(
          pending.length - covered,
          described(ctx, 'the answer did not cover every event', 'rejected'),
        );
        if (outcome.stop !== undefined) {
          const why = described(ctx, outcome.stop, 'config', outcome.stopCause);
          ledger.stop(why);
          return ledger.fail(outcome.resend.length + outcome.retry.length, why);
        }
        const retry = pick(pending, outcome.retry);
        const resend = pick(pending, outcome.resend);
        if (retry.length > 0 && attempt >= ctx.policy.attempts) {
          ledger.fail(
            retry.length,
            described(
              ctx,
              `${outcome.retryReason ?? 'rejected'}; gave up after ${attempt} attempts`,
              'unavailable',
            ),
          );
          pending = resend;
          continue;
        }
        // Positions are re-sorted so the batch goes out again in its original order.
        pending =
          outcome.retry.length === 0
            ? resend
            : pick(
                pending,
                [...outcome.resend, ...outcome.retry].sort((a, b) => a - b),
              );
        if (retry.length > 0) {
          if (!(await pause(ctx, attempt, outcome.afterMs))) continue;
          ledger.retry(retry.length);
          attempt++;
        }
        continue;
      }
    }
  }
}

/** A send that throws is a bug; it still must not leave events uncounted or a promise unhandled. */
async function sendSafely(
  send: SendBatch,
  events: readonly EncodedEvent[],
  signal: AbortSignal,
): Promise<SendOutcome> {
  try {
    return await send(events, signal);
  } catch (err) {
    return {
      kind: 'stop',
      reason: `internal error: ${err instanceof Error ? err.message : String(err)}`,
      cause: { reason: 'internal' },
    };
  }
}

function acknowledge(ctx: DeliverContext, events: readonly EncodedEvent[], knownBytes?: number): void {
  let bytes = knownBytes ?? 0;
  if (knownBytes === undefined) for (const e of events) bytes += Buffer.byteLength(e.text);
  ctx.ledger.accept(events.length, bytes);
  ctx.ledger.progress();
}

/** Backoff before retry `attempt`; false when the shipment was cancelled meanwhile. */
async function pause(ctx: DeliverContext, attempt: number, afterMs: number | undefined): Promise<boolean> {
  return ctx.wait(backoffDelay(attempt, ctx.policy, ctx.random, afterMs), ctx.signal);
}

function pick(events: readonly EncodedEvent[], positions: readonly number[]): EncodedEvent[] {
  const out: EncodedEvent[] = [];
  for (const p of positions) {
    const e = events[p];
    if (e !== undefined) out.push(e);
  }
  return out;
}

function clampPrefix(prefix: number | undefined, length: number): number {
  if (prefix === undefined || !Number.isInteger(prefix)) return 0;
  return Math.max(0, Math.min(length, prefix));
}
