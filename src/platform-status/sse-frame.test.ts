import { describe, expect, it } from 'vitest';
import { encodeSseComment, encodeSseEvent, encodeSseRetry } from './sse-frame.ts';

describe('SSE frames', () => {
  it('writes id, event and data lines and ends the frame with a blank line', () => {
    expect(encodeSseEvent({ id: 'abc-7', event: 'status', data: '{"a":1}' })).toBe(
      'id: abc-7\nevent: status\ndata: {"a":1}\n\n',
    );
  });

  it('splits multi-line data into one data line per line, whatever the line break', () => {
    expect(encodeSseEvent({ data: 'one\ntwo\r\nthree\rfour' })).toBe(
      'data: one\ndata: two\ndata: three\ndata: four\n\n',
    );
  });

  it('writes an empty data line for empty data', () => {
    expect(encodeSseEvent({ event: 'x', data: '' })).toBe('event: x\ndata: \n\n');
  });

  it('refuses CR or LF in the event name and the id, which would inject fields', () => {
    expect(() => encodeSseEvent({ event: 'status\ndata: forged', data: '' })).toThrow(/CR or LF/);
    expect(() => encodeSseEvent({ id: '1\rretry: 1', data: '' })).toThrow(/CR or LF/);
    expect(() => encodeSseEvent({ id: 'a\0b', data: '' })).toThrow(/NUL/);
  });

  it('writes comments and retry fields', () => {
    expect(encodeSseComment('heartbeat')).toBe(': heartbeat\n\n');
    expect(() => encodeSseComment('a\nb')).toThrow(/CR or LF/);
    expect(encodeSseRetry(5000)).toBe('retry: 5000\n\n');
    expect(() => encodeSseRetry(1.5)).toThrow();
  });
});
