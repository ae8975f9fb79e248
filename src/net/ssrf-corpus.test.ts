import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import { hostOf } from './archive-url.ts';
import { type DownloadOptions, downloadArchive } from './download-archive.ts';
import { isPublicAddress } from './public-address.ts';

/*
 * The permanent corpus of SSRF address forms: every IPv6 form that embeds an IPv4 address, with
 * each kind of non-public IPv4 address embedded, the IPv4 spellings URL parsers accept, and public
 * addresses in the same forms that must stay allowed. Each address is checked as written, as the
 * WHATWG URL parser rewrites it in a URL's host, as a literal in an archive URL and as a DNS answer.
 */

type Octets = [number, number, number, number];

const octets = (v4: string) => v4.split('.').map(Number) as Octets;
const hex16 = (hi: number, lo: number) => ((hi << 8) | lo).toString(16);
/** `a.b.c.d` as two IPv6 groups (`7f00:1`). */
const hexGroups = (v4: string) => {
  const [a, b, c, d] = octets(v4);
  return `${hex16(a, b)}:${hex16(c, d)}`;
};

/** A public Teredo server and client. */
const TEREDO_SERVER = '65.54.227.120';
const TEREDO_CLIENT = '7.7.7.7';

/** A Teredo address: the server in bits 32–63, the client as the bitwise NOT of the last 32 bits. */
function teredo(server: string, client: string): string {
  const [a, b, c, d] = octets(client).map((x) => ~x & 0xff) as Octets;
  return `2001:0:${hexGroups(server)}:0:0:${hex16(a, b)}:${hex16(c, d)}`;
}

/** Every IPv6 spelling that carries `v4` as the address it reaches. */
function embeddings(v4: string): Array<[form: string, address: string]> {
  const [a, b, c, d] = octets(v4);
  const h = hexGroups(v4);
  return [
    ['IPv4-mapped, dotted', `::ffff:${v4}`],
    ['IPv4-mapped, hex', `::ffff:${h}`],
    ['IPv4-mapped, full', `0:0:0:0:0:ffff:${h}`],
    ['IPv4-mapped, upper case', `::FFFF:${h.toUpperCase()}`],
    ['IPv4-translated, dotted', `::ffff:0:${v4}`],
    ['IPv4-translated, hex', `::ffff:0:${h}`],
    ['IPv4-translated, full', `0:0:0:0:ffff:0:${h}`],
    ['IPv4-compatible, dotted', `::${v4}`],
    ['IPv4-compatible, hex', `::${h}`],
    ['NAT64 well-known, dotted', `64:ff9b::${v4}`],
    ['NAT64 well-known, hex', `64:ff9b::${h}`],
    ['NAT64 local-use /96', `64:ff9b:1::${v4}`],
    ['NAT64 local-use /48', `64:ff9b:1:${hex16(a, b)}:${c.toString(16)}:${hex16(d, 0)}::`],
    ['NAT64 local-use /64', `64:ff9b:1:0:${a.toString(16)}:${hex16(b, c)}:${hex16(d, 0)}:0`],
    ['6to4', `2002:${h}::1`],
    ['6to4, full', `2002:${h}:0:0:0:0:1`],
    ['Teredo client', teredo(TEREDO_SERVER, v4)],
    ['Teredo server', teredo(v4, TEREDO_CLIENT)],
    ['ISATAP, global prefix', `2600::5efe:${h}`],
    ['ISATAP, universal bit', `2600::200:5efe:${h}`],
  ];
}

/** Non-public IPv4 addresses, one or more per class. */
const PRIVATE_IPV4: Array<[label: string, v4: string]> = [
  ['loopback', '127.0.0.1'],
  ['loopback, top of 127/8', '127.255.255.254'],
  ['private 10/8', '10.0.0.1'],
  ['private 172.16/12', '172.16.0.1'],
  ['private 172.16/12, top', '172.31.255.255'],
  ['private 192.168/16', '192.168.1.1'],
  ['link-local', '169.254.0.1'],
  ['cloud metadata', '169.254.169.254'],
  ['CGNAT 100.64/10', '100.64.0.1'],
  ['CGNAT 100.64/10, top', '100.127.255.254'],
  ['this network 0/8', '0.0.0.0'],
  ['this network 0/8, not zero', '0.1.2.3'],
  ['broadcast', '255.255.255.255'],
  ['multicast', '224.0.0.1'],
  ['multicast, SSDP', '239.255.255.250'],
];

const BLOCKED: Array<[label: string, address: string]> = [
  ...PRIVATE_IPV4.flatMap(
    ([label, v4]): Array<[string, string]> => [
      [`${label}`, v4],
      ...embeddings(v4).map(([form, address]): [string, string] => [`${label} as ${form}`, address]),
    ],
  ),
  ['IPv6 loopback', '::1'],
  ['IPv6 unspecified', '::'],
  ['IPv6 unique-local', 'fd00::1'],
  ['IPv6 link-local', 'fe80::1'],
  ['IPv6 multicast', 'ff02::1'],
];

/** Public addresses, in the embedding forms too: these stay allowed. */
const PUBLIC: Array<[label: string, address: string]> = [
  ['public IPv4', '8.8.8.8'],
  ['public IPv6', '2606:4700::1111'],
  ...embeddings('8.8.8.8')
    .filter(([form]) => !form.startsWith('NAT64 local-use'))
    .map(([form, address]): [string, string] => [`8.8.8.8 as ${form}`, address]),
  ['6to4 with leading zeros', '2002:0808:0808::1'],
  ['NAT64 local-use reading 8.8.8.8 at every prefix length', '64:ff9b:1:808:8:808:808:808'],
];

