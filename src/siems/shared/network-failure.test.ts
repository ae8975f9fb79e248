import { describe, expect, it } from 'vitest';
import { classifyNetworkError } from './network-failure.ts';

function coded(code: string, message = code, cause?: unknown): Error {
  return Object.assign(new Error(message, cause === undefined ? undefined : { cause }), { code });
}

describe('classifyNetworkError', () => {
  it('names common socket failures in plain words with their code', () => {
    expect(classifyNetworkError(coded('ECONNREFUSED'))).toEqual({
      kind: 'network',
      code: 'ECONNREFUSED',
      message: 'connection refused (ECONNREFUSED)',
      tls: false,
      cancelled: false,
    });
    expect(classifyNetworkError(coded('UND_ERR_HEADERS_TIMEOUT')).message).toBe(
      'no answer within the read timeout (UND_ERR_HEADERS_TIMEOUT)',
    );
  });

  it('prefers the socket code hidden under undici SocketError', () => {
    const err = coded('UND_ERR_SOCKET', 'other side closed', coded('ECONNRESET'));
    expect(classifyNetworkError(err).code).toBe('ECONNRESET');
    expect(classifyNetworkError(coded('UND_ERR_SOCKET', 'other side closed')).code).toBe('UND_ERR_SOCKET');
  });

  it('marks certificate problems as TLS failures with a hint to set ca_pem', () => {
    const f = classifyNetworkError(
      coded('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate'),
    );
    expect(f.tls).toBe(true);
    expect(f.message).toBe(
      "TLS failure (UNABLE_TO_VERIFY_LEAF_SIGNATURE): unable to verify the first certificate; trust the SIEM's CA with ca_pem",
    );
    expect(classifyNetworkError(coded('SELF_SIGNED_CERT_IN_CHAIN')).tls).toBe(true);
    expect(classifyNetworkError(coded('ERR_TLS_CERT_ALTNAME_INVALID')).tls).toBe(true);
  });

  it('reports cancellation when the signal aborted, whatever was thrown', () => {
    const f = classifyNetworkError(coded('ECONNRESET'), AbortSignal.abort());
    expect(f).toMatchObject({ cancelled: true, message: 'cancelled', tls: false });
    expect(classifyNetworkError(Object.assign(new Error('x'), { name: 'AbortError' })).cancelled).toBe(true);
  });
});
