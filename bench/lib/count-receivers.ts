// Count-only HEC and bulk receivers: they do the least a real one must and answer success in the
// product's format, so a benchmark's figure is the sender's own work.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface CountReceivers {
  info: { hec: { url: string; token: string }; bulk: { url: string; apiKey: string } };
  counts(): { hec: number; bulk: number };
  close(): Promise<void>;
}

const EVENT_KEY = Buffer.from('"event":');

/**
 * HEC: checks the token, inflates a gzip body, counts the envelopes by their `"event":` key (a
 * JSON string cannot hold it unescaped, and the envelopes may or may not be LF-separated) and
 * answers `{"text":"Success","code":0}`. Bulk: checks the API key and the final newline, counts
 * the items (two lines each) and answers as Elasticsearch does (with `x-elastic-product`): the
 * compact items of `filter_path=…items.*.status` when asked for, else the full item of an
 * indexed document, under the request's own action (`create` or `index`).
 */
export async function startCountReceivers(): Promise<CountReceivers> {
  const token = 'bench-hec-token';
  const apiKey = Buffer.from('bench:key').toString('base64');
  let hecCount = 0;
  let bulkCount = 0;
  const hec = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.headers.authorization !== `Splunk ${token}`) {
        res.writeHead(403, { 'content-type': 'application/json' }).end('{"text":"Invalid token","code":4}');
        return;
      }
      const raw = Buffer.concat(chunks);
      const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
      hecCount += countOf(body, EVENT_KEY);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"text":"Success","code":0}');
    });
  });
  let seq = 0;
  const bulk = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = { 'content-type': 'application/json', 'x-elastic-product': 'Elasticsearch' };
      if (req.headers.authorization !== `ApiKey ${apiKey}`) {
        res.writeHead(401, headers).end('{"error":"unauthorized","status":401}');
        return;
      }
      const body = Buffer.concat(chunks);
      if (body.at(-1) !== 10) {
        res.writeHead(400, headers).end('{"error":"no final newline","status":400}');
        return;
      }
      const items = countOf(body, Buffer.from([10])) / 2;
      bulkCount += items;
      const action = body.subarray(2, 8).toString() === 'create' ? 'create' : 'index';
      const parts: string[] = new Array(items);
      if (req.url?.includes('filter_path=')) parts.fill(`{"${action}":{"status":201}}`);
      else
        for (let i = 0; i < items; i++)
          parts[i] =
            `{"${action}":{"_index":"bench","_id":"${++seq}","_version":1,"result":"created",` +
            `"_shards":{"total":2,"successful":1,"failed":0},"_seq_no":${seq},"_primary_term":1,"status":201}}`;
      res.writeHead(200, headers).end(`{"errors":false,"took":1,"items":[${parts.join(',')}]}`);
    });
  });
  const listen = async (server: http.Server) => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  return {
    info: { hec: { url: await listen(hec), token }, bulk: { url: await listen(bulk), apiKey } },
    counts: () => ({ hec: hecCount, bulk: bulkCount }),
    async close() {
      hec.closeAllConnections();
      bulk.closeAllConnections();
      await Promise.all([new Promise((r) => hec.close(r)), new Promise((r) => bulk.close(r))]);
    },
  };
}

function countOf(buffer: Buffer, needle: Buffer): number {
  let n = 0;
  for (let i = buffer.indexOf(needle); i !== -1; i = buffer.indexOf(needle, i + needle.length)) n++;
  return n;
}
