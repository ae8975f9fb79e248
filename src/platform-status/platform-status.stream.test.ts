import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildStatusTestApp,
  openSse,
  type StatusTestApp,
  waitUntil,
} from '../../test/helpers/status-test-app.ts';
import { createTestUser, login, signedInAs } from '../../test/helpers/test-app.ts';
import { type ManualProvider, manualProvider, reading } from './manual-provider.ts';

const HEARTBEAT_MS = 100;

describe('platform status stream', () => {
  let t: StatusTestApp;
  let provider: ManualProvider;
  let cookie: string;
  const events = () => `${t.url}/api/platform-status/events`;
  const poll = () => t.ctx.platformStatus.hub.pollNow();
  const bootId = () => t.ctx.platformStatus.hub.bootId;

  beforeAll(async () => {
    provider = manualProvider('prometheus');
    provider.set([reading('service:app/h:1', 'up')]);
    t = await buildStatusTestApp({
      platformStatus: { provider, replayLimit: 5, stream: { heartbeatMs: HEARTBEAT_MS } },
    });
    cookie = (await signedInAs(t, [])).cookie;
    await poll();
  });
  afterAll(async () => {
    await t.close();
  });

  it('sends SSE headers, the reconnection delay and a snapshot first', async () => {
    const client = await openSse(events(), { cookie, 'accept-encoding': 'gzip, br' });
    try {
      expect(client.status).toBe(200);
      expect(client.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      expect(client.headers['cache-control']).toBe('no-cache');
      expect(client.headers['x-accel-buffering']).toBe('no');
      expect(client.headers['content-encoding']).toBeUndefined();
      await client.waitFor('the snapshot', () => client.events().length === 1);
      const snapshot = t.ctx.platformStatus.hub.snapshot();
      expect(
        client
          .text()
          .startsWith(
            `retry: 5000\n\nid: ${snapshot.event_id}\nevent: snapshot\ndata: ${JSON.stringify({ cause: 'connect', ...snapshot })}\n\n`,
          ),
      ).toBe(true);
      expect(snapshot.components.map((c) => [c.id, c.state])).toEqual([['service:app/h:1', 'up']]);
    } finally {
      client.close();
    }
  });

  it('sends a status event with an id for each change', async () => {
    const client = await openSse(events(), { cookie });
    try {
      await client.waitFor('the snapshot', () => client.events().length === 1);
      provider.set([reading('service:app/h:1', 'down', { reason: 'connection refused' })]);
      t.clock.advance(15_000);
      await poll();
      await client.waitFor('a status event', () => client.events().length === 2);
      const status = client.events()[1];
      expect(status?.event).toBe('status');
      expect(status?.id).toBe(t.ctx.platformStatus.hub.lastEventId);
      expect(JSON.parse(status?.data ?? '')).toEqual({
        change: 'changed',
        at: '2026-03-01T12:00:15.000Z',
        component: {
          id: 'service:app/h:1',
          kind: 'service',
          name: 'service:app/h:1',
          state: 'down',
          reason: 'connection refused',
          labels: {},
          since: '2026-03-01T12:00:15.000Z',
        },
        previous: { state: 'up', reason: null, since: '2026-03-01T12:00:00.000Z' },
      });
    } finally {
      client.close();
    }
  });

  it('writes heartbeat comments on its interval', async () => {
    const client = await openSse(events(), { cookie });
    try {
      await client.waitFor('three heartbeats', () => client.comments().length >= 3, 20 * HEARTBEAT_MS);
      expect(client.comments().slice(0, 3)).toEqual(['heartbeat', 'heartbeat', 'heartbeat']);
      expect(client.text()).toContain('\n\n: heartbeat\n\n');
    } finally {
      client.close();
    }
  });

  it('replays exactly the missed events after Last-Event-ID, then continues live', async () => {
    const first = await openSse(events(), { cookie });
    await first.waitFor('the snapshot', () => first.events().length === 1);
    const lastSeen = first.events()[0]?.id as string;
    first.close();
    const seqOf = (id: string | undefined) => Number(id?.split('-')[1]);
    const base = seqOf(lastSeen);
    for (const state of ['up', 'degraded', 'down'] as const) {
      provider.set([reading('service:app/h:1', state)]);
      await poll();
    }
    const resumed = await openSse(events(), { cookie, 'last-event-id': lastSeen });
    try {
      await resumed.waitFor('three replayed events', () => resumed.events().length === 3);
      expect(resumed.events().map((e) => [e.event, e.id])).toEqual([
        ['status', `${bootId()}-${base + 1}`],
        ['status', `${bootId()}-${base + 2}`],
        ['status', `${bootId()}-${base + 3}`],
      ]);
      expect(resumed.events().map((e) => JSON.parse(e.data).component.state)).toEqual([
        'up',
        'degraded',
        'down',
      ]);
      expect(resumed.text().startsWith('retry: 5000\n\nid: ')).toBe(true);
      provider.set([reading('service:app/h:1', 'up')]);
      await poll();
      await resumed.waitFor('the live event', () => resumed.events().length === 4);
      expect(resumed.events()[3]?.id).toBe(`${bootId()}-${base + 4}`);
    } finally {
      resumed.close();
    }
  });

  it('sends a reset snapshot when Last-Event-ID lies outside the replay window', async () => {
    const old = t.ctx.platformStatus.hub.lastEventId;
    for (let i = 0; i < 6; i += 1) {
      provider.set([reading('service:app/h:1', i % 2 === 0 ? 'down' : 'up')]);
      await poll();
    }
    const client = await openSse(events(), { cookie, 'last-event-id': old });
    try {
      await client.waitFor('the snapshot', () => client.events().length === 1);
      const [snapshot] = client.events();
      expect(snapshot?.event).toBe('snapshot');
      expect(snapshot?.id).toBe(t.ctx.platformStatus.hub.lastEventId);
      expect(JSON.parse(snapshot?.data ?? '').cause).toBe('reset');
    } finally {
      client.close();
    }
  });

  it('closes the stream with an end event at sign-out, leaving other sessions open', async () => {
    const user = await createTestUser(t.ctx, []);
    const mine = await login(t.app, user.email, user.password);
    const other = await login(t.app, user.email, user.password);
    const a = await openSse(events(), { cookie: mine });
    const b = await openSse(events(), { cookie: other });
    try {
      await a.waitFor('snapshot a', () => a.events().length === 1);
      await b.waitFor('snapshot b', () => b.events().length === 1);
      const res = await fetch(`${t.url}/logout`, {
        method: 'POST',
        headers: { cookie: mine, origin: 'http://socdrill.test' },
      });
      expect(res.status).toBe(200);
      await a.waitFor('the stream to end', () => a.ended());
      expect(a.events().at(-1)).toEqual({ id: undefined, event: 'end', data: '{"reason":"session_ended"}' });
      expect(b.ended()).toBe(false);
    } finally {
      a.close();
      b.close();
    }
  });

  it('closes every stream of a user who is disabled', async () => {
    const admin = (await signedInAs(t, ['admin'])).cookie;
    const { cookie: victim, user } = await signedInAs(t, []);
    const client = await openSse(events(), { cookie: victim });
    try {
      await client.waitFor('the snapshot', () => client.events().length === 1);
      const res = await t.app.inject({
        method: 'PATCH',
        url: `/api/users/${user.id}`,
        headers: { cookie: admin },
        payload: { disabled: true },
      });
      expect(res.statusCode).toBe(200);
      await client.waitFor('the stream to end', () => client.ended());
      expect(client.events().at(-1)?.data).toBe('{"reason":"session_ended"}');
    } finally {
      client.close();
    }
  });

  it('closes the stream at the next heartbeat once the session expired; the stream does not extend it', async () => {
    const { cookie: mine } = await signedInAs(t, []);
    const client = await openSse(events(), { cookie: mine });
    try {
      await client.waitFor('the snapshot', () => client.events().length === 1);
      // Just inside the 2 h idle limit: heartbeats re-check the session but must not touch it.
      t.clock.advance(2 * 3600 * 1000 - 60_000);
      const seen = client.comments().length;
      await client.waitFor(
        'two more heartbeats',
        () => client.comments().length >= seen + 2,
        20 * HEARTBEAT_MS,
      );
      expect(client.ended()).toBe(false);
      t.clock.advance(60_000);
      await client.waitFor('the stream to end', () => client.ended(), 20 * HEARTBEAT_MS);
      expect(client.events().at(-1)).toEqual({
        id: undefined,
        event: 'end',
        data: '{"reason":"session_expired"}',
      });
      const again = await t.app.inject({ url: '/api/platform-status', headers: { cookie: mine } });
      expect(again.statusCode).toBe(401);
    } finally {
      client.close();
      t.clock.set(Date.parse('2026-03-01T12:00:00.000Z'));
    }
  });
});

/** Sends a GET for the stream over a raw socket and never reads what comes back. */
async function stalledClient(url: string, cookie: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.pause();
  socket.write(`GET /api/platform-status/events HTTP/1.1\r\nHost: ${hostname}\r\nCookie: ${cookie}\r\n\r\n`);
  return socket;
}

/** Makes every component change, so each poll writes roughly `components * 16 KiB`. */
function flip(provider: ManualProvider, round: number, components = 8): void {
  const blob = String(round % 10).repeat(16 * 1024);
  provider.set(Array.from({ length: components }, (_, i) => reading(`c${i}`, 'up', { labels: { blob } })));
}

describe('platform status stream with a client that stops reading', () => {
  it('drops the client when its unread data passes the buffer cap', async () => {
    const provider = manualProvider();
    const cap = 256 * 1024;
    const t = await buildStatusTestApp({
      platformStatus: {
        provider,
        stream: { maxBufferedBytes: cap, stallTimeoutMs: 60_000, heartbeatMs: 60_000 },
      },
    });
    const socket = await stalledClient(t.url, (await signedInAs(t, [])).cookie);
    try {
      const streams = t.ctx.platformStatus.streams;
      await waitUntil('the stream to open', () => streams.size === 1);
      let round = 0;
      while (streams.stats().closed.buffer_full === 0 && round < 2_000) {
        flip(provider, round);
        round += 1;
        await t.ctx.platformStatus.hub.pollNow();
        await new Promise((r) => setImmediate(r));
      }
      const stats = streams.stats();
      expect(stats.closed.buffer_full).toBe(1);
      expect(stats.open).toBe(0);
      expect(stats.peakBufferedBytes).toBeLessThanOrEqual(cap);
      expect(t.ctx.platformStatus.hub.listenerCount).toBe(0);
      // The stream registry's own listener and the session cache's, none left by the dropped stream.
      expect(t.ctx.sessionEvents.listenerCount('ended')).toBe(2);
    } finally {
      socket.destroy();
      await t.close();
    }
  });

  it('drops a client that leaves data unread for the stall timeout', async () => {
    const provider = manualProvider();
    const t = await buildStatusTestApp({
      platformStatus: {
        provider,
        stream: { maxBufferedBytes: 256 * 1024 * 1024, stallTimeoutMs: 300, heartbeatMs: 60_000 },
      },
    });
    const socket = await stalledClient(t.url, (await signedInAs(t, [])).cookie);
    try {
      const streams = t.ctx.platformStatus.streams;
      await waitUntil('the stream to open', () => streams.size === 1);
      let round = 0;
      while (streams.stats().stalled === 0 && streams.size === 1 && round < 2_000) {
        flip(provider, round);
        round += 1;
        await t.ctx.platformStatus.hub.pollNow();
        await new Promise((r) => setImmediate(r));
      }
      expect(streams.stats().stalled).toBe(1);
      await waitUntil('the stalled client to be dropped', () => streams.stats().closed.stalled === 1, 5_000);
      expect(streams.size).toBe(0);
      expect(t.ctx.platformStatus.hub.listenerCount).toBe(0);
    } finally {
      socket.destroy();
      await t.close();
    }
  });

  it('forgets a stream whose socket closes while it waits on backpressure', async () => {
    const provider = manualProvider();
    const t = await buildStatusTestApp({
      platformStatus: {
        provider,
        stream: { maxBufferedBytes: 256 * 1024 * 1024, stallTimeoutMs: 60_000, heartbeatMs: 60_000 },
      },
    });
    const socket = await stalledClient(t.url, (await signedInAs(t, [])).cookie);
    try {
      const streams = t.ctx.platformStatus.streams;
      await waitUntil('the stream to open', () => streams.size === 1);
      let round = 0;
      while (streams.stats().stalled === 0 && round < 2_000) {
        flip(provider, round);
        round += 1;
        await t.ctx.platformStatus.hub.pollNow();
        await new Promise((r) => setImmediate(r));
      }
      expect(streams.stats().stalled).toBe(1);
      socket.destroy();
      await waitUntil('the stream to be forgotten', () => streams.size === 0);
      const stats = streams.stats();
      expect(stats.closed.client_closed).toBe(1);
      expect(stats.stalled).toBe(0);
      expect(t.ctx.platformStatus.hub.listenerCount).toBe(0);
      // Later changes are not written anywhere (nothing left to write after close).
      flip(provider, round + 1);
      await t.ctx.platformStatus.hub.pollNow();
      expect(streams.stats().closed).toMatchObject({ client_closed: 1, buffer_full: 0, stalled: 0 });
    } finally {
      socket.destroy();
      await t.close();
    }
  });
});

describe('platform status stream at shutdown', () => {
  it('ends open streams with an end event so the server can close', async () => {
    const provider = manualProvider();
    const t = await buildStatusTestApp({ platformStatus: { provider } });
    const client = await openSse(`${t.url}/api/platform-status/events`, {
      cookie: (await signedInAs(t, [])).cookie,
    });
    await client.waitFor('the snapshot', () => client.events().length === 1);
    await t.close();
    await client.waitFor('the stream to end', () => client.ended());
    expect(client.events().at(-1)).toEqual({ id: undefined, event: 'end', data: '{"reason":"shutdown"}' });
  });
});
