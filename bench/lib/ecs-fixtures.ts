// The ECS archive of the benchmarks: generated NDJSON documents, deflated entry by entry.
import { crc32, createDeflateRaw } from 'node:zlib';
import { buildZip, type ZipEntrySpec } from '../../test/fixtures/archives/zip-builder.ts';

const START = Date.UTC(2024, 2, 11, 0, 0, 0);

/** One generated ECS document; `i` varies the values and the time notations. */
export function makeDoc(i: number): string {
  const ms = START + i * 211;
  const iso = new Date(ms).toISOString();
  const kind = i % 4;
  const timestamp =
    kind === 0
      ? iso
      : kind === 1
        ? `${iso.slice(0, 23)}417Z`
        : kind === 2
          ? `${isoWithOffset(ms, 120)}`
          : iso;
  const created = kind === 3 ? String(ms + 1500) : `"${new Date(ms + 1500).toISOString()}"`;
  const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  const doc = [
    `"@timestamp":"${timestamp}"`,
    `"event":{"kind":"event","category":["network"],"action":"flow-${i % 17}","created":${created},"severity":${i % 10}}`,
    i % 2 === 0
      ? `"event.ingested":"${new Date(ms + 3000).toISOString()}"`
      : `"event.start":"${new Date(ms - 900).toISOString()}"`,
    `"source":{"ip":"${ip}","port":${1024 + (i % 60000)},"bytes":${(i * 7919) % 100000}}`,
    `"destination":{"ip":"192.0.2.${i % 250}","port":${[443, 80, 53, 22][i % 4]}}`,
    `"network":{"transport":"${['tcp', 'udp'][i % 2]}"}`,
    `"host":{"name":"fw-${i % 12}"}`,
    `"user":{"name":"user${i % 5000}"}`,
    `"observer":{"vendor":"Acme","product":"Firewall"}`,
    `"message":"allowed ${ip} -> 192.0.2.${i % 250}${' policy=default-allow'.repeat(i % 10)}"`,
  ];
  return `{${doc.join(',')}}`;
}

function isoWithOffset(ms: number, minutes: number): string {
  const local = new Date(ms + minutes * 60_000).toISOString().slice(0, 23);
  const sign = minutes < 0 ? '-' : '+';
  const m = Math.abs(minutes);
  return `${local}${sign}${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

/** A deflated zip entry streamed from a generator, so the uncompressed text is never whole. */
export async function deflatedEntry(
  name: string,
  count: number,
  line: (i: number) => string,
  from = 0,
): Promise<ZipEntrySpec> {
  const deflate = createDeflateRaw({ level: 6 });
  const parts: Buffer[] = [];
  deflate.on('data', (c: Buffer) => parts.push(c));
  const done = new Promise((resolve) => deflate.on('end', resolve));
  let crc = 0;
  let size = 0;
  let chunk: string[] = [];
  const flush = async () => {
    const bytes = Buffer.from(`${chunk.join('\n')}\n`);
    chunk = [];
    crc = crc32(bytes, crc);
    size += bytes.length;
    if (!deflate.write(bytes)) await new Promise((r) => deflate.once('drain', r));
  };
  for (let i = from; i < from + count; i++) {
    chunk.push(line(i));
    if (chunk.length === 2000) await flush();
  }
  if (chunk.length > 0) await flush();
  deflate.end();
  await done;
  return { name, payload: Buffer.concat(parts), crc, uncompressedSize: size, method: 8 };
}

/** A zip of `docs` ECS documents (`makeDoc`) in three NDJSON entries, `logs/part-<k>.ndjson`. */
export async function buildEcsArchive(docs: number): Promise<Buffer> {
  const third = Math.ceil(docs / 3);
  const entries: ZipEntrySpec[] = [];
  for (let k = 0; k < 3; k++) {
    const count = Math.max(0, Math.min(third, docs - k * third));
    entries.push(await deflatedEntry(`logs/part-${k}.ndjson`, count, makeDoc, k * third));
  }
  return buildZip(entries);
}
