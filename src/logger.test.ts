import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';

describe('createLogger', () => {
  it('redacts credentials logged at the top level, one object down and in a SIEM Q group', () => {
    const lines: string[] = [];
    const log = createLogger('info', { write: (line: string) => void lines.push(line) });
    log.info(
      {
        token: 'top-token',
        password: 'top-password',
        authorization: 'Basic dG9wOnBhc3N3b3Jk',
        destination: {
          api_key: 'nested-key',
          management_password: 'nested-pw',
          siem_q: { token: 'q-token' },
        },
        request: { headers: { authorization: 'Bearer nested-bearer' } },
        siem: 'splunk-lab',
      },
      'x',
    );
    const [line = ''] = lines;
    for (const secret of [
      'top-token',
      'top-password',
      'dG9wOnBhc3N3b3Jk',
      'nested-key',
      'nested-pw',
      'q-token',
      'nested-bearer',
    ]) {
      expect(line).not.toContain(secret);
    }
    expect(JSON.parse(line)).toMatchObject({ token: '[redacted]', siem: 'splunk-lab' });
  });
});
