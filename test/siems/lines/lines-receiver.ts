import { startSimHttpServer } from '../../simulators/sim-http-server.ts';

/** A test_lines receiver: indexes of received events, and the token it accepts. */
export interface LinesReceiver {
  readonly url: string;
  readonly token: string;
  /** Events by index, as received (`{ time, event }`). */
  readonly indexes: Map<string, Array<{ time: number | null; event: unknown }>>;
  close(): Promise<void>;
}

/** Starts a receiver on a random port; indexes must be created (PUT) before they take events. */
export async function startLinesReceiver(options: { indexes?: string[] } = {}): Promise<LinesReceiver> {
  const token = 'lines-token-0123456789';
  const indexes = new Map<string, Array<{ time: number | null; event: unknown }>>(
    (options.indexes ?? []).map((i) => [i, []]),
  );
  const server = await startSimHttpServer({
    maxBodyBytes: 16 << 20,
    tooLarge: () => ({ status: 413 }),
    faultResponse: (fault) => ({ status: fault.status }),
    handle(req) {
      if (req.method === 'GET' && req.path === '/health') return { status: 200, body: { ok: true } };
      if (req.headers.authorization !== `Bearer ${token}`) return { status: 401 };
      const m = /^\/indexes\/([^/]+)(\/events)?$/.exec(req.path);
      if (!m) return { status: 404 };
      const index = decodeURIComponent(m[1] as string);
      const events = indexes.get(index);
      if (req.method === 'PUT' && !m[2]) {
        if (events) return { status: 200, body: {} };
        indexes.set(index, []);
        return { status: 201, body: {} };
      }
      if (!events) return { status: 404, body: { error: `no index ${index}` } };
      if (req.method === 'POST' && m[2]) {
        for (const line of req.body.toString('utf8').split('\n')) if (line) events.push(JSON.parse(line));
        return { status: 200, body: {} };
      }
      if (req.method === 'DELETE' && m[2]) {
        const deleted = events.length;
        events.length = 0;
        return { status: 200, body: { deleted } };
      }
      return { status: 405 };
    },
  });
  return { url: server.url, token, indexes, close: () => server.close() };
}
