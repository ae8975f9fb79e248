import type { ArchiveEntry } from '../archive/archive-entry.ts';
import {
  type ByteLineBatch,
  type ByteLines,
  entryLineNumber,
  lineText,
  splitByteLines,
} from '../archive/byte-lines.ts';
import type { LineBatch } from '../archive/split-lines.ts';
import { isAsciiLine } from '../leef/leef-line-reader.ts';
import type { OutboundEvent } from '../shipment/outbound-event.ts';
import { EcsPatches, ecsByteDocument } from './ecs-byte-document.ts';
import type { EcsDocument } from './ecs-fields.ts';
import {
  type EcsRecord,
  ecsRecordTime,
  invalidDocument,
  parseEcsRecord,
  shiftEcsRecord,
  shiftedEcsRecordTime,
} from './ecs-record.ts';
import type { EcsScanPool } from './ecs-scan-pool.ts';
import type { EcsTimeScratch } from './ecs-time.ts';
import { EcsByteScanner } from './scan-ecs-bytes.ts';
import { locateEcsTimes, scanEcsJson, type TimeSpan } from './scan-ecs-json.ts';
import { type EcsLinesScan, scanEcsLines } from './scan-ecs-lines.ts';
import { DEFAULT_SPAN_MEMO_SLOTS, type SpanBudget, SpanMemo, UNCERTAIN_DOCUMENT } from './span-memo.ts';
import { JsonDocumentSplitter } from './split-json-documents.ts';

/**
 * The documents of an ECS entry, validated, in order and in batches (one per inflated chunk, so a
 * hot loop awaits once per batch rather than once per event). A `.json` entry holds one object, an
 * array of objects or objects one after another; any other entry (`.ndjson`) holds one object per
 * line, blank lines ignored. A line or document that is not a JSON object is `archive_invalid`
 * naming the entry and line. Records carry their text and time positions: no parse is needed to
 * rebase them.
 */
export async function* readEcsRecordBatches(entry: ArchiveEntry): AsyncGenerator<EcsRecord[]> {
  for await (const { texts, numbers } of documentTexts(entry)) {
    const records = new Array<EcsRecord>(texts.length);
    for (let k = 0; k < texts.length; k++) {
      const text = texts[k]!;
      const scan = scanEcsJson(text);
      if (!scan.ok) throw invalidDocument(entry.path, numbers[k]!, scan.error);
      records[k] = { entry: entry.path, line: numbers[k]!, text, times: scan.spans };
    }
    yield records;
  }
}

/** The documents of an ECS entry one by one (see readEcsRecordBatches). */
export async function* readEcsRecords(entry: ArchiveEntry): AsyncGenerator<EcsRecord> {
  for await (const batch of readEcsRecordBatches(entry)) yield* batch;
}

/** The documents of an ECS entry as objects (see readEcsRecordBatches); for conversion and inspection. */
export async function* readEcsDocuments(entry: ArchiveEntry): AsyncGenerator<EcsDocument> {
  for await (const batch of readEcsRecordBatches(entry))
    for (const record of batch) yield parseEcsRecord(record);
}

/**
 * Reads the ECS entries of one archive twice, as a rebase does: the first pass validates every
 * document (for the latest event time), the second yields the same records for shifting. The
 * second pass neither validates (the archive bytes are immutable and were validated) nor locates
 * time fields again: the first pass remembers where they are (see SpanMemo), within a memory
 * budget past which they are located again. Use one reader per archive.
 */
export class EcsTwoPassReader {
  readonly #memos = new Map<string, SpanMemo>();
  readonly #budget: SpanBudget;
  readonly #pool: EcsScanPool | null;

  /** `pool`: a scan worker for timesPass to share lines with (see EcsScanPool); none scans alone. */
  constructor(memoSlots = DEFAULT_SPAN_MEMO_SLOTS, pool: EcsScanPool | null = null) {
    this.#budget = { slots: memoSlots };
    this.#pool = pool;
  }

