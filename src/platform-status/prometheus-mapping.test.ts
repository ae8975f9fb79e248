import { describe, expect, it } from 'vitest';
import { hostOf, type PrometheusData, readingsFromPrometheus } from './prometheus-mapping.ts';

/** Shapes as Prometheus 2.42 answers them (trimmed to the fields read). */
const DATA: PrometheusData = {
  up: [
    { metric: { __name__: 'up', instance: '127.0.0.1:9090', job: 'prometheus' }, value: [1795370952.4, '1'] },
    { metric: { __name__: 'up', instance: '127.0.0.3:1', job: 'closed' }, value: [1795370952.4, '0'] },
    { metric: { __name__: 'up', instance: '10.0.0.5:9100', job: 'node' }, value: [1795370952.4, '1'] },
    { metric: { __name__: 'up', instance: '10.0.0.5:9256', job: 'process' }, value: [1795370952.4, '0'] },
  ],
  alerts: [
    {
      metric: {
        __name__: 'ALERTS',
        alertname: 'HighLoad',
        alertstate: 'firing',
        instance: '10.0.0.5:9100',
        job: 'node',
        severity: 'warning',
      },
      value: [1795370952.4, '1'],
    },
    {
      metric: { __name__: 'ALERTS', alertname: 'Watchdog', alertstate: 'firing', severity: 'none' },
      value: [1795370952.4, '1'],
    },
  ],
  targets: [
    {
      labels: { instance: '127.0.0.3:1', job: 'closed' },
      scrapeUrl: 'http://127.0.0.3:1/metrics',
      lastError: 'Get "http://127.0.0.3:1/metrics": dial tcp 127.0.0.3:1: connect: connection refused',
      health: 'down',
    },
    {
      labels: { instance: '127.0.0.1:9090', job: 'prometheus' },
      scrapeUrl: 'http://127.0.0.1:9090/metrics',
      lastError: '',
      health: 'up',
    },
    { labels: { instance: '10.0.0.5:9100', job: 'node', env: 'lab' }, lastError: '', health: 'up' },
    { labels: { instance: '10.0.0.5:9256', job: 'process' }, lastError: '', health: 'down' },
    { labels: { instance: 'new-host:9100', job: 'node' }, lastError: '', health: 'unknown' },
  ],
};

describe('mapping Prometheus answers to components', () => {
  it('lists services and hosts with their states and reasons', () => {
    expect(readingsFromPrometheus(DATA)).toEqual([
      {
        id: 'alert:Watchdog',
        kind: 'service',
        name: 'alert Watchdog',
        state: 'degraded',
        reason: 'alert Watchdog firing',
        labels: { alertname: 'Watchdog' },
      },
      {
        id: 'host:10.0.0.5',
        kind: 'host',
        name: '10.0.0.5',
        state: 'degraded',
        reason: 'node 10.0.0.5:9100 degraded; process 10.0.0.5:9256 down',
        labels: {},
      },
      {
        id: 'host:127.0.0.1',
        kind: 'host',
        name: '127.0.0.1',
        state: 'up',
        reason: null,
        labels: {},
      },
      {
        id: 'host:127.0.0.3',
        kind: 'host',
        name: '127.0.0.3',
        state: 'down',
        reason: 'closed 127.0.0.3:1 down',
        labels: {},
      },
      {
        id: 'host:new-host',
        kind: 'host',
        name: 'new-host',
        state: 'unknown',
        reason: 'node new-host:9100 unknown',
        labels: {},
      },
      {
        id: 'service:closed/127.0.0.3:1',
        kind: 'service',
        name: 'closed 127.0.0.3:1',
        state: 'down',
        reason: 'Get "http://127.0.0.3:1/metrics": dial tcp 127.0.0.3:1: connect: connection refused',
        labels: { instance: '127.0.0.3:1', job: 'closed' },
      },
      {
        id: 'service:node/10.0.0.5:9100',
        kind: 'service',
        name: 'node 10.0.0.5:9100',
        state: 'degraded',
        reason: 'alert HighLoad firing',
        labels: { instance: '10.0.0.5:9100', job: 'node', env: 'lab' },
      },
      {
        id: 'service:node/new-host:9100',
        kind: 'service',
        name: 'node new-host:9100',
        state: 'unknown',
        reason: 'not scraped yet',
        labels: { instance: 'new-host:9100', job: 'node' },
      },
      {
        id: 'service:process/10.0.0.5:9256',
        kind: 'service',
        name: 'process 10.0.0.5:9256',
        state: 'down',
        reason: 'scrape failed',
        labels: { instance: '10.0.0.5:9256', job: 'process' },
      },
      {
        id: 'service:prometheus/127.0.0.1:9090',
        kind: 'service',
        name: 'prometheus 127.0.0.1:9090',
        state: 'up',
        reason: null,
        labels: { instance: '127.0.0.1:9090', job: 'prometheus' },
      },
    ]);
  });

  it('applies a job-wide alert to every service of that job and names several alerts', () => {
    const readings = readingsFromPrometheus({
      up: [
        { metric: { job: 'api', instance: 'a:1' }, value: [0, '1'] },
        { metric: { job: 'api', instance: 'b:1' }, value: [0, '1'] },
      ],
      alerts: [
        { metric: { alertname: 'SlowApi', job: 'api' }, value: [0, '1'] },
        { metric: { alertname: 'ErrorsApi', job: 'api', instance: 'b:1' }, value: [0, '1'] },
        { metric: { alertname: 'Pending', job: 'api', alertstate: 'pending' }, value: [0, '1'] },
      ],
      targets: [],
    });
    expect(readings.filter((r) => r.kind === 'service').map((r) => [r.id, r.state, r.reason])).toEqual([
      ['service:api/a:1', 'degraded', 'alert SlowApi firing'],
      ['service:api/b:1', 'degraded', 'alerts ErrorsApi, SlowApi firing'],
    ]);
  });

  it('keeps a down service down when an alert also fires for it', () => {
    const [service] = readingsFromPrometheus({
      up: [{ metric: { job: 'x', instance: 'h:1' }, value: [0, '0'] }],
      alerts: [{ metric: { alertname: 'XDown', job: 'x', instance: 'h:1' }, value: [0, '1'] }],
      targets: [
        { labels: { job: 'x', instance: 'h:1' }, lastError: 'context deadline exceeded', health: 'down' },
      ],
    }).filter((r) => r.kind === 'service');
    expect(service).toMatchObject({ state: 'down', reason: 'context deadline exceeded' });
  });

  it('names at most five services in a host reason', () => {
    const up = Array.from({ length: 7 }, (_, i) => ({
      metric: { job: `j${i}`, instance: 'h:1' },
      value: [0, '0'] as const,
    }));
    const host = readingsFromPrometheus({ up, alerts: [], targets: [] }).find((r) => r.id === 'host:h');
    expect(host?.reason).toBe('j0 h:1 down; j1 h:1 down; j2 h:1 down; j3 h:1 down; j4 h:1 down; and 2 more');
  });

  it('finds the host of an instance label', () => {
    expect(hostOf('10.0.0.5:9100')).toBe('10.0.0.5');
    expect(hostOf('[::1]:9090')).toBe('::1');
    expect(hostOf('db.internal')).toBe('db.internal');
    expect(hostOf('fe80::1')).toBe('fe80::1');
  });
});
