import { describe, expect, it } from 'vitest';
import { BodyBuffers, maxBodyBytes, requestBody, writeRequestBody } from './request-body.ts';

const event = (text: string) => ({ text, size: text.length });

describe('requestBody', () => {
  it('is the UTF-8 bytes of the texts in order, across write groups', () => {
    const texts = Array.from({ length: 500 }, (_, i) => `{"n":${i},"s":"${'é€😀'.repeat(i % 7)}"}\n`);
    const body = requestBody(texts.map(event));
    expect(body.equals(Buffer.from(texts.join('')))).toBe(true);
  });

  it('handles an empty batch and a single event larger than a group', () => {
    expect(requestBody([]).length).toBe(0);
    const big = 'x'.repeat(20_000);
    expect(requestBody([event(big)]).toString()).toBe(big);
  });
});

describe('writeRequestBody', () => {
  it('writes the same bytes as requestBody into a reused buffer, however large the earlier body was', () => {
    const buffers = new BodyBuffers(2);
    const batches = [3000, 10, 700].map((count, b) =>
      Array.from({ length: count }, (_, i) => event(`{"b":${b},"n":${i},"s":"${'ü'.repeat(i % 5)}"}\n`)),
    );
    let first: Buffer | undefined;
    for (const batch of batches) {
      const held = buffers.take(maxBodyBytes(batch));
      first ??= held;
      const length = writeRequestBody(batch, held);
      expect(held.subarray(0, length).equals(requestBody(batch))).toBe(true);
      buffers.give(held);
    }
    // One buffer, large enough for the first batch, served all three.
    expect(buffers.take(1)).toBe(first);
  });
});

describe('writeRequestBody with events written as bytes', () => {
  /** Events whose texts sit one after another in one buffer, as a HEC envelope writer puts them. */
  function written(texts: readonly string[]) {
    const buf = Buffer.from(`#${texts.join('#')}#`);
    let at = 1;
    return texts.map((text) => {
      const start = at;
      at += Buffer.byteLength(text) + 1;
      const end = start + Buffer.byteLength(text);
      return {
        text,
        size: text.length,
        bytes: buf,
        bytesStart: start,
        bytesEnd: end,
        writeTo: (out: Buffer, offset: number) => offset + buf.copy(out, offset, start, end),
      };
    });
  }

  it('copies each event, adjacent or not, in order and mixed with events of text', () => {
    const texts = Array.from({ length: 40 }, (_, i) => `{"n":${i},"é":"${'x'.repeat(i % 9)}"}\n`);
    const events = written(texts);
    // The # between texts makes no two events adjacent; every other one, then in reverse, then mixed.
    const orders = [
      events.filter((_, i) => i % 2 === 0),
      [...events].reverse(),
      events.map((e, i) => (i % 5 === 0 ? event(e.text) : e)),
      [events[3]!, events[3]!, events[4]!],
    ];
    for (const batch of orders) {
      expect(requestBody(batch).toString()).toBe(batch.map((e) => e.text).join(''));
    }
  });

  it('copies a run of adjacent events in one go', () => {
    const buf = Buffer.from('abcdefgh');
    const at = (start: number, end: number) => ({
      text: buf.toString('latin1', start, end),
      size: end - start,
      bytes: buf,
      bytesStart: start,
      bytesEnd: end,
    });
    expect(requestBody([at(0, 2), at(2, 5), at(5, 8), at(1, 3), at(3, 4)]).toString()).toBe('abcdefghbcd');
  });
});

describe('BodyBuffers', () => {
  it('hands out a given-back buffer only when it is large enough, and keeps the largest ones', () => {
    const buffers = new BodyBuffers(2);
    const small = buffers.take(10);
    const large = buffers.take(1000);
    const larger = buffers.take(5000);
    expect(small.length).toBeGreaterThanOrEqual(10);
    buffers.give(small);
    buffers.give(large);
    buffers.give(larger);
    expect(buffers.take(2000)).toBe(larger);
    expect(buffers.take(1000)).toBe(large);
    expect(buffers.take(1)).not.toBe(small);
    const none = new BodyBuffers(0);
    none.give(small);
    expect(none.take(1)).not.toBe(small);
  });
});
