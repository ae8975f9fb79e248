import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';
import { AppError } from './errors.ts';

describe(loadConfig.name, () => {
  it('has the documented embedded defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      dataDir: path.resolve('./data'),
      databaseUrl: undefined,
      s3: undefined,
      dispatchTokens: [],
      publicUrl: 'http://127.0.0.1:8080',
      publicOrigin: 'http://127.0.0.1:8080',
      secureCookies: false,
      archiveAllowedHosts: [],
      archiveAllowHttp: false,
      archiveMaxBytes: 512 * 1024 * 1024,
      archiveMaxUncompressedBytes: 4096 * 1024 * 1024,
      archiveMaxEntryBytes: 1024 * 1024 * 1024,
      archiveMaxEntries: 10_000,
      archiveMaxRatio: 1000,
      scheduler: true,
      hecRetryNotFound: false,
      prometheusUrl: undefined,
    });
  });

  it('reads every variable', () => {
    const c = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      DATA_DIR: '/srv/socdrill',
      DATABASE_URL: 'postgres://u@db/socdrill',
      SECRET_KEY: Buffer.alloc(32, 1).toString('base64'),
      S3_ENDPOINT: 'http://minio:9000',
      S3_REGION: 'eu-west-1',
      S3_ACCESS_KEY_ID: 'ak',
      S3_SECRET_ACCESS_KEY: 'sk',
      S3_FORCE_PATH_STYLE: 'true',
      DISPATCH_TOKEN: 'a-dispatch-token-of-length',
      ADMIN_EMAIL: 'Admin@Example.test',
      ADMIN_PASSWORD: 'pw pw pw pw',
      PUBLIC_URL: 'https://lab.example.test/',
      ARCHIVE_ALLOWED_HOSTS: 'files.lab, 10.0.0.5:8443 ',
      ARCHIVE_ALLOW_HTTP: 'true',
      SCHEDULER: 'off',
      HEC_RETRY_NOT_FOUND: 'true',
      PROMETHEUS_URL: 'http://prom:9090',
      ARCHIVE_MAX_BYTES: '1048576',
      ARCHIVE_MAX_UNCOMPRESSED_BYTES: '2097152',
      ARCHIVE_MAX_ENTRY_BYTES: '65536',
      ARCHIVE_MAX_ENTRIES: '12',
      ARCHIVE_MAX_RATIO: '50',
    });
    expect(c).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      dataDir: '/srv/socdrill',
      databaseUrl: 'postgres://u@db/socdrill',
      s3: {
        endpoint: 'http://minio:9000',
        region: 'eu-west-1',
        accessKeyId: 'ak',
        secretAccessKey: 'sk',
        forcePathStyle: true,
      },
      dispatchTokens: ['a-dispatch-token-of-length'],
      adminEmail: 'admin@example.test',
      publicOrigin: 'https://lab.example.test',
      secureCookies: true,
      archiveAllowedHosts: ['files.lab', '10.0.0.5:8443'],
      archiveAllowHttp: true,
      scheduler: false,
      hecRetryNotFound: true,
      prometheusUrl: 'http://prom:9090',
      archiveMaxBytes: 1048576,
      archiveMaxUncompressedBytes: 2097152,
      archiveMaxEntryBytes: 65536,
      archiveMaxEntries: 12,
      archiveMaxRatio: 50,
    });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('requires SECRET_KEY with DATABASE_URL', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://x/y' })).toThrow(
      /SECRET_KEY is required with DATABASE_URL/,
    );
  });

  it('names every bad variable at once', () => {
    try {
      loadConfig({
        PORT: 'eighty',
        SECRET_KEY: 'short',
        SCHEDULER: 'maybe',
        PUBLIC_URL: 'ftp://x',
        ARCHIVE_ALLOW_HTTP: 'perhaps',
        ARCHIVE_MAX_ENTRIES: '0',
        ARCHIVE_MAX_RATIO: '1.5',
      });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect(Object.keys((err as AppError).details?.fields as object).sort()).toEqual([
        'ARCHIVE_ALLOW_HTTP',
        'ARCHIVE_MAX_ENTRIES',
        'ARCHIVE_MAX_RATIO',
        'PORT',
        'PUBLIC_URL',
        'SCHEDULER',
        'SECRET_KEY',
      ]);
    }
  });

  it('accepts a short DISPATCH_TOKEN (start-up warns instead) and the usual spellings of SCHEDULER', () => {
    const config = loadConfig({ DISPATCH_TOKEN: 'test-token', SCHEDULER: 'false' });
    expect(config.dispatchTokens).toEqual(['test-token']);
    expect(config.scheduler).toBe(false);
    expect(loadConfig({ SCHEDULER: 'ON' }).scheduler).toBe(true);
    expect(loadConfig({}).scheduler).toBe(true);
  });

  it('refuses S3 settings without S3_ENDPOINT instead of silently storing archives locally', () => {
    expect(() => loadConfig({ S3_ACCESS_KEY_ID: 'ak', S3_SECRET_ACCESS_KEY: 'sk' })).toThrow(
      /S3_ENDPOINT is required when S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY are set/,
    );
    expect(() => loadConfig({ S3_REGION: 'eu-west-1' })).toThrow(
      /S3_ENDPOINT is required when S3_REGION is set/,
    );
    expect(loadConfig({}).s3).toBeUndefined();
  });

  it('accepts only the documented LOG_LEVEL values, in any case', () => {
    expect(loadConfig({}).logLevel).toBe('info');
    for (const level of ['debug', 'info', 'warn', 'error', 'silent']) {
      expect(loadConfig({ LOG_LEVEL: level }).logLevel).toBe(level);
    }
    expect(loadConfig({ LOG_LEVEL: 'WARN' }).logLevel).toBe('warn');
    for (const level of ['verbose', 'trace', 'fatal']) {
      expect(() => loadConfig({ LOG_LEVEL: level }), level).toThrow(/LOG_LEVEL must be one of/);
    }
  });

  it('refuses a PROMETHEUS_URL whose user or password is not valid percent-encoding', () => {
    expect(loadConfig({ PROMETHEUS_URL: 'http://ops:p%40ss@prom:9090' }).prometheusUrl).toBe(
      'http://ops:p%40ss@prom:9090',
    );
    for (const url of ['http://ops:pa%zzss@prom:9090', 'http://o%E0%A4%Aps:pw@prom:9090']) {
      expect(() => loadConfig({ PROMETHEUS_URL: url }), url).toThrow(
        /PROMETHEUS_URL has a user or password that is not valid percent-encoding/,
      );
    }
  });

  it('names a bad LOG_LEVEL and PROMETHEUS_URL together with the other bad variables', () => {
    try {
      loadConfig({ PORT: 'abc', LOG_LEVEL: 'verbose', PROMETHEUS_URL: 'http://ops:pa%zzss@prom:9090' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect(Object.keys((err as AppError).details?.fields as object).sort()).toEqual([
        'LOG_LEVEL',
        'PORT',
        'PROMETHEUS_URL',
      ]);
    }
  });

  it('wants ADMIN_EMAIL and ADMIN_PASSWORD together', () => {
    expect(() => loadConfig({ ADMIN_EMAIL: 'a@b.c' })).toThrow(/go together/);
  });

  it('bounds session starts: ARCHIVE_MAX_CONCURRENT, ARCHIVE_MEMORY_BYTES and SHIPMENT_DEADLINE_SECONDS', () => {
    expect(loadConfig({})).toMatchObject({
      archiveMaxConcurrent: 2,
      archiveMemoryBytes: 64 * 1024 * 1024,
      shipmentDeadlineSeconds: 900,
    });
    expect(
      loadConfig({ ARCHIVE_MAX_CONCURRENT: '5', ARCHIVE_MEMORY_BYTES: '0', SHIPMENT_DEADLINE_SECONDS: '60' }),
    ).toMatchObject({ archiveMaxConcurrent: 5, archiveMemoryBytes: 0, shipmentDeadlineSeconds: 60 });
    try {
      loadConfig({
        ARCHIVE_MAX_CONCURRENT: '0',
        ARCHIVE_MEMORY_BYTES: '-1',
        SHIPMENT_DEADLINE_SECONDS: '0.5',
      });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).details?.fields).toEqual({
        ARCHIVE_MAX_CONCURRENT: 'must be an integer between 1 and 1000',
        ARCHIVE_MEMORY_BYTES: `must be an integer between 0 and ${Number.MAX_SAFE_INTEGER}`,
        SHIPMENT_DEADLINE_SECONDS: 'must be an integer between 1 and 604800',
      });
    }
  });

  it('has no metrics exporter unless METRICS_PORT is set, bound to loopback by default', () => {
    expect(loadConfig({})).toMatchObject({ metricsPort: undefined, metricsHost: '127.0.0.1' });
    expect(loadConfig({ METRICS_PORT: ' ' }).metricsPort).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '9464' })).toMatchObject({
      metricsPort: 9464,
      metricsHost: '127.0.0.1',
    });
    expect(loadConfig({ METRICS_PORT: '65535', METRICS_HOST: '10.0.0.7' })).toMatchObject({
      metricsPort: 65535,
      metricsHost: '10.0.0.7',
    });
    for (const port of ['0', '65536', '-1', '9464.5', 'metrics']) {
      try {
        loadConfig({ METRICS_PORT: port });
        expect.unreachable(port);
      } catch (err) {
        expect(err, port).toBeInstanceOf(AppError);
        expect((err as AppError).details?.fields, port).toEqual({
          METRICS_PORT: 'must be an integer between 1 and 65535',
        });
      }
    }
  });
});
