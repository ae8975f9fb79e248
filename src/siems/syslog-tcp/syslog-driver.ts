import { createHash } from 'node:crypto';
import type { FramePiece } from '../../pipeline/frames/frame-format.ts';
import type { LogSourceAdmin } from '../log-source-admin.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, realWait, type Wait } from '../shared/backoff.ts';
import { logShipResult } from '../shared/log-ship-result.ts';
import { type SecretScrubber, secretScrubber, secretValues } from '../shared/secret-scrubber.ts';
import { ShipLedger } from '../shared/ship-ledger.ts';
import { siemMessage } from '../shared/siem-message.ts';
import type { CheckStep, FrameSiemClient, SendOptions, ShipResult, SiemDeps } from '../siem-client.ts';
import { type Failure, failure } from '../siem-failure.ts';
import { type ConfirmLimits, DEFAULT_CONFIRM_LIMITS, DeliveryWindow } from './delivery-window.ts';
import { createSiemQAdmin } from './siem-q/siem-q-admin.ts';
import { type ConsoleOptions, SiemQConsole } from './siem-q/siem-q-console.ts';
import { SiemQSetupCache } from './siem-q/siem-q-setup-cache.ts';
import { checkSyslog } from './syslog-check.ts';
import {
  DEFAULT_SYSLOG_TIMEOUTS,
  openSyslogConnection,
  type SyslogTimeouts,
  syslogEndpointLabel,
} from './syslog-connection.ts';
import { DEFAULT_WARN_MESSAGE_BYTES } from './syslog-frame-format.ts';
import { type SyslogDestination, SyslogTcpSettings } from './syslog-tcp-settings.ts';

/** Tuning of the syslog client; every field has a default, tests and benchmarks override a few. */
export interface SyslogDriverOptions {
  readonly retry?: Partial<RetryPolicy>;
  readonly timeouts?: Partial<SyslogTimeouts>;
  /** When a connection is closed to confirm what it carried (see DeliveryWindow). */
  readonly confirm?: Partial<ConfirmLimits>;
  /** The long-message threshold the frames were counted against (SyslogFrameOptions), for the warning. */
  readonly warnMessageBytes?: number;
  /** Replaces the backoff timer (tests step through retries without real waiting). */
  readonly wait?: Wait;
  /** Jitter source in [0, 1). */
  readonly random?: () => number;
  /** SIEM Q console: its timeouts and retries (tests shorten them). */
  readonly console?: Pick<ConsoleOptions, 'timeouts' | 'retry'>;
  /** Resolved console ids, shared by the clients of one kind instance. */
  readonly setupCache?: SiemQSetupCache;
}

/**
 * The `syslog_tcp` client: syslog frames over TCP or TLS, one frame per event (LF or octet-counted
 * framing, headers per the shipment's header mode). Delivery is at-least-once:
 * events count as shipped once a graceful close confirmed the connection that carried them, a
 * dropped connection's unconfirmed events are written again (counted in `retried`), and what could
 * not be delivered within the retry budget is counted failed (docs/syslog-delivery.md).
 *
 * It takes ready frames (the kind's intake is `frames`): the shipping path writes them in the
 * pipeline (pipeline/frames), most straight from the archive's bytes; this client only delivers.
 */
