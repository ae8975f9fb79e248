import { createHeaderWriter } from '../../pipeline/syslog/header-mode.ts';
import { syslogPri } from '../../pipeline/syslog/syslog-header.ts';
import type { CheckStep } from '../siem-client.ts';
import { type ConnectOutcome, syslogEndpointLabel } from './syslog-connection.ts';
import { shipmentHeaderSettings } from './syslog-frame-format.ts';
import type { SyslogDestination } from './syslog-tcp-settings.ts';

/** How long the check waits for the receiver to close after ours before dropping the connection. */
const CHECK_CLOSE_MS = 2_000;

/**
 * Live check of a syslog destination: opens a connection (TCP, or TLS with the handshake and the
 * certificate check) and closes it again without sending anything — a test event would land in the
 * SIEM like a real one. Then a configuration step: can headers be synthesized with these settings?
 */
export async function checkSyslog(
  destination: SyslogDestination,
  connect: (signal: AbortSignal) => Promise<ConnectOutcome>,
  signal: AbortSignal,
): Promise<CheckStep[]> {
  const endpoint = syslogEndpointLabel(destination);
  const steps: CheckStep[] = [];
  const opened = await connect(signal);
  if (!opened.ok) steps.push({ name: 'connection', ok: false, message: opened.cause, endpoint });
  else {
    await opened.connection.finish(CHECK_CLOSE_MS);
    const how = !destination.tls
      ? 'TCP connection opened'
      : destination.tls_verify
        ? 'TLS handshake completed, certificate verified,'
        : 'TLS handshake completed WITHOUT certificate verification (tls_verify is off)';
    steps.push({
      name: 'connection',
      ok: true,
      message: `${how} in ${Math.max(1, Math.round(opened.ms))} ms; closed again, no event was sent`,
      endpoint,
    });
  }
  steps.push({ name: 'headers', ...headerStep(destination), endpoint });
  return steps;
}

function headerStep(destination: SyslogDestination): { ok: boolean; message: string } {
  const settings = shipmentHeaderSettings(destination);
  if (settings.mode === 'preserve_raw')
    return { ok: true, message: 'lines are sent with the header they carry (preserve_raw)' };
  const problem = createHeaderWriter(settings).problem;
  if (problem !== undefined) {
    const affected =
      settings.mode === 'force_synthesize'
        ? 'every event would fail'
        : 'events without a syslog header would fail';
    return { ok: false, message: `${settings.mode}: ${problem}; ${affected}` };
  }
  const which = settings.mode === 'force_synthesize' ? 'every event' : 'events without one';
  const pri = syslogPri(destination.facility, destination.severity);
  return {
    ok: true,
    message: `${settings.format} headers with HOSTNAME ${settings.sourceIdentity} and PRI ${pri} for ${which}`,
  };
}
