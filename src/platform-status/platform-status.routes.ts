import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../context.ts';
import { errors } from '../http/common-schemas.ts';
import { userOf } from '../http/route-auth.ts';
import { EndEventData, SnapshotBody, SnapshotEventData, StatusEventData } from './platform-status.schemas.ts';

const tags = ['platform status'];

const STREAM_DESCRIPTION = [
  'Server-sent events (`text/event-stream`) of host and service health; any signed-in user.',
  'Events: `snapshot` (the full state: first event of a stream, or after a Last-Event-ID that',
  'cannot be resumed, with `cause: "reset"`), `status` (one component added, changed or removed),',
  '`end` (the server closes the stream: `session_ended`, `session_expired`, `shutdown`).',
  'Every `snapshot` and `status` event has an `id:`; reconnect with `Last-Event-ID` to receive',
  'exactly the events missed (last 1,000 events, 5 minutes). A `: heartbeat` comment comes at',
  'least every 15 s; `retry: 5000` sets the reconnection delay. The `data:` of each event is one',
  'JSON object of the schema named after the event (see docs/platform-status.md).',
].join(' ');

/** GET /api/platform-status and its event stream (spec 4.5, part 6; docs/platform-status.md). */
export const platformStatusRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  // The poller runs from ctx.start() to ctx.stop(); stop() ends open streams too.
  const status = ctx.platformStatus;

  app.get(
    '/api/platform-status',
    {
      schema: {
        tags,
        summary: 'Current platform status (the snapshot the stream starts with)',
        response: { 200: SnapshotBody, ...errors(401) },
      },
    },
    async () => ({ ok: true as const, ...status.hub.snapshot() }),
  );

  app.get(
    '/api/platform-status/events',
    {
      // A HEAD would hold a stream open with nothing ever sent.
      exposeHeadRoute: false,
      schema: {
        tags,
        summary: 'Platform status stream (server-sent events)',
        description: STREAM_DESCRIPTION,
        headers: Type.Object({
          'last-event-id': Type.Optional(
            Type.String({ description: 'id of the last event received, to resume after a reconnect' }),
          ),
        }),
        response: {
          200: {
            description: 'An endless event stream; each `data:` line holds one of these objects.',
            content: {
              'text/event-stream': {
                schema: Type.Union([SnapshotEventData, StatusEventData, EndEventData]),
              },
            },
          },
          ...errors(401),
        },
      },
    },
    async (request, reply) => {
      const user = userOf(request.actor);
      const lastEventId = request.headers['last-event-id'];
      reply.hijack();
      status.streams.open(
        reply.raw,
        { userId: user.userId, sessionHash: user.sessionHash },
        typeof lastEventId === 'string' ? lastEventId : undefined,
      );
    },
  );
};
