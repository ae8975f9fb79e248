import { describe, expect, it } from 'vitest';
import { memoryEntry } from '../../../test/fixtures/archives/memory-entry.ts';
import {
  detectEntryFormat,
  isEcsLike,
  LEEF_LOOK_LINES,
  looksLikeLeef,
  requireEntryFormat,
} from './detect-format.ts';

describe('looksLikeLeef', () => {
  it.each([
    'LEEF:1.0|Vendor|Product|1.0|Event|\tsrc=1.2.3.4',
    'LEEF:2.0|Vendor|Product|1.0|Event|^|src=1.2.3.4',
    '<134>May  1 12:00:00 host LEEF:1.0|V|P|1|E|',
    '<134>1 2024-05-01T12:00:00Z host app - - - LEEF:2.0|V|P|1|E|x09|a=b',
  ])('accepts %j', (line) => {
    expect(looksLikeLeef(line)).toBe(true);
  });

  it.each([
    'LEEF:1.0|Vendor|Product',
    'CEF:0|Vendor|Product|1.0|100|name|5|src=1.2.3.4',
    'xLEEF:1.0|V|P|1|E|',
    'LEEF:3.0|V|P|1|E|',
    '{"message":"LEEF:1.0|V|P|1|E|"}',
  ])('refuses %j', (line) => {
    expect(looksLikeLeef(line)).toBe(false);
  });
});

describe('isEcsLike', () => {
  it.each([
    [{ '@timestamp': '2024-05-01T00:00:00Z', event: { kind: 'event' } }],
    [{ '@timestamp': 1714521600000, 'source.ip': '10.0.0.1' }],
    [{ '@timestamp': 'x', message: 'hello' }],
    [{ '@timestamp': 'x', user: { name: 'a' } }],
    [{ '@timestamp': 'x', 'log.level': 'info' }],
  ])('accepts %j', (doc) => {
    expect(isEcsLike(doc)).toBe(true);
  });

  it.each([
    [{ event: { kind: 'event' } }],
    [{ '@timestamp': '', event: { kind: 'event' } }],
    [{ '@timestamp': 'x', message: '  ' }],
    [{ '@timestamp': 'x', event: {} }],
    [{ '@timestamp': 'x', event: 'string' }],
    [{ '@timestamp': 'x', network: { transport: 'tcp' } }],
    [{ '@timestamp': 'x', 'event.': 1 }],
    [[{ '@timestamp': 'x', message: 'm' }]],
  ])('refuses %j', (doc) => {
    expect(isEcsLike(doc)).toBe(false);
  });
});

describe('detectEntryFormat', () => {
  it('detects LEEF from the first non-empty line', async () => {
    expect(
      await detectEntryFormat(memoryEntry('a.log', '\n\r\n<134>host LEEF:1.0|V|P|1|E|\tsrc=1.2.3.4\n')),
    ).toBe('leef');
  });

  it('detects LEEF behind a banner or plain syslog lines among the first lines, not further down', async () => {
    const leef = 'LEEF:1.0|V|P|1|E|\tsrc=1.2.3.4';
    const sshd = '<30>Mar 11 09:16:00 lnx sshd[1]: Accepted publickey for deploy';
    expect(await detectEntryFormat(memoryEntry('a.log', `# exported 2024-03-11\n${leef}\n`))).toBe('leef');
    expect(await detectEntryFormat(memoryEntry('a.log', `${sshd}\n${sshd}\n${leef}\n`))).toBe('leef');
    const many = `${'plain text\n'.repeat(LEEF_LOOK_LINES)}${leef}\n`;
    expect(await detectEntryFormat(memoryEntry('a.log', many))).toBe('unknown');
    // Long lines: the hundred lines reach past the first 64 KiB read.
    const long = `${`${sshd} ${'x'.repeat(900)}\n`.repeat(70)}${leef}\n`;
    expect(await detectEntryFormat(memoryEntry('a.log', long))).toBe('leef');
    // A bracketed banner is not JSON.
    expect(await detectEntryFormat(memoryEntry('a.log', `[exported 2024-03-11]\n${leef}\n`))).toBe('leef');
    // A LEEF line cut off by the end of what was read yet is not judged; read whole, it is.
    expect(await detectEntryFormat(memoryEntry('a.log', `${sshd}\n${leef}`))).toBe('leef');
  });

  it('detects ECS in NDJSON, a pretty-printed array and a single object', async () => {
    expect(
      await detectEntryFormat(memoryEntry('a.ndjson', '{"@timestamp":"t","host":{"name":"h"}}\n{}')),
    ).toBe('ecs');
    const big = `[\n  {\n    "@timestamp": "t",\n    "pad": "${'x'.repeat(200_000)}",\n    "message": "m"\n  }\n]`;
    expect(await detectEntryFormat(memoryEntry('a.json', big, 4096))).toBe('ecs');
    expect(await detectEntryFormat(memoryEntry('a.json', '{"@timestamp":1,"process.pid":4}'))).toBe('ecs');
  });

  it('calls JSON without ECS fields, CSV and broken JSON unknown', async () => {
    expect(await detectEntryFormat(memoryEntry('a.json', '{"time":"t","msg":"m"}'))).toBe('unknown');
    expect(await detectEntryFormat(memoryEntry('a.log', 'time,src,dst\n1,2,3\n'))).toBe('unknown');
    expect(await detectEntryFormat(memoryEntry('a.json', '{"@timestamp":'))).toBe('unknown');
    expect(await detectEntryFormat(memoryEntry('a.log', '\n\n'))).toBe('unknown');
  });

  it('leaves what it read for the reader that follows', async () => {
    const entry = memoryEntry('a.log', 'LEEF:1.0|V|P|1|E|\ta=1\nsecond\n', 5);
    expect(await detectEntryFormat(entry)).toBe('leef');
    const lines: string[] = [];
    for await (const l of entry.lines()) lines.push(l);
    expect(lines).toEqual(['LEEF:1.0|V|P|1|E|\ta=1', 'second']);
  });

  it('fails closed on unknown content with archive_invalid naming the entry', async () => {
    await expect(requireEntryFormat(memoryEntry('data/x.txt', 'hello world\n'))).rejects.toMatchObject({
      code: 'archive_invalid',
      details: { entry: 'data/x.txt' },
      message: 'archive entry "data/x.txt" is neither LEEF nor ECS (JSON with @timestamp and an ECS field)',
    });
    expect(await requireEntryFormat(memoryEntry('a.ndjson', '{"@timestamp":"t","message":"m"}'))).toBe('ecs');
  });
});
