import { describe, expect, it } from 'vitest';
import { clip, endpointLabel, joinPath, siemMessage } from './siem-message.ts';

describe('endpointLabel', () => {
  it('names scheme, host, port and path, never the query string or user-info', () => {
    expect(endpointLabel('https://siem-a:8088', '/services/collector/event?token=abc')).toBe(
      'https://siem-a:8088/services/collector/event',
    );
    expect(endpointLabel('https://user:pw@siem-b', '/_bulk')).toBe('https://siem-b:443/_bulk');
    expect(endpointLabel('http://10.0.0.5', '')).toBe('http://10.0.0.5:80/');
    expect(endpointLabel('https://[::1]:9200/es/', '/_bulk')).toBe('https://[::1]:9200/es/_bulk');
  });
});

describe('joinPath', () => {
  it('keeps a base path in front of the request path', () => {
    expect(joinPath('https://proxy.lab/splunk/', '/services/collector/event')).toBe(
      'https://proxy.lab/splunk/services/collector/event',
    );
    expect(joinPath('https://es.lab:9200', '_bulk')).toBe('https://es.lab:9200/_bulk');
  });
});

describe('siemMessage and clip', () => {
  it('puts SIEM, endpoint and cause in one line', () => {
    expect(siemMessage('splunk-lab', 'https://siem-a:8088/services/collector/event', 'HTTP 503')).toBe(
      'SIEM "splunk-lab" https://siem-a:8088/services/collector/event: HTTP 503',
    );
  });

  it('clips long quoted text to one line', () => {
    expect(clip('a\n  b')).toBe('a b');
    expect(clip('x'.repeat(10), 4)).toBe('xxxx…');
  });
});
