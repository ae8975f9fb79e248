import type { OutboundBatch } from '../../pipeline/shipment/outbound-event.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, realWait, type Wait } from '../shared/backoff.ts';
import { logShipResult } from '../shared/log-ship-result.ts';
import { ShipLedger } from '../shared/ship-ledger.ts';
import { scrubSecrets, siemMessage } from '../shared/siem-message.ts';
import type { CheckStep, SendOptions, ShipResult, SiemClient, SiemDeps } from '../siem-client.ts';
import { type Failure, failure } from '../siem-failure.ts';
import { BatchEncoder, type BatchSink } from './batch-encoder.ts';
import { ChunkBuilder } from './chunk-builder.ts';
import { type ConfirmLimits, DEFAULT_CONFIRM_LIMITS, DeliveryWindow } from './delivery-window.ts';
import { checkSyslog } from './syslog-check.ts';
import {
  DEFAULT_SYSLOG_TIMEOUTS,
  openSyslogConnection,
  type SyslogTimeouts,
  syslogEndpointLabel,
} from './syslog-connection.ts';
import { DEFAULT_MAX_MESSAGE_BYTES, type EncodeRefusal, shipmentHeaderSettings } from './syslog-encode.ts';
import type { SyslogDestination } from './syslog-tcp-settings.ts';

/** Tuning of the syslog driver; every field has a default, tests and benchmarks override a few. */
export interface SyslogDriverOptions {
  readonly retry?: Partial<RetryPolicy>;
  readonly timeouts?: Partial<SyslogTimeouts>;
  /** When a connection is closed to confirm what it carried (see DeliveryWindow). */
  readonly confirm?: Partial<ConfirmLimits>;
  /** Frames are gathered into writes of about this many bytes (default 128 KiB). */
  readonly chunkBytes?: number;
  /** Longest message sent, in bytes (default 64 KiB). */
  readonly maxMessageBytes?: number;
  /**
   * Frames longer than this are sent but warned about once per shipment (default 4096 bytes): a
   * receiver that truncates (SIEM Q's payload limit, rsyslog's 8 KiB default) cuts off the end of
   * the line, where `labIndex=` stands (protocols-qradar-leef-syslog.md 3.8).
   */
  readonly warnMessageBytes?: number;
  /** Replaces the backoff timer (tests step through retries without real waiting). */
  readonly wait?: Wait;
  /** Jitter source in [0, 1). */
  readonly random?: () => number;
}

/** Messages above this are warned about (protocols-qradar-leef-syslog.md 3.8 suggests 4096). */
const DEFAULT_WARN_MESSAGE_BYTES = 4096;

/** About 128 KiB per write: few system calls, little memory per write. */
const DEFAULT_CHUNK_BYTES = 128 * 1024;

/**
 * The `syslog_tcp` driver: LEEF events as syslog messages over TCP or TLS, one frame per event, LF
 * or octet-counted framing, headers per the shipment's header mode. Delivery is at-least-once:
 * events count as shipped once a graceful close confirmed the connection that carried them, a
 * dropped connection's unconfirmed events are written again (counted in `retried`), and what could
 * not be delivered within the retry budget is counted failed (docs/syslog-delivery.md).
 *
 * Batches of a LEEF shipment that carry their lines as bytes (OutboundBatch.leefLines) are written
 * as bytes (BatchEncoder): the same frames, without a string per event.
 */
