import type { HeaderModeSettings } from '../syslog/header-mode.ts';
import type { Framing } from '../syslog/syslog-options.ts';
import type { RefusalCause } from './syslog-encode.ts';

/**
 * How a shipment's events become syslog frames, as a kind that takes frames declares it
 * (syslog_tcp): header handling, framing, the longest message, and how frames are gathered.
 */
export interface FrameFormat {
  readonly header: HeaderModeSettings;
  readonly framing: Framing;
  /** Longest message (header + LEEF, framing excluded) in UTF-8 bytes; longer ones are refused. */
  readonly maxMessageBytes: number;
  /** Frames are gathered into chunks of about this many bytes (one socket write each). */
  readonly chunkBytes: number;
  /** Frames longer than this are counted in `longFrames` (a receiver may cut them). */
  readonly longFrameBytes: number;
}

/** Frames of several events, ready to write. */
export interface FrameChunk {
  readonly kind: 'frames';
  readonly data: Buffer;
  readonly events: number;
  /** Frames among them longer than FrameFormat.longFrameBytes. */
  readonly longFrames: number;
}

/** Events that could not be framed, with why (counted failed). */
export interface FrameRefusal {
  readonly kind: 'refused';
  readonly events: number;
  readonly cause: RefusalCause;
  /** The message for people. */
  readonly reason: string;
}

/** What a frame pass yields: chunks to write, and refusals. Every event is in exactly one. */
export type FramePiece = FrameChunk | FrameRefusal;
