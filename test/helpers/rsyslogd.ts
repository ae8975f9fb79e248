import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, constants, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

// A private rsyslogd from Debian's package (.ci/run installs it): its own config, work directory
// and pid file under .tmp, one imtcp input on a free loopback port, one omfile action. No
// imuxsock/imklog, so it never touches the machine's own logging.

const RSYSLOGD = '/usr/sbin/rsyslogd';

/** The rsyslogd binary, or null when it is not installed (then CI fails, elsewhere tests skip). */
export function findRsyslogd(): string | null {
  try {
    accessSync(RSYSLOGD, constants.X_OK);
  } catch {
    if (process.env.CI)
      throw new Error('rsyslogd is not installed but CI is set: apt-get install -y rsyslog');
    console.warn(`Skipping rsyslog integration tests: no ${RSYSLOGD} (apt-get install -y rsyslog).`);
    return null;
  }
  return RSYSLOGD;
}

/** A running private rsyslogd writing `%timereported% %hostname% %syslogtag% %msg%` lines. */
export interface Rsyslogd {
  readonly port: number;
  /** The written lines whose HOSTNAME is `host`, once there are `count` of them (or after ~20 s). */
  linesOf(host: string, count: number): Promise<string[]>;
  close(): Promise<void>;
}

const tmpRoot = fileURLToPath(new URL('../../.tmp', import.meta.url));

/** Starts rsyslogd (TZ=UTC) with one TCP input on a free loopback port. */
export async function startRsyslogd(binary: string): Promise<Rsyslogd> {
  mkdirSync(tmpRoot, { recursive: true });
  const dir = mkdtempSync(path.join(tmpRoot, 'rsyslog-'));
  const out = path.join(dir, 'messages.log');
  const port = await freePort();
  const conf = path.join(dir, 'rsyslog.conf');
  writeFileSync(
    conf,
    [
      `global(workDirectory="${dir}" maxMessageSize="64k")`,
      'module(load="imtcp")',
      'template(name="lab" type="string" string="%timereported:::date-rfc3339% %hostname% %syslogtag% %msg%\\n")',
      `ruleset(name="lab") { action(type="omfile" file="${out}" template="lab") }`,
      `input(type="imtcp" address="127.0.0.1" port="${port}" ruleset="lab")`,
      '',
    ].join('\n'),
  );
  execFileSync(binary, ['-N1', '-f', conf], { stdio: 'pipe' });
  const child = spawn(binary, ['-n', '-f', conf, '-i', path.join(dir, 'rsyslogd.pid')], {
    env: { ...process.env, TZ: 'UTC' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await untilListening(port, child);
  return {
    port,
    async linesOf(host, count) {
      let lines: string[] = [];
      for (let i = 0; i < 400; i++) {
        let text = '';
        try {
          text = readFileSync(out, 'utf8');
        } catch {}
        lines = text.split('\n').filter((line) => line.split(' ')[1] === host);
        if (lines.length >= count) return lines;
        await sleep(50);
      }
      return lines;
    },
    async close() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function untilListening(port: number, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`rsyslogd exited with code ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.end();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await sleep(50);
  }
  throw new Error(`rsyslogd did not listen on ${port}`);
}
