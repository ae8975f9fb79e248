import type { OutboundEvent } from '../../pipeline/shipment/outbound-event.ts';
import {
  type DeliverContext,
  deliverBatch,
  described,
  type EncodedEvent,
  type SendBatch,
  type SendOutcome,
} from './deliver.ts';

/** How a shipment is cut into requests and how many run at once. */
export interface BatchLimits {
  /** Most events per request. */
  readonly maxEvents: number;
  /**
   * Most payload bytes per request before compression. Requests are cut by characters (UTF-16
   * units, see EncodedEvent), and a body that comes out larger in UTF-8 is halved before it is sent
   * (overLimit); one larger event still goes alone.
   */
  readonly maxBytes: number;
  /** Requests in flight at once. */
  readonly concurrency: number;
}

/**
 * The outcome of a body that came out larger than the batch's byte limit (see BatchLimits.maxBytes):
 * split it before sending, so no request exceeds the limit unless one event alone does.
 */
export function overLimit(bodyBytes: number, maxBytes: number): SendOutcome {
  return {
    kind: 'split',
    reason: `request body of ${bodyBytes} bytes exceeds the ${maxBytes}-byte batch limit`,
  };
}

/** Turns one event into its wire form, or a reason it cannot be sent. */
export type EncodeEvent = (event: OutboundEvent, seq: number) => EncodedEvent | { readonly error: string };

/**
 * Runs a shipment: pulls the caller's batches, encodes each event, cuts requests by count and bytes,
 * sends the first request alone, then keeps at most `concurrency` in flight and pulls no further input while the window is full (the
 * back-pressure that bounds memory to about concurrency × maxBytes). On a stop, the rest of the
 * input is still read and counted failed, so the caller's totals add up; on cancellation the input
 * is left unread and what was taken but not acknowledged is counted failed.
 */
export async function runShipment(
  input: AsyncIterable<readonly OutboundEvent[]>,
  encode: EncodeEvent,
  send: SendBatch,
  limits: BatchLimits,
  ctx: DeliverContext,
): Promise<void> {
  const { ledger, signal } = ctx;
  const inFlight = new Set<Promise<void>>();
  // The first request goes alone: a refused token or a wrong URL then costs one request and no
  // burst of `concurrency` refusals (reliability-notes §8 item 4); the window opens once it is
  // answered (delivered, failed or stopped).
  let answered = false;
  let current: EncodedEvent[] = [];
  let currentBytes = 0;
  let seq = 0;

  /** Sends the current batch once a slot is free; waiting here is the back-pressure on the input. */
  const flush = async () => {
    const batch = current;
    current = [];
    currentBytes = 0;
    while (inFlight.size >= (answered ? limits.concurrency : 1)) await Promise.race(inFlight);
    const p = deliverBatch(batch, send, ctx).finally(() => {
      answered = true;
      inFlight.delete(p);
    });
    inFlight.add(p);
  };

  try {
    for await (const events of input) {
      if (signal.aborted) {
        ledger.fail(events.length, described(ctx, 'cancelled', 'cancelled'));
        break;
      }
      if (ledger.stopped !== undefined) {
        ledger.fail(events.length, ledger.stopped);
        continue;
      }
      for (const event of events) {
        const encoded = encode(event, seq++);
        if ('error' in encoded) {
          ledger.fail(1, described(ctx, encoded.error, 'rejected'));
          continue;
        }
        if (current.length > 0 && currentBytes + encoded.size > limits.maxBytes) await flush();
        current.push(encoded);
        currentBytes += encoded.size;
        // A full batch goes out at once rather than waiting for the next event to arrive.
        if (current.length >= limits.maxEvents || currentBytes >= limits.maxBytes) await flush();
      }
    }
    if (current.length > 0) await flush();
  } catch (err) {
    // The input itself failed (a programming error upstream): settle what is out, then rethrow.
    ledger.fail(current.length, described(ctx, 'not sent: the event source failed', 'internal'));
    await Promise.allSettled(inFlight);
    throw err;
  }
  await Promise.allSettled(inFlight);
}
