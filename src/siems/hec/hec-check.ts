import type { HttpEndpoint } from '../shared/http-endpoint.ts';
import { endpointLabel } from '../shared/siem-message.ts';
import type { CheckStep } from '../siem-client.ts';
import { parseHecReply } from './hec-classify.ts';
import { hecIndexExists, type ManagementContext, serverInfo } from './hec-management.ts';
import type { HecDestination } from './hec-settings.ts';

/** What the connectivity check of a HEC destination uses. */
export interface HecCheckInput {
  readonly destination: HecDestination;
  readonly collector: HttpEndpoint;
  readonly collectorHeaders: Readonly<Record<string, string>>;
  readonly management: ManagementContext | undefined;
  /** Set when a management URL exists but cannot be used (no credentials). */
  readonly managementProblem: string | undefined;
  readonly scrub: (text: string) => string;
  readonly signal: AbortSignal;
}

/**
 * Live check, one request per step, no retries: collector health; the token, by an empty POST to
 * `/raw` that a valid token answers with code 5 "No data" (how Splunk's own forwarder library
 * validates tokens, protocols-hec-bulk.md 1.9); with a management API, its credentials and the
 * default index.
 */
export async function checkHec(input: HecCheckInput): Promise<CheckStep[]> {
  const { collector, signal, scrub } = input;
  const steps: CheckStep[] = [];
  const step = (name: string, ok: boolean, message: string, endpoint: string) =>
    steps.push({ name, ok, message: scrub(message), endpoint });

  const healthPath = '/services/collector/health';
  const health = await collector.request({ method: 'GET', path: healthPath, signal });
  if (health.kind === 'network') step('collector', false, health.message, collector.label(healthPath));
  else {
    const reply = parseHecReply(health.text);
    step(
      'collector',
      health.status === 200,
      `HTTP ${health.status}${reply.text ? ` ${reply.text}` : ''}${reply.code !== undefined ? ` (code ${reply.code})` : ''}`,
      collector.label(healthPath),
    );
  }

  const rawPath = '/services/collector/raw';
  const { 'content-encoding': _gzip, ...plainHeaders } = input.collectorHeaders;
  const probe = await collector.request({
    method: 'POST',
    path: rawPath,
    headers: plainHeaders,
    body: '',
    signal,
  });
  if (probe.kind === 'network') step('token', false, probe.message, collector.label(rawPath));
  else {
    const reply = parseHecReply(probe.text);
    const said = `HTTP ${probe.status}${reply.text ? ` ${reply.text}` : ''}${reply.code !== undefined ? ` (code ${reply.code})` : ''}`;
    if (probe.status === 400 && reply.code === 5)
      step('token', true, 'token accepted', collector.label(rawPath));
    else if (reply.code === 10) {
      step(
        'token',
        false,
        `${said}: the token uses indexer acknowledgement; set a channel`,
        collector.label(rawPath),
      );
    } else if (probe.status === 401 || probe.status === 403) {
      step('token', false, `${said}: the HEC token was refused`, collector.label(rawPath));
    } else step('token', false, said, collector.label(rawPath));
  }

  const management = input.management;
  if (input.managementProblem) {
    const url = input.destination.management_url;
    step('management', false, input.managementProblem, url ? endpointLabel(url) : '');
  }
  if (!management) return steps;
  const infoPath = '/services/server/info';
  const info = await serverInfo(management, signal);
  step('management', info.ok, info.message, management.endpoint.label(infoPath));
  const index = input.destination.index;
  if (info.ok && index !== null) {
    const indexPath = `/services/data/indexes/${encodeURIComponent(index)}`;
    const exists = await hecIndexExists(management, index, signal);
    if (exists === true) step('index', true, `index "${index}" exists`, management.endpoint.label(indexPath));
    else if (exists === false) {
      step('index', false, `index "${index}" does not exist`, management.endpoint.label(indexPath));
    } else step('index', false, exists, management.endpoint.label(indexPath));
  }
  return steps;
}
