import { describe, expect, it } from 'vitest';
import { ecsByteDocument } from '../../pipeline/ecs/ecs-byte-document.ts';
import { EcsTimeScratch } from '../../pipeline/ecs/ecs-time.ts';
import { scanEcsJson } from '../../pipeline/ecs/scan-ecs-json.ts';
import type { EncodedEvent } from '../shared/deliver.ts';
import { requestBody } from '../shared/request-body.ts';
import { createBulkEncoder, newIdPrefix } from './bulk-encode.ts';

describe('createBulkEncoder', () => {
  it('writes a create action with the index and a position-based _id, then the document, each line ending in \\n', () => {
    const encode = createBulkEncoder('lab-events', 'Abc123-');
    const doc = { '@timestamp': '2026-03-01T12:00:00.000Z', message: 'ü "quoted"' };
    const text =
      '{"create":{"_index":"lab-events","_id":"Abc123-z"}}\n' +
      '{"@timestamp":"2026-03-01T12:00:00.000Z","message":"ü \\"quoted\\""}\n';
    expect(encode({ doc, time: null }, 35)).toEqual({ text, size: text.length });
  });

  it('gives identical documents distinct ids, and the same position the same id', () => {
    const encode = createBulkEncoder('i', 'p-');
    const doc = { a: 1 };
    const first = encode({ doc, time: null }, 0) as { text: string };
    const second = encode({ doc, time: null }, 1) as { text: string };
    expect(first.text).not.toBe(second.text);
    expect((encode({ doc, time: null }, 0) as { text: string }).text).toBe(first.text);
  });

  it('sends a document given as JSON text byte for byte (rebased archive documents)', () => {
    const encode = createBulkEncoder('lab', 'p-');
    const json = '{"@timestamp":"2026-03-01T12:00:00+02:00","n":12345678901234567890}';
    const text = `{"create":{"_index":"lab","_id":"p-0"}}\n${json}\n`;
    expect(encode({ json, time: null }, 0)).toEqual({ text, size: text.length });
  });

  it('copies a document held as bytes into the body, the same bytes as its text', () => {
    const json = '{"@timestamp":"2026-03-01T12:00:00.000Z","event":{"created":1772366400000},"m":"a"}';
    const chunk = Buffer.from(`xx\n${json}\nyy`, 'latin1');
    const scan = scanEcsJson(json);
    if (!scan.ok) throw new Error(scan.error);
    const doc = ecsByteDocument(chunk, 3, 3 + json.length, scan.spans, 1000, new EcsTimeScratch());
    const encode = createBulkEncoder('läb', 'p-');
    const item = encode(doc, 1) as EncodedEvent;
    const text =
      '{"create":{"_index":"läb","_id":"p-1"}}\n' +
      '{"@timestamp":"2026-03-01T12:00:01.000Z","event":{"created":1772366401000},"m":"a"}\n';
    expect(item.text).toBe(text);
    expect(item.writeTo).toBeDefined();
    const other = encode({ json: '{"a":1}', time: null }, 2) as EncodedEvent;
    expect(requestBody([item, other, item]).toString()).toBe(`${text}${other.text}${text}`);
  });

  it('writes the _id of any position as its text says, without building the action line', () => {
    const json = '{"m":"a"}';
    const chunk = Buffer.from(json, 'latin1');
    const doc = ecsByteDocument(chunk, 0, json.length, [], 0, new EcsTimeScratch());
    const encode = createBulkEncoder('läb', 'p-');
    for (const seq of [0, 9, 10, 35, 36, 1295, 1296, 46_655, 46_656, 2 ** 40 + 7, Number.MAX_SAFE_INTEGER]) {
      const item = encode(doc, seq) as EncodedEvent;
      const text = `{"create":{"_index":"läb","_id":"p-${seq.toString(36)}"}}\n${json}\n`;
      expect(item.text).toBe(text);
      expect(item.size).toBe(text.length);
      expect(requestBody([item]).toString()).toBe(text);
    }
  });

  it('refuses an event without a document', () => {
    expect(createBulkEncoder('i', 'p-')({ line: 'LEEF:2.0|', time: null }, 0)).toEqual({
      error: 'event has no ECS document',
    });
  });
});

describe('newIdPrefix', () => {
  it('is 12 URL-safe characters and a dash, different each time', () => {
    const a = newIdPrefix();
    expect(a).toMatch(/^[A-Za-z0-9_-]{12}-$/);
    expect(newIdPrefix()).not.toBe(a);
  });
});
