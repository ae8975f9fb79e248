import { describe, expect, it } from 'vitest';
import { parseSearch, parseTimeModifier } from './hec-search.ts';

describe('parseSearch', () => {
  it('reads the wipe query', () => {
    expect(parseSearch('search index=lab_01 | delete')).toEqual({
      ok: true,
      search: {
        index: 'lab_01',
        terms: [],
        earliest: undefined,
        latest: undefined,
        command: 'delete',
        head: undefined,
      },
    });
  });

  it('reads quoted indexes, inline times, terms, stats count and head', () => {
    expect(parseSearch('search index="lab" earliest=-1h latest=now error "a b" | stats count')).toEqual({
      ok: true,
      search: {
        index: 'lab',
        terms: ['error', 'a b'],
        earliest: '-1h',
        latest: 'now',
        command: 'stats_count',
        head: undefined,
      },
    });
    expect(parseSearch('search index=lab | head 5')).toMatchObject({
      ok: true,
      search: { command: 'events', head: 5 },
    });
  });

  it('refuses a query without the leading search command as splunkd does over REST', () => {
    expect(parseSearch('index=lab | delete')).toEqual({
      ok: false,
      message: "Unknown search command 'index'.",
    });
  });

  it('refuses commands outside the subset', () => {
    expect(parseSearch('search index=lab | table _raw')).toEqual({
      ok: false,
      message: "Unknown search command 'table'.",
    });
    expect(parseSearch('| makeresults')).toEqual({
      ok: false,
      message: "Unknown search command 'makeresults'.",
    });
    expect(parseSearch('  ')).toEqual({ ok: false, message: 'Empty search.' });
  });
});

describe('parseTimeModifier', () => {
  const now = Date.parse('2026-03-04T12:34:56Z') / 1000;
  it.each([
    ['now', '2026-03-04T12:34:56.000Z'],
    ['', '2026-03-04T12:34:56.000Z'],
    ['0', '1970-01-01T00:00:00.000Z'],
    ['1772000000', '2026-02-25T06:13:20.000Z'],
    ['-24h', '2026-03-03T12:34:56.000Z'],
    ['-7d@d', '2026-02-25T00:00:00.000Z'],
    ['@d', '2026-03-04T00:00:00.000Z'],
    ['-1mon@mon', '2026-02-01T00:00:00.000Z'],
    ['+1y', '2027-03-04T12:34:56.000Z'],
    ['-15m@h', '2026-03-04T12:00:00.000Z'],
    ['2025-01-02T03:04:05Z', '2025-01-02T03:04:05.000Z'],
  ])('reads %j', (modifier, iso) => {
    expect(new Date(parseTimeModifier(modifier, now)! * 1000).toISOString()).toBe(iso);
  });

  it('returns null for unsupported forms', () => {
    expect(parseTimeModifier('rt-5m', now)).toBeNull();
    expect(parseTimeModifier('-3fortnights', now)).toBeNull();
  });
});
