import { Type } from 'typebox';
import {
  COMPONENT_KINDS,
  COMPONENT_STATES,
  type ComponentKind,
  type ComponentState,
} from './status-types.ts';

const State = Type.Unsafe<ComponentState>({ type: 'string', enum: [...COMPONENT_STATES] });
const Kind = Type.Unsafe<ComponentKind>({ type: 'string', enum: [...COMPONENT_KINDS] });

/** One component (OpenAPI). */
export const StatusComponentSchema = Type.Object(
  {
    id: Type.String({
      description: 'stable id: `service:<job>/<instance>`, `host:<host>`, `siem:<name>`, …',
    }),
    kind: Kind,
    name: Type.String(),
    state: State,
    reason: Type.Union([Type.String(), Type.Null()], { description: 'why it is not up; null when up' }),
    since: Type.String({
      format: 'date-time',
      description: 'when this instance first saw the current state',
    }),
    labels: Type.Record(Type.String(), Type.String()),
  },
  { additionalProperties: false },
);

const SnapshotFields = {
  event_id: Type.String({ description: 'id of the last event folded in; resume from it with Last-Event-ID' }),
  provider: Type.Union([Type.Literal('prometheus'), Type.Literal('builtin')]),
  polled_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'last completed poll; null before the first',
  }),
  components: Type.Array(StatusComponentSchema, { description: 'sorted by id' }),
};

/** Body of GET /api/platform-status. */
export const SnapshotBody = Type.Object({ ok: Type.Literal(true), ...SnapshotFields });

/** Data of a `snapshot` event. */
export const SnapshotEventData = Type.Object(
  {
    cause: Type.Union([Type.Literal('connect'), Type.Literal('reset')], {
      description: '`reset`: the Last-Event-ID sent could not be resumed; replace all state',
    }),
    ...SnapshotFields,
  },
  { title: 'snapshot' },
);

/** Data of a `status` event. */
export const StatusEventData = Type.Object(
  {
    change: Type.Union([Type.Literal('added'), Type.Literal('changed'), Type.Literal('removed')]),
    at: Type.String({ format: 'date-time' }),
    component: StatusComponentSchema,
    previous: Type.Union([
      Type.Object({
        state: State,
        reason: Type.Union([Type.String(), Type.Null()]),
        since: Type.String({ format: 'date-time' }),
      }),
      Type.Null(),
    ]),
  },
  { title: 'status' },
);

/** Data of an `end` event. */
export const EndEventData = Type.Object(
  {
    reason: Type.Union([
      Type.Literal('session_ended'),
      Type.Literal('session_expired'),
      Type.Literal('shutdown'),
    ]),
  },
  { title: 'end' },
);