  /**
   * First pass over an entry as a shipment runs it: every document validated and its time spans
   * remembered exactly as firstPass does (same errors, same memo), but only what the shift needs
   * comes out, a batch per inflated chunk: documents, the newest `@timestamp` and how many have
   * none readable. ASCII NDJSON lines are scanned as bytes and never become strings; with a scan
   * worker, the second half of a chunk's lines is scanned there while this thread scans the first.
   * `scratch`: the pass's.
   */
  async *timesPass(entry: ArchiveEntry, scratch: EcsTimeScratch): AsyncGenerator<EcsPassTimes> {
    const path = entry.path;
    if (isJsonEntry(path)) {
      for await (const records of this.firstPass(entry)) {
        const times = { documents: records.length, latest: null as number | null, unreadable: 0 };
        for (const record of records) addTime(times, ecsRecordTime(record, scratch));
        yield times;
      }
      return;
    }
    const memo = new SpanMemo(this.#budget);
    const scanner = new EcsByteScanner();
    const pool = this.#pool;
    // A batch is merged into the memo only once the next one's own lines are scanned: the worker
    // scans its share of a chunk while this thread splits and scans the next, and neither waits.
    let previous: PendingBatch | null = null;
    const batches = splitByteLines(entry.bytes(), path, entry.maxLineLength);
    try {
      for (;;) {
        let next: IteratorResult<ByteLineBatch>;
        try {
          next = await batches.next();
        } catch (err) {
          // Reading on failed (a line too long, a bad CRC…): an error in the batch before it comes
          // first, as it does in a single-threaded pass.
          if (previous !== null) await mergeBatch(previous, memo, path, scanner, scratch);
          throw err;
        }
        if (next.done) break;
        const batch = next.value;
        const pieces: Piece[] = [];
        for (const lines of batch.segments) {
          const count = lines.starts.length;
          if (!lines.ascii) {
            pieces.push({ lines, from: 0, scan: null });
            continue;
          }
          // Worth a worker only for a chunk's worth of lines: a job costs a copy and two messages.
          const own = pool !== null && count >= MIN_SHARED_LINES && pool.available() ? count >> 1 : count;
          const shared = own < count ? pool!.scan(lines.buf, lines.starts, lines.ends, own, count) : null;
          // Rejections are handled when merged; until then this keeps them from being unhandled.
          shared?.catch(() => {});
          pieces.push({
            lines,
            from: 0,
            scan: scanEcsLines(lines.buf, lines.starts, lines.ends, 0, own, scanner, scratch),
          });
          if (shared !== null) pieces.push({ lines, from: own, scan: shared, to: count });
        }
        if (previous !== null) yield await mergeBatch(previous, memo, path, scanner, scratch);
        previous = { batch, pieces };
      }
      if (previous !== null) yield await mergeBatch(previous, memo, path, scanner, scratch);
      this.#memos.set(path, memo);
    } finally {
      // A consumer that stops early (an abort between batches) stops the reading too.
      await batches.return(undefined);
    }
  }

  /**
   * First pass over an entry: validated records (see readEcsRecordBatches). NDJSON lines are
   * validated from their bytes where they are ASCII (EcsByteScanner), the rest from their text.
   * Records of NDJSON lines carry line 0: their number is only worked out for an error.
   */
  async *firstPass(entry: ArchiveEntry): AsyncGenerator<EcsRecord[]> {
    const path = entry.path;
    const memo = new SpanMemo(this.#budget);
    if (isJsonEntry(path)) {
      for await (const { texts, numbers } of documentTexts(entry)) {
        const records = new Array<EcsRecord>(texts.length);
        for (let k = 0; k < texts.length; k++) {
          const text = texts[k]!;
          const scan = scanEcsJson(text);
          if (!scan.ok) throw invalidDocument(path, numbers[k]!, scan.error);
          memo.add(scan.spans);
          records[k] = { entry: path, line: numbers[k]!, text, times: scan.spans };
        }
        yield records;
      }
    } else {
      const scanner = new EcsByteScanner();
      for await (const batch of splitByteLines(entry.bytes(), path, entry.maxLineLength)) {
        const records = new Array<EcsRecord>(batch.count);
        let n = 0;
        for (const lines of batch.segments) {
          const { buf, starts, ends, ascii } = lines;
          for (let k = 0; k < starts.length; k++) {
            const text = lineText(lines, k);
            let times = ascii ? scanner.scan(buf, starts[k]!, ends[k]!) : null;
            if (times === null) {
              const scan = scanEcsJson(text);
              if (!scan.ok) throw invalidDocument(path, entryLineNumber(batch, lines, k), scan.error);
              times = scan.spans;
            }
            memo.add(times);
            records[n++] = { entry: path, line: 0, text, times };
          }
        }
        yield records;
      }
    }
    this.#memos.set(path, memo);
  }

  /**
   * The time spans of an entry's documents in order, for a second pass that reads the documents
   * itself (see shiftedEcsEvents): each `next()` gives the next document's, or null past what the
   * first pass remembered (the caller locates them in the text).
   */
  spans(path: string): { next(): TimeSpan[] | null } {
    const memo = this.#memos.get(path);
    if (memo === undefined)
      throw new Error(`second pass over ${JSON.stringify(path)} before a complete first pass`);
    memo.rewind();
    let index = 0;
    return { next: () => (index++ < memo.documents ? memo.next() : null) };
  }

  /** Second pass over an entry whose first pass this reader completed. */
  async *secondPass(entry: ArchiveEntry): AsyncGenerator<EcsRecord[]> {
    const path = entry.path;
    const memo = this.#memos.get(path);
    if (memo === undefined)
      throw new Error(`second pass over ${JSON.stringify(path)} before a complete first pass`);
    memo.rewind();
    let index = 0;
    for await (const { texts, numbers } of documentTexts(entry)) {
      const records = new Array<EcsRecord>(texts.length);
      for (let k = 0; k < texts.length; k++) {
        const text = texts[k]!;
        const times = index < memo.documents ? memo.next() : locateEcsTimes(text);
        index++;
        records[k] = { entry: path, line: numbers[k]!, text, times };
      }
      yield records;
    }
  }
}

/** What timesPass found in one batch: documents, the newest event time, those without one. */
export interface EcsPassTimes {
  documents: number;
  /** Newest `@timestamp` (epoch ms) of the batch; null when none is readable. */
  latest: number | null;
  /** Documents without a readable `@timestamp`. */
  unreadable: number;
}

/** Lines a chunk needs before half of them go to the scan worker (about 40 KiB of documents). */
const MIN_SHARED_LINES = 64;

/** Validates line `k` of `lines` as text (scanEcsJson: it words the error) and adds what it found. */
function scanLineText(
  lines: ByteLines,
  k: number,
  batch: ByteLineBatch,
  memo: SpanMemo,
  times: EcsPassTimes,
  path: string,
  scratch: EcsTimeScratch,
): void {
  const text = lineText(lines, k);
  const scan = scanEcsJson(text);
  if (!scan.ok) throw invalidDocument(path, entryLineNumber(batch, lines, k), scan.error);
  memo.add(scan.spans);
  addTime(times, ecsRecordTime({ entry: path, line: 0, text, times: scan.spans }, scratch));
}

/** One segment's lines from `from` on: scanned here, on the worker (a promise), or as text (null). */
interface Piece {
  readonly lines: ByteLines;
  readonly from: number;
  readonly scan: EcsLinesScan | Promise<EcsLinesScan> | null;
  /** For a worker's scan: the line after its last (to scan here when the worker fails). */
  readonly to?: number;
}

/** A batch whose lines are scanned, or being scanned, but not yet merged into the memo. */
interface PendingBatch {
  readonly batch: ByteLineBatch;
  readonly pieces: readonly Piece[];
}

/**
 * Merges a batch's pieces into the memo in line order (uncertain and non-ASCII lines scanned as
 * text, which words the error) and returns what the batch found. A worker's scan that failed is
 * done here instead.
 */
async function mergeBatch(
  { batch, pieces }: PendingBatch,
  memo: SpanMemo,
  path: string,
  scanner: EcsByteScanner,
  scratch: EcsTimeScratch,
): Promise<EcsPassTimes> {
  const times: EcsPassTimes = { documents: batch.count, latest: null, unreadable: 0 };
  for (const { lines, from, scan, to } of pieces) {
    if (scan === null) {
      for (let k = from; k < lines.starts.length; k++)
        scanLineText(lines, k, batch, memo, times, path, scratch);
      continue;
    }
    let done: EcsLinesScan;
    if (scan instanceof Promise) {
      try {
        done = await scan;
      } catch {
        done = scanEcsLines(lines.buf, lines.starts, lines.ends, from, to!, scanner, scratch);
      }
    } else done = scan;
    const { packed } = done;
    let at = 0;
    for (let k = from; k < from + done.lines; k++) {
      if (packed[at] !== UNCERTAIN_DOCUMENT) {
        at = memo.addPacked(packed, at);
        continue;
      }
      at++;
      scanLineText(lines, k, batch, memo, times, path, scratch);
    }
    if (done.latest !== null && (times.latest === null || done.latest > times.latest))
      times.latest = done.latest;
    times.unreadable += done.unreadable;
  }
  return times;
}

function addTime(times: EcsPassTimes, time: number | null): void {
  if (time === null) times.unreadable++;
  else if (times.latest === null || time > times.latest) times.latest = time;
}

/**
 * Second pass over an entry as the events to ship: every document with its time values moved by
 * `shiftMs` (see shiftEcsRecord) and its event time after the move, in order, a batch per
 * inflated chunk. NDJSON lines are split as bytes and an ASCII line (nearly all) is shipped from
 * its bytes (EcsByteDocument); other lines and `.json` documents as shifted text. `scratch`: the
 * pass's own.
 */
export async function* shiftedEcsEvents(
  reader: EcsTwoPassReader,
  entry: ArchiveEntry,
  shiftMs: number,
  scratch: EcsTimeScratch,
): AsyncGenerator<OutboundEvent[]> {
  if (isJsonEntry(entry.path)) {
    for await (const batch of reader.secondPass(entry)) {
      const out = new Array<OutboundEvent>(batch.length);
      for (let k = 0; k < batch.length; k++) out[k] = shiftedText(batch[k]!, shiftMs, scratch);
      yield out;
    }
    return;
  }
  const spans = reader.spans(entry.path);
  for await (const batch of splitByteLines(entry.bytes(), entry.path, entry.maxLineLength)) {
    const out = new Array<OutboundEvent>(batch.count);
    const patches = new EcsPatches(batch.count);
    let n = 0;
    for (const lines of batch.segments) {
      const { buf, starts, ends } = lines;
      for (let k = 0; k < starts.length; k++) {
        const times = spans.next();
        if (times !== null && isAsciiLine(lines, k)) {
          out[n++] = ecsByteDocument(buf, starts[k]!, ends[k]!, times, shiftMs, scratch, patches);
        } else {
          const text = lineText(lines, k);
          const record = { entry: entry.path, line: 0, text, times: times ?? locateEcsTimes(text) };
          out[n++] = shiftedText(record, shiftMs, scratch);
        }
      }
    }
    yield out;
  }
}

function shiftedText(record: EcsRecord, shiftMs: number, scratch: EcsTimeScratch): OutboundEvent {
  return {
    json: shiftEcsRecord(record, shiftMs, scratch),
    // The time the written @timestamp denotes (a value without milliseconds moves by whole units).
    time: shiftedEcsRecordTime(record, shiftMs, scratch),
  };
}

function isJsonEntry(path: string): boolean {
  return /\.json$/i.test(path);
}

/** Document texts of an entry with their lines: NDJSON lines, or the documents of a `.json`. */
async function* documentTexts(entry: ArchiveEntry): AsyncGenerator<LineBatch> {
  if (!isJsonEntry(entry.path)) {
    yield* entry.lineBatches();
    return;
  }
  const splitter = new JsonDocumentSplitter(entry.path, entry.maxLineLength);
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of entry.bytes()) {
    const batch = splitter.push(decoder.decode(chunk, { stream: true }));
    if (batch.texts.length > 0) yield batch;
  }
  const last = splitter.push(decoder.decode());
  splitter.end();
  if (last.texts.length > 0) yield last;
}
