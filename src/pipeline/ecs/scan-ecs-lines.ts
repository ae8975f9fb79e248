import { ecsTokenTime } from './ecs-record.ts';
import { EcsTimeScratch } from './ecs-time.ts';
import { EcsByteScanner } from './scan-ecs-bytes.ts';
import { packSpans, UNCERTAIN_DOCUMENT } from './span-memo.ts';

/**
 * What pass 1 found in a run of ASCII NDJSON lines, as plain data (it crosses to and from the scan
 * worker, see EcsScanPool): per line its time spans packed as SpanMemo stores them, or
 * UNCERTAIN_DOCUMENT for a line the byte scanner leaves to the text scanner (which words the error
 * when it is not a JSON object); the newest `@timestamp` of the certain lines and how many of them
 * have none that is readable.
 */
export interface EcsLinesScan {
  /** `packed[0, length)`: per line a span count (or UNCERTAIN_DOCUMENT), then two slots per span. */
  readonly packed: Int32Array;
  readonly length: number;
  /** Lines scanned. */
  readonly lines: number;
  /** Newest event time (epoch ms) among the certain lines; null when none has one. */
  readonly latest: number | null;
  /** Certain lines without a readable `@timestamp`. */
  readonly unreadable: number;
}

/**
 * Scans lines `[from, to)` of `buf` (line k is `buf[starts[k], ends[k])`, all ASCII) with
 * EcsByteScanner and reads each one's event time (its last `@timestamp`, as ecsRecordTime does)
 * from the value's bytes: no line becomes a string. Pure and self-contained, so the scan worker
 * runs the same code as the main thread.
 */
export function scanEcsLines(
  buf: Uint8Array,
  starts: Int32Array,
  ends: Int32Array,
  from: number,
  to: number,
  scanner: EcsByteScanner = new EcsByteScanner(),
  scratch: EcsTimeScratch = new EcsTimeScratch(),
): EcsLinesScan {
  const bytes = Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  // A span count and two slots per span; most documents have two to four time values.
  let packed = new Int32Array(Math.max(16, (to - from) * 8));
  let length = 0;
  let latest: number | null = null;
  let unreadable = 0;
  for (let k = from; k < to; k++) {
    const start = starts[k]!;
    const spans = scanner.scan(bytes, start, ends[k]!);
    if (length + 1 + 2 * (spans?.length ?? 0) > packed.length) {
      const grown = new Int32Array(packed.length * 2 + 2 * (spans?.length ?? 0));
      grown.set(packed.subarray(0, length));
      packed = grown;
    }
    const at = spans === null ? -1 : packSpans(spans, packed, length);
    if (at < 0) {
      packed[length++] = UNCERTAIN_DOCUMENT;
      continue;
    }
    length = at;
    let time: number | null = null;
    for (let s = spans!.length - 1; s >= 0; s--) {
      const span = spans![s]!;
      if (span.field !== '@timestamp') continue;
      const token = bytes.toString('latin1', start + span.start, start + span.end);
      time = ecsTokenTime(token, 0, token.length, scratch);
      break;
    }
    if (time === null) unreadable++;
    else if (latest === null || time > latest) latest = time;
  }
  return { packed, length, lines: to - from, latest, unreadable };
}