/** Addresses with a zone id: only non-global scopes need one, so none is public. */
const ZONED = ['fe80::1%eth0', '::ffff:127.0.0.1%lo', '::1%1', '2606:4700::1111%eth0'];

describe('SSRF address corpus', () => {
  it.each(BLOCKED)('refuses %s (%s)', (_label, address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(BLOCKED)('refuses %s (%s) as the URL parser writes it', (_label, address) => {
    const host = address.includes(':') ? `[${address}]` : address;
    const normalised = hostOf(new URL(`http://${host}/a.zip`));
    expect(isPublicAddress(normalised)).toBe(false);
  });

  it.each(PUBLIC)('accepts %s (%s)', (_label, address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each(PUBLIC)('accepts %s (%s) as the URL parser writes it', (_label, address) => {
    const host = address.includes(':') ? `[${address}]` : address;
    expect(isPublicAddress(hostOf(new URL(`http://${host}/a.zip`)))).toBe(true);
  });

  it.each(ZONED)('refuses %s (a zone id)', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it('keeps the WHATWG normalisation of an IPv4-translated address in view', () => {
    expect(hostOf(new URL('http://[::ffff:0:127.0.0.1]/a.zip'))).toBe('::ffff:0:7f00:1');
    expect(isPublicAddress('::ffff:0:7f00:1')).toBe(false);
  });
});

describe('SSRF corpus through downloadArchive', () => {
  let canary: Server;
  let canaryPort = 0;
  let connections = 0;

  beforeAll(async () => {
    canary = createServer((_req, res) => res.end());
    canary.on('connection', () => connections++);
    await new Promise<void>((r) => canary.listen(0, '127.0.0.1', r));
    canaryPort = (canary.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((r) => canary.close(r));
  });

  const opts = (over: Partial<DownloadOptions> = {}): DownloadOptions => ({
    allowHttp: true,
    allowedHosts: [],
    maxBytes: 1000,
    timeoutMs: 2000,
    connectTimeoutMs: 500,
    // A literal must never be looked up; a name must never reach the network resolver here.
    resolve: async (host) => {
      throw new Error(`unexpected lookup of ${host}`);
    },
    ...over,
  });

  async function errorOf(p: Promise<unknown>): Promise<AppError> {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }

  it('refuses every blocked address as a literal host with archive_url_blocked (400), opening no socket', async () => {
    for (const [label, address] of BLOCKED) {
      const host = address.includes(':') ? `[${address}]` : address;
      const err = await errorOf(downloadArchive(`http://${host}:${canaryPort}/a.zip`, opts()));
      expect(err.code, `${label}: ${address}`).toBe('archive_url_blocked');
      expect(err.status).toBe(400);
    }
    expect(connections).toBe(0);
  });

  it('refuses a name whose DNS answer is any blocked address, opening no socket', async () => {
    for (const [label, address] of BLOCKED) {
      const resolve = async () => [{ address, family: address.includes(':') ? 6 : 4 }];
      const err = await errorOf(
        downloadArchive(`http://files.example.test:${canaryPort}/a.zip`, opts({ resolve })),
      );
      expect(err.code, `${label}: ${address}`).toBe('archive_url_blocked');
    }
    for (const address of ZONED) {
      const resolve = async () => [{ address, family: 6 }];
      const err = await errorOf(
        downloadArchive(`http://files.example.test:${canaryPort}/a.zip`, opts({ resolve })),
      );
      expect(err.code, address).toBe('archive_url_blocked');
    }
    expect(connections).toBe(0);
  });

  it('refuses the IPv4 spellings URL parsers accept (decimal, hex, octal, short forms)', async () => {
    const p = canaryPort;
    for (const url of [
      `http://2130706433:${p}/a.zip`,
      `http://0x7f000001:${p}/a.zip`,
      `http://0x7f.1:${p}/a.zip`,
      `http://0x7f.0.0.1:${p}/a.zip`,
      `http://0177.0.0.1:${p}/a.zip`,
      `http://017700000001:${p}/a.zip`,
      `http://127.1:${p}/a.zip`,
      `http://0:${p}/a.zip`,
      `http://0xa9fea9fe/a.zip`,
      `http://2852039166/a.zip`,
      `http://0xc0.0xa8.1.1/a.zip`,
      `http://[::1]:${p}/a.zip`,
      `http://[::]:${p}/a.zip`,
      `http://[::ffff:7f00:1]:${p}/a.zip`,
      `http://[::ffff:0:127.0.0.1]:${p}/a.zip`,
      `http://[::ffff:0:0:127.0.0.1]:${p}/a.zip`,
      `http://[64:ff9b::127.0.0.1]:${p}/a.zip`,
      `http://[2002:7f00:1::1]:${p}/a.zip`,
    ]) {
      const err = await errorOf(downloadArchive(url, opts()));
      expect(err.code, url).toBe('archive_url_blocked');
    }
    expect(connections).toBe(0);
  });

  it('refuses an IPv6 literal with a zone id before any connection (the URL parser rejects it)', async () => {
    for (const url of [
      `http://[fe80::1%25eth0]:${canaryPort}/a.zip`,
      `http://[::1%251]:${canaryPort}/a.zip`,
    ]) {
      const err = await errorOf(downloadArchive(url, opts()));
      expect(err.status, url).toBe(400);
      expect(['invalid_input', 'archive_url_blocked'], url).toContain(err.code);
    }
    expect(connections).toBe(0);
  });
});
