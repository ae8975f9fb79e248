import type { ComponentState, StatusReading } from './status-types.ts';

/** One sample of an instant-vector query result (`/api/v1/query`). */
export interface PromSample {
  readonly metric: Readonly<Record<string, string>>;
  readonly value: readonly [number, string];
}

/** One active target of `/api/v1/targets` (the fields used here). */
export interface PromTarget {
  readonly labels: Readonly<Record<string, string>>;
  readonly scrapeUrl?: string;
  readonly lastError?: string;
  readonly health: string;
}

/** What one Prometheus poll read. */
export interface PrometheusData {
  /** `up` */
  readonly up: readonly PromSample[];
  /** `ALERTS{alertstate="firing"}` */
  readonly alerts: readonly PromSample[];
  /** Active targets. */
  readonly targets: readonly PromTarget[];
}

/** How many non-up services a host's reason names before "and N more". */
const HOST_REASON_NAMES = 5;

/**
 * Turns Prometheus data into services (one per scrape target: `job` + `instance`) and hosts (the
 * instance address without its port, aggregating its services).
 * - A service is `up`/`down` from its `up` sample (from the target's health when there is no
 *   sample yet; `unknown` before the first scrape). Down reason: the target's last scrape error.
 * - A firing alert whose `instance`/`job` labels match a service makes an up service `degraded`
 *   with reason `alert <name> firing`. Alerts matching no service become their own `degraded`
 *   component (`alert:<alertname>`).
 * - A host is `up` or `down` when all its services are, `unknown` when none has data, else `degraded`.
 */
export function readingsFromPrometheus(data: PrometheusData): StatusReading[] {
  const services = new Map<string, ServiceDraft>();
  const key = (job: string, instance: string) => `${job}/${instance}`;
  const draft = (labels: Readonly<Record<string, string>>): ServiceDraft | null => {
    const job = labels.job;
    const instance = labels.instance;
    if (job === undefined || instance === undefined) return null;
    let s = services.get(key(job, instance));
    if (!s) {
      s = { job, instance, labels: {}, up: undefined, health: undefined, lastError: '', alerts: new Set() };
      services.set(key(job, instance), s);
    }
    return s;
  };

  for (const t of data.targets) {
    const s = draft(t.labels);
    if (!s) continue;
    s.labels = { ...t.labels };
    s.health = t.health;
    s.lastError = t.lastError ?? '';
  }
  for (const sample of data.up) {
    const s = draft(sample.metric);
    if (!s) continue;
    const { __name__: _, ...labels } = sample.metric;
    if (Object.keys(s.labels).length === 0) s.labels = labels;
    const v = Number(sample.value[1]);
    if (v === 1) s.up = true;
    else if (v === 0) s.up = false;
  }

  const unmatched = new Map<string, number>();
  for (const alert of data.alerts) {
    const { alertname = 'unnamed', instance, job } = alert.metric;
    if (alert.metric.alertstate !== undefined && alert.metric.alertstate !== 'firing') continue;
    let matched = false;
    if (instance !== undefined || job !== undefined) {
      for (const s of services.values()) {
        if ((instance === undefined || s.instance === instance) && (job === undefined || s.job === job)) {
          s.alerts.add(alertname);
          matched = true;
        }
      }
    }
    if (!matched) unmatched.set(alertname, (unmatched.get(alertname) ?? 0) + 1);
  }

  const out: StatusReading[] = [];
  const hosts = new Map<string, Array<{ name: string; state: ComponentState }>>();
  for (const s of services.values()) {
    const { state, reason } = serviceState(s);
    const name = `${s.job} ${s.instance}`;
    out.push({
      id: `service:${s.job}/${s.instance}`,
      kind: 'service',
      name,
      state,
      reason,
      labels: s.labels,
    });
    const host = hostOf(s.instance);
    const list = hosts.get(host) ?? [];
    list.push({ name, state });
    hosts.set(host, list);
  }
  for (const [host, list] of hosts) {
    const { state, reason } = hostState(list);
    out.push({ id: `host:${host}`, kind: 'host', name: host, state, reason, labels: {} });
  }
  for (const [alertname, count] of unmatched) {
    out.push({
      id: `alert:${alertname}`,
      kind: 'service',
      name: `alert ${alertname}`,
      state: 'degraded',
      reason: count === 1 ? `alert ${alertname} firing` : `alert ${alertname} firing (${count} series)`,
      labels: { alertname },
    });
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The host part of an `instance` label: `10.0.0.5:9100` → `10.0.0.5`, `[::1]:9090` → `::1`. */
export function hostOf(instance: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(instance);
  if (bracketed) return bracketed[1] as string;
  const hostPort = /^([^:]+):\d+$/.exec(instance);
  if (hostPort) return hostPort[1] as string;
  return instance;
}

interface ServiceDraft {
  job: string;
  instance: string;
  labels: Record<string, string>;
  /** From the `up` sample: true (1), false (0), undefined (no sample). */
  up: boolean | undefined;
  health: string | undefined;
  lastError: string;
  alerts: Set<string>;
}

function serviceState(s: ServiceDraft): { state: ComponentState; reason: string | null } {
  const up = s.up ?? (s.health === 'up' ? true : s.health === 'down' ? false : undefined);
  if (up === undefined) return { state: 'unknown', reason: 'not scraped yet' };
  if (!up) return { state: 'down', reason: s.lastError === '' ? 'scrape failed' : s.lastError };
  if (s.alerts.size > 0) {
    const names = [...s.alerts].sort();
    return {
      state: 'degraded',
      reason: `${names.length === 1 ? 'alert' : 'alerts'} ${names.join(', ')} firing`,
    };
  }
  return { state: 'up', reason: null };
}

function hostState(services: Array<{ name: string; state: ComponentState }>): {
  state: ComponentState;
  reason: string | null;
} {
  const states = new Set(services.map((s) => s.state));
  if (states.size === 1 && states.has('up')) return { state: 'up', reason: null };
  const notUp = services.filter((s) => s.state !== 'up').sort((a, b) => (a.name < b.name ? -1 : 1));
  const named = notUp.slice(0, HOST_REASON_NAMES).map((s) => `${s.name} ${s.state}`);
  if (notUp.length > HOST_REASON_NAMES) named.push(`and ${notUp.length - HOST_REASON_NAMES} more`);
  const reason = named.join('; ');
  if (states.size === 1 && states.has('down')) return { state: 'down', reason };
  if (states.size === 1 && states.has('unknown')) return { state: 'unknown', reason };
  return { state: 'degraded', reason };
}
