// What the end-to-end benchmarks share: the session-start archive and a receiver that only counts.
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { zipSync } from 'fflate';

/**
 * A zip of `total` LEEF lines (`buildLeefText`) in one entry, `exercise/firewall.log`.
 */
export function buildArchive(total: number): Buffer {
  return Buffer.from(zipSync({ 'exercise/firewall.log': buildLeefText(total) }, { level: 6 }));
}

/**
 * `total` LEEF lines, each ending in LF: half epoch-ms devTime, a quarter devTime with
 * devTimeFormat, a quarter behind an RFC 3164 header (the session-start benchmark's mix).
 */
export function buildLeefText(total: number): Buffer {
  const base = Date.UTC(2024, 5, 1, 0, 0, 0);
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const lines: string[] = new Array(total);
  for (let i = 0; i < total; i++) {
    const t = base + i * 50;
    const attrs = `src=10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}\tdst=192.0.2.${i % 250}\tdstPort=${1024 + (i % 50000)}\tusrName=user${i % 997}`;
    switch (i % 4) {
      case 0:
      case 1:
        lines[i] = `LEEF:1.0|Acme|Firewall|9.1|deny|${attrs}\tdevTime=${t}`;
        break;
      case 2: {
        const d = new Date(t);
        const text = `${months[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, '0')} ${d.getUTCFullYear()} ${d.toISOString().slice(11, 23)} UTC`;
        lines[i] =
          `LEEF:2.0|Acme|Proxy|2.0|get|^|${attrs.replaceAll('\t', '^')}^devTime=${text}^devTimeFormat=MMM dd yyyy HH:mm:ss.SSS z`;
        break;
      }
      default: {
        const d = new Date(t);
        const header = `<134>${months[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${d.toISOString().slice(11, 19)} fw-${i % 7}`;
        lines[i] = `${header} LEEF:1.0|Acme|Firewall|9.1|allow|${attrs}\tdevTime=${t}`;
      }
    }
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

/** A syslog receiver that only counts LF-framed messages, on a free loopback port. */
export async function startLfCounter(): Promise<{ port: number; count(): number; close(): void }> {
  let messages = 0;
  const server = net.createServer((socket) => {
    socket.on('data', (chunk: Buffer) => {
      let at = chunk.indexOf(10);
      while (at !== -1) {
        messages++;
        at = chunk.indexOf(10, at + 1);
      }
    });
    socket.on('end', () => socket.end());
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    count: () => messages,
    close: () => server.close(),
  };
}

/**
 * The child-process side of a counting syslog receiver (`startLfCounter`): reports
 * `{ type: 'ready', port }` once listening and `{ type: 'count', messages }` when asked.
 */
export async function runCountingReceiver(): Promise<void> {
  const counter = await startLfCounter();
  process.send?.({ type: 'ready', port: counter.port });
  process.on('message', (m: { type: string }) => {
    if (m.type === 'count') process.send?.({ type: 'count', messages: counter.count() });
  });
}
