import type { ArchiveEntry } from '../archive/archive-entry.ts';
import { entryLineNumber, lineText, splitByteLines } from '../archive/byte-lines.ts';
import type { LineBatch } from '../archive/split-lines.ts';
import { isAsciiLine } from '../leef/leef-line-reader.ts';
import type { OutboundEvent } from '../shipment/outbound-event.ts';
import { EcsPatches, ecsByteDocument } from './ecs-byte-document.ts';
import type { EcsDocument } from './ecs-fields.ts';
import {
  type EcsRecord,
  invalidDocument,
  parseEcsRecord,
  shiftEcsRecord,
  shiftedEcsRecordTime,
} from './ecs-record.ts';
import type { EcsTimeScratch } from './ecs-time.ts';
import { EcsByteScanner } from './scan-ecs-bytes.ts';
import { locateEcsTimes, scanEcsJson, type TimeSpan } from './scan-ecs-json.ts';
import { DEFAULT_SPAN_MEMO_SLOTS, type SpanBudget, SpanMemo } from './span-memo.ts';
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

  constructor(memoSlots = DEFAULT_SPAN_MEMO_SLOTS) {
    this.#budget = { slots: memoSlots };
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