export function createSyslogDriver(
  destination: SyslogDestination,
  deps: SiemDeps,
  options: SyslogDriverOptions = {},
): SiemClient {
  const retry: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const timeouts: SyslogTimeouts = { ...DEFAULT_SYSLOG_TIMEOUTS, ...options.timeouts };
  const limits: ConfirmLimits = { ...DEFAULT_CONFIRM_LIMITS, ...options.confirm };
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const warnMessageBytes = options.warnMessageBytes ?? DEFAULT_WARN_MESSAGE_BYTES;
  const wait = options.wait ?? realWait;
  const random = options.random ?? Math.random;
  const siem = destination.name;
  const endpoint = syslogEndpointLabel(destination);
  // This driver sends no credential; the SIEM Q token is scrubbed in case a message ever quotes it.
  const secrets = destination.siem_q?.token ? [destination.siem_q.token] : [];
  const describe = (cause: string) => scrubSecrets(siemMessage(siem, endpoint, cause), secrets);
  const connect = (signal: AbortSignal) => openSyslogConnection(destination, timeouts, signal);
  if (destination.tls && !destination.tls_verify) {
    deps.log.warn({ siem }, 'TLS certificate verification is off for this SIEM (tls_verify=false).');
  }

  return {
    destination,

    async send(batches, shipOptions: SendOptions = {}): Promise<ShipResult> {
      const ledger = new ShipLedger(shipOptions.onProgress);
      const signal = shipOptions.signal ?? new AbortController().signal;
      const encoder = new BatchEncoder(
        {
          header: shipmentHeaderSettings(destination, shipOptions.identity),
          framing: destination.framing,
          maxMessageBytes,
          now: shipOptions.now ?? deps.clock.now(),
        },
        warnMessageBytes,
      );
      const window = new DeliveryWindow({
        ledger,
        signal,
        policy: retry,
        wait,
        random,
        limits,
        connect,
        describe,
        onRetry: (attempt, cause, delayMs) =>
          deps.log.warn({ siem, endpoint, attempt, delayMs, cause }, 'Syslog connection failed; retrying.'),
      });
      // Refusals are shared objects: describe each once, not once per event.
      const refusals = new Map<EncodeRefusal, Failure>();
      const builder = new ChunkBuilder(chunkBytes);
      const halted = () => ledger.stopped?.message ?? (signal.aborted ? describe('cancelled') : undefined);
      const sink: BatchSink = {
        refuse(refusal: EncodeRefusal, events: number) {
          let why = refusals.get(refusal);
          if (why === undefined) {
            why = failure('rejected', describe(refusal.error));
            refusals.set(refusal, why);
          }
          ledger.fail(events, why);
        },
        async flush() {
          await window.push(builder.take());
          return halted();
        },
        stop(events: number) {
          ledger.fail(events, ledger.stopped ?? failure('cancelled', describe('cancelled')));
        },
      };

      try {
        for await (const batch of batches) {
          if (signal.aborted) {
            ledger.fail(batch.length, failure('cancelled', describe('cancelled')));
            break;
          }
          if (ledger.stopped !== undefined) {
            ledger.fail(batch.length, ledger.stopped);
            continue;
          }
          await encoder.encode(batch as OutboundBatch, builder, sink);
          // A slow source must not leave events waiting here for the next batch.
          if (builder.events > 0) await window.push(builder.take());
        }
      } catch (err) {
        // The input itself failed (a programming error upstream): settle what is out, then rethrow.
        ledger.fail(builder.events, failure('internal', describe('not sent: the event source failed')));
        await window.finish();
        throw err;
      }
      await window.finish();

      if (encoder.longFrames > 0) {
        deps.log.warn(
          { siem, endpoint, long_messages: encoder.longFrames, limit_bytes: warnMessageBytes },
          `${encoder.longFrames} syslog messages were longer than ${warnMessageBytes} bytes; a receiver that truncates long messages cuts off their end, where labIndex= stands`,
        );
      }
      return logShipResult(deps.log, siem, ledger.result());
    },

    async check(signal = new AbortController().signal): Promise<CheckStep[]> {
      const steps = await checkSyslog(destination, connect, signal);
      return steps.map((step) => ({ ...step, message: scrubSecrets(step.message, secrets) }));
    },

    /** Shipments open and close their own connections; there is nothing held between them. */
    async close(): Promise<void> {},
  };
}
