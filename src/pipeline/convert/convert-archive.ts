import { AppError } from '../../errors.ts';
import { type ArchiveLimits, resolveArchiveLimits } from '../archive/archive-limits.ts';
import type { ArchiveKind } from '../archive/open-archive.ts';
import { parseEcsRecord } from '../ecs/ecs-record.ts';
import { prepareShipment } from '../shipment/prepare-shipment.ts';
import { shipmentEvents } from '../shipment/shipment-events.ts';
import { ShipmentScratch } from '../shipment/shipment-scratch.ts';
import { ecsToLeef, type LeefDefaults } from './ecs-to-leef.ts';

/** An archive converted to the other format: one plain-text entry. */
export interface ConvertedArchive {
  readonly data: Buffer;
  /** `<base>.converted.ndjson` (ECS) or `<base>.converted.log` (LEEF). */
  readonly filename: string;
  readonly events: number;
}

/**
 * LEEF header values of lines made from ECS documents that do not carry them (`observer.*`,
 * `event.code` / `event.action` win when present).
 */
export const CONVERTED_LEEF_DEFAULTS: LeefDefaults = Object.freeze({
  vendor: 'Socdrill',
  product: 'Converted',
  productVersion: '1',
  eventId: 'event',
});

/**
 * Converts an archive to the other format as a plain-text archive: LEEF lines to ECS NDJSON (one
 * document per line, as shipping to an ECS destination makes them), or ECS documents to LEEF lines
 * (docs/leef-ecs-mapping.md). Event times are kept as they are: the archive is read as a shipment
 * would read it, but with a shift of 0, so an attempt later rebases the converted archive as it
 * would the original. Pure: nothing is read or written besides `data`.
 *
 * Throws what reading the archive throws (`archive_invalid`, `no_events`, `payload_too_large`),
 * and `payload_too_large` when the converted text would be larger than one entry may be
 * (`limits.maxEntryBytes`), since the result is itself read as an archive of one entry.
 */
export async function convertArchive(
  data: Buffer,
  kind: ArchiveKind,
  filename: string,
  from: 'leef' | 'ecs',
  options: { limits: Partial<ArchiveLimits>; now: number },
): Promise<ConvertedArchive> {
  const maxBytes = resolveArchiveLimits(options.limits).maxEntryBytes;
  const outName = `${baseName(filename)}.converted.${from === 'leef' ? 'ndjson' : 'log'}`;
  const prepared = await prepareShipment([{ data, kind, label: filename }], {
    format: from,
    now: options.now,
    limits: options.limits,
  });
  const unshifted = { ...prepared, shiftMs: 0, shiftDays: 0 };
  const out = new TextOutput(maxBytes, outName);
  if (from === 'leef') {
    for await (const batch of shipmentEvents(unshifted, 0, { kind: 'ecs' }, new ShipmentScratch())) {
      for (const event of batch) out.line(jsonLine(event.json ?? JSON.stringify(event.doc ?? {})));
    }
  } else {
    const archive = unshifted.archives[0];
    const reader = unshifted.ecsReaders[0];
    if (!archive || !reader) throw new Error('the prepared shipment has no source');
    for await (const entry of archive.entries()) {
      for await (const batch of reader.secondPass(entry)) {
        for (const record of batch) out.line(ecsToLeef(parseEcsRecord(record), CONVERTED_LEEF_DEFAULTS));
      }
    }
  }
  return { data: out.finish(), filename: outName, events: out.lines };
}

/**
 * A document's JSON text that format detection cannot take for a LEEF line: a LEEF line kept in
 * `event.original` behind its syslog header (`… host LEEF:2.0|…`) would look like one, so the space
 * before `LEEF:` is written as `\u0020`, which is the same JSON. Outside strings JSON has no
 * `LEEF:`, so only string content changes, and only in its spelling.
 */
export function jsonLine(text: string): string {
  return text.includes(' LEEF:') ? text.replaceAll(' LEEF:', '\\u0020LEEF:') : text;
}

/** `name` without folders, its container extension (.zip, .tar.gz, .tgz), its format extension and `.converted`. */
export function baseName(name: string): string {
  let base = name.split(/[\\/]/).pop() ?? '';
  base = base.replace(/\.(?:zip|tar\.gz|tgz)$/i, '');
  base = base.replace(/\.(?:log|txt|ndjson|json)$/i, '');
  base = base.replace(/\.converted$/i, '');
  return base === '' || base === '.' || base === '..' ? 'archive' : base;
}

// Lines joined with LF into one buffer, refused as soon as they go over the entry cap.
class TextOutput {
  readonly #chunks: Buffer[] = [];
  readonly #max: number;
  readonly #name: string;
  #pending: string[] = [];
  #pendingBytes = 0;
  #bytes = 0;
  lines = 0;

  constructor(max: number, name: string) {
    this.#max = max;
    this.#name = name;
  }

  line(text: string): void {
    const size = Buffer.byteLength(text, 'utf8') + 1;
    this.#bytes += size;
    if (this.#bytes > this.#max) {
      throw new AppError(
        'payload_too_large',
        `the converted archive ${JSON.stringify(this.#name)} exceeds the limit of ${this.#max} bytes per entry`,
        { details: { entry: this.#name, limit: this.#max } },
      );
    }
    this.#pending.push(text);
    this.#pendingBytes += size;
    this.lines++;
    if (this.#pendingBytes >= 1024 * 1024) this.#flush();
  }

  finish(): Buffer {
    this.#flush();
    return Buffer.concat(this.#chunks, this.#bytes);
  }

  #flush(): void {
    if (this.#pending.length === 0) return;
    this.#chunks.push(Buffer.from(`${this.#pending.join('\n')}\n`, 'utf8'));
    this.#pending = [];
    this.#pendingBytes = 0;
  }
}
