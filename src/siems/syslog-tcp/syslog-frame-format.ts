import type { FrameFormat } from '../../pipeline/frames/frame-format.ts';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../../pipeline/frames/syslog-encode.ts';
import type { HeaderModeSettings } from '../../pipeline/syslog/header-mode.ts';
import type { SyslogDestination } from './syslog-tcp-settings.ts';

/** How syslog_tcp gathers and bounds frames; every field has a default, tests and benchmarks override a few. */
export interface SyslogFrameOptions {
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
}

/** About 128 KiB per write: few system calls, little memory per write. */
const DEFAULT_CHUNK_BYTES = 128 * 1024;
/** Messages above this are warned about (protocols-qradar-leef-syslog.md 3.8 suggests 4096). */
export const DEFAULT_WARN_MESSAGE_BYTES = 4096;

/** The frames of a shipment to `destination`, with the shipment's source identity when it has one. */
export function syslogFrameFormat(
  destination: SyslogDestination,
  identity: string | undefined,
  options: SyslogFrameOptions = {},
): FrameFormat {
  return {
    header: shipmentHeaderSettings(destination, identity),
    framing: destination.framing,
    maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    chunkBytes: options.chunkBytes ?? DEFAULT_CHUNK_BYTES,
    longFrameBytes: options.warnMessageBytes ?? DEFAULT_WARN_MESSAGE_BYTES,
  };
}

/**
 * Header handling of one shipment. A source identity (a session start's syslogSourceIdentity, an
 * exercise section's log source) forces synthesized headers with that HOSTNAME, so the events land
 * on the log source provisioned for it; otherwise the destination's header mode and identity.
 *
 * No fallback identity (such as this machine's hostname) is invented: QRadar routes an event to
 * the log source whose identifier equals the header HOSTNAME, so a made-up name would silently
 * file the exercise under an unknown source. Events that need a header then fail with the reason.
 */
export function shipmentHeaderSettings(
  destination: Pick<
    SyslogDestination,
    'header_mode' | 'syslog_format' | 'source_identity' | 'facility' | 'severity'
  >,
  sourceIdentity?: string,
): HeaderModeSettings {
  const identity = sourceIdentity ? sourceIdentity : undefined;
  return {
    mode: identity !== undefined ? 'force_synthesize' : destination.header_mode,
    format: destination.syslog_format,
    sourceIdentity: identity ?? destination.source_identity,
    facility: destination.facility,
    severity: destination.severity,
  };
}