export function createSyslogDriver(
  destination: SyslogDestination,
  deps: SiemDeps,
  options: SyslogDriverOptions = {},
): FrameSiemClient {
  const retry: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const timeouts: SyslogTimeouts = { ...DEFAULT_SYSLOG_TIMEOUTS, ...options.timeouts };
  const limits: ConfirmLimits = { ...DEFAULT_CONFIRM_LIMITS, ...options.confirm };
  const warnMessageBytes = options.warnMessageBytes ?? DEFAULT_WARN_MESSAGE_BYTES;
  const wait = options.wait ?? realWait;
  const random = options.random ?? Math.random;
  const siem = destination.name;
  const endpoint = syslogEndpointLabel(destination);
  // This driver sends no credential; its secrets (the SIEM Q token) are scrubbed in case a message
  // ever quotes one.
  const scrubber = secretScrubber({ secrets: secretValues(SyslogTcpSettings, destination) });
  const describe = (cause: string) => scrubber.text(siemMessage(siem, endpoint, cause));
  const connect = (signal: AbortSignal) => openSyslogConnection(destination, timeouts, signal);
  if (destination.tls && !destination.tls_verify) {
    deps.log.warn({ siem }, 'TLS certificate verification is off for this SIEM (tls_verify=false).');
  }
  const siemQ = siemQConsole(destination, deps, options, scrubber);

  return {
    intake: 'frames',
    destination,

    async send(frames: AsyncIterable<FramePiece>, shipOptions: SendOptions = {}): Promise<ShipResult> {
      const ledger = new ShipLedger(shipOptions.onProgress);
      const signal = shipOptions.signal ?? new AbortController().signal;
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
      // The pipeline names each refusal once per chunk: describe each reason once.
      const refusals = new Map<string, Failure>();
      let longFrames = 0;
      try {
        for await (const piece of frames) {
          if (signal.aborted) {
            ledger.fail(piece.events, failure('cancelled', describe('cancelled')));
            break;
          }
          if (piece.kind === 'refused') {
            let why = refusals.get(piece.reason);
            if (why === undefined) {
              why = failure('rejected', describe(piece.reason));
              refusals.set(piece.reason, why);
            }
            ledger.fail(piece.events, why);
            continue;
          }
          // After a stop the rest is still read and counted failed, so the totals add up.
          if (ledger.stopped !== undefined) {
            ledger.fail(piece.events, ledger.stopped);
            continue;
          }
          longFrames += piece.longFrames;
          await window.push({ data: piece.data, events: piece.events, sent: false });
        }
      } catch (err) {
        // The input itself failed (a programming error upstream): settle what is out, then rethrow.
        await window.finish();
        throw err;
      }
      await window.finish();

      if (longFrames > 0) {
        deps.log.warn(
          { siem, endpoint, long_messages: longFrames, limit_bytes: warnMessageBytes },
          `${longFrames} syslog messages were longer than ${warnMessageBytes} bytes; a receiver that truncates long messages cuts off their end, where labIndex= stands`,
        );
      }
      return logShipResult(deps.log, siem, ledger.result());
    },

    ...(siemQ !== undefined ? { logSources: siemQ.admin } : {}),

    async check(signal = new AbortController().signal): Promise<CheckStep[]> {
      const steps = await checkSyslog(destination, connect, signal);
      if (siemQ !== undefined) steps.push(...(await siemQ.admin.check(signal)));
      return steps.map((step) => ({ ...step, message: scrubber.text(step.message) }));
    },

    /** Shipments open and close their own connections; only the console's pool is held. */
    async close(): Promise<void> {
      await siemQ?.api.close();
    },
  };
}

/** The console client of a destination with SIEM Q settings (and a token), else undefined. */
function siemQConsole(
  destination: SyslogDestination,
  deps: SiemDeps,
  options: SyslogDriverOptions,
  scrubber: SecretScrubber,
): { api: SiemQConsole; admin: LogSourceAdmin } | undefined {
  const settings = destination.siem_q;
  if (settings === null || settings === undefined || !settings.token) return undefined;
  if (!settings.tls_verify && settings.console_url.startsWith('https:')) {
    deps.log.warn(
      { siem: destination.name },
      'TLS certificate verification is off for this SIEM Q console (siem_q.tls_verify=false).',
    );
  }
  const api = new SiemQConsole(settings, destination.name, scrubber, {
    ...options.console,
    wait: options.wait ?? realWait,
    ...(options.random !== undefined ? { random: options.random } : {}),
    now: () => deps.clock.now(),
  });
  // Any change of the console settings (token included) is a new revision; hashed, never kept raw.
  const revision = createHash('sha256')
    .update(`${destination.id}\u0000${JSON.stringify(settings)}`)
    .digest('hex')
    .slice(0, 24);
  const admin = createSiemQAdmin(
    {
      siem: destination.name,
      revision,
      settings,
      provision: destination.provision_log_source,
      offenseCleanup: destination.offense_cleanup,
    },
    api,
    options.setupCache ?? new SiemQSetupCache(() => deps.clock.now()),
  );
  return { api, admin };
}
