// A large upload to an S3 store that takes its time reading the body must not be cut by the
// limits meant for reads: the store reads 64 KiB every 50 ms (≈ 1.3 MiB/s), so a 4 MiB upload
// takes ≈ 3 s, longer than answerMs (500 ms), and the socket looks idle for longer than idleMs
// (2 s) while the kernel's send buffer drains.
import http from 'node:http';
import type net from 'node:net';
import { Readable } from 'node:stream';
import { expect, it } from 'vitest';
import { createS3Storage } from './s3-storage.ts';

function slowStore() {
  const objects = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const key = (req.url ?? '').split('?')[0] as string;
    if (req.method === 'HEAD') {
      const size = objects.get(key);
      if (key.split('/').length <= 2) return res.writeHead(200).end();
      if (size === undefined) return res.writeHead(404).end();
      return res
        .writeHead(200, { 'content-length': String(size), 'last-modified': new Date().toUTCString() })
        .end();
    }
    if (req.method === 'PUT') {
      let got = 0;
      req.pause();
      const timer = setInterval(() => {
        const chunk = req.read(64 * 1024);
        if (chunk) got += chunk.length;
      }, 50);
      req.on('readable', () => {});
      req.on('end', () => {
        clearInterval(timer);
        objects.set(key, got);
        res.writeHead(200, { etag: '"x"' }).end();
      });
      return undefined;
    }
    return res.writeHead(404).end();
  });
  return new Promise<{ endpoint: string; close(): void }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        endpoint: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
        close: () => {
          server.closeAllConnections();
          server.close();
        },
      }),
    ),
  );
}

for (const kind of ['buffer', 'stream'] as const) {
  it(`a slow but steady ${kind} upload of 4 MiB is not cut by the read time limits`, async () => {
    const store = await slowStore();
    const storage = createS3Storage(
      {
        endpoint: store.endpoint,
        region: 'us-east-1',
        accessKeyId: 'x',
        secretAccessKey: 'y',
        forcePathStyle: true,
      },
      { connectionMs: 500, answerMs: 500, idleMs: 2000 },
    );
    const data = Buffer.alloc(4 * 1024 * 1024, 1);
    try {
      const body =
        kind === 'buffer' ? data : Readable.from([data.subarray(0, 2 << 20), data.subarray(2 << 20)]);
      const info = await storage.put('noise-archives', 'big/a.zip', body, data.length);
      expect(info.size).toBe(data.length);
    } finally {
      await storage.close();
      store.close();
    }
  });
}
