import { BlockList, isIP } from 'node:net';

/**
 * IPv4 ranges an archive download may never reach (reliability-notes §2.3): "this network",
 * private, CGNAT, loopback, link-local (cloud metadata), IETF protocol assignments, documentation,
 * the 6to4 relay anycast, benchmarking, multicast, reserved and broadcast.
 */
const blockedIpv4 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blockedIpv4.addSubnet(net, prefix, 'ipv4');
}

/**
 * IPv6 is public only inside global unicast (2000::/3), so everything IANA has not handed out
 * (loopback, unspecified, discard-only, unique-local, link-local, site-local, multicast and the
 * reserved rest) is refused without a list of its own. An IPv6 address that embeds an IPv4 one is
 * judged by that address before this check (see `embeddedIpv4`).
 */
const globalUnicast = new BlockList();
globalUnicast.addSubnet('2000::', 3, 'ipv6');

/** Not public inside 2000::/3: IETF protocol assignments (the rest of 2001::/23) and documentation. */
const blockedIpv6 = new BlockList();
for (const [net, prefix] of [
  ['2001::', 23],
  ['2001:db8::', 32],
  ['3fff::', 20],
] as const) {
  blockedIpv6.addSubnet(net, prefix, 'ipv6');
}

/**
 * True when `ip` (a literal IPv4 or IPv6 address, as in a URL's host or a DNS answer) is a public
 * unicast address. An IPv6 address with a zone id (`fe80::1%eth0`) is never public: only
 * non-global scopes need one.
 */
export function isPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return isPublicIpv4(ip);
  if (family !== 6 || ip.includes('%')) return false;
  const bytes = ipv6Bytes(ip);
  const embedded = embeddedIpv4(bytes);
  if (embedded !== undefined) return embedded.every(isPublicIpv4);
  return globalUnicast.check(ip, 'ipv6') && !blockedIpv6.check(ip, 'ipv6');
}

function isPublicIpv4(ip: string): boolean {
  return !blockedIpv4.check(ip, 'ipv4');
}

/**
 * The IPv4 addresses an IPv6 address carries, in every form that reaches an IPv4 host through it;
 * undefined when it has none. The address is public only when every one of them is.
 *
 * - IPv4-mapped `::ffff:0:0/96` and IPv4-translated `::ffff:0:0:0/96` (RFC 2765): the last 32 bits
 * - IPv4-compatible `::/96` (deprecated; `::` and `::1` fall in 0.0.0.0/8 this way): the last 32 bits
 * - NAT64 well-known prefix `64:ff9b::/96` (RFC 6052): the last 32 bits
 * - NAT64 local-use `64:ff9b:1::/48` (RFC 8215): the operator picks the prefix length, so every
 *   RFC 6052 position a prefix inside the /48 can give (/48, /56, /64, /96)
 * - 6to4 `2002::/16` (RFC 3056): bits 16–47
 * - Teredo `2001::/32` (RFC 4380): the server (bits 32–63) and the client, whose address is the
 *   bitwise NOT of the last 32 bits
 * - ISATAP (RFC 5214), any prefix with interface id `0:5efe` or `200:5efe`: the last 32 bits
 */
function embeddedIpv4(b: Uint8Array): string[] | undefined {
  const zeros = (from: number, to: number) => b.subarray(from, to).every((x) => x === 0);
  const at = (...i: number[]) => i.map((k) => b[k] as number).join('.');
  const last = at(12, 13, 14, 15);
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return [last];
  if (zeros(0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(10, 12)) return [last];
  if (zeros(0, 12)) return [last];
  const nat64 = b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b;
  if (nat64 && zeros(4, 12)) return [last];
  if (nat64 && b[4] === 0x00 && b[5] === 0x01) {
    return [at(6, 7, 9, 10), at(7, 9, 10, 11), at(9, 10, 11, 12), last];
  }
  if (b[0] === 0x20 && b[1] === 0x02) return [at(2, 3, 4, 5)];
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x00 && b[3] === 0x00) {
    const client = [12, 13, 14, 15].map((k) => ~(b[k] as number) & 0xff).join('.');
    return [at(4, 5, 6, 7), client];
  }
  // ISATAP (RFC 5214): any prefix, interface id 0000:5efe or 0200:5efe (universal/local bit).
  if ((b[8] === 0x00 || b[8] === 0x02) && b[9] === 0x00 && b[10] === 0x5e && b[11] === 0xfe) {
    return [last];
  }
  return undefined;
}

/** The 16 bytes of an IPv6 address already validated by `isIP` (no zone id). */
function ipv6Bytes(ip: string): Uint8Array {
  let text = ip.toLowerCase();
  const tail = text.slice(text.lastIndexOf(':') + 1);
  if (tail.includes('.')) {
    // A trailing dotted quad is two 16-bit groups.
    const [a, b, c, d] = tail.split('.').map(Number) as [number, number, number, number];
    const group = (hi: number, lo: number) => ((hi << 8) | lo).toString(16);
    text = `${text.slice(0, text.length - tail.length)}${group(a, b)}:${group(c, d)}`;
  }
  const [head = '', rest] = text.split('::');
  const groupsOf = (s: string | undefined) => (s ? s.split(':') : []);
  const front = groupsOf(head);
  const back = groupsOf(rest);
  const groups = [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    const v = Number.parseInt(g, 16);
    bytes[2 * i] = v >> 8;
    bytes[2 * i + 1] = v & 0xff;
  });
  return bytes;
}
