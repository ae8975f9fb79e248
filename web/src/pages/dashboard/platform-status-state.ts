import type { paths } from '../../api/schema.gen.ts';

/** Body of GET /api/platform-status (the console's first paint). */
export type StatusSnapshotBody =
  paths['/api/platform-status']['get']['responses'][200]['content']['application/json'];

type StreamData =
  paths['/api/platform-status/events']['get']['responses'][200]['content']['text/event-stream'];

/** Data of a `snapshot` event: the full state. */
export type SnapshotEventData = Extract<StreamData, { cause: unknown }>;
/** Data of a `status` event: one component added, changed or removed. */
export type StatusEventData = Extract<StreamData, { change: unknown }>;
/** Data of an `end` event: the server closes the stream on purpose. */
export type EndEventData = Extract<StreamData, { reason: unknown }>;

export type StatusComponent = StatusSnapshotBody['components'][number];
export type ComponentState = StatusComponent['state'];
export type ProviderName = StatusSnapshotBody['provider'];
export type EndReason = EndEventData['reason'];

/** Changes kept per component, and in the page-wide log (this page's life only). */
export const HISTORY_PER_COMPONENT = 10;
export const HISTORY_ALL = 50;

/** One change this page saw. */
export interface HistoryEntry {
  /** Unique within the page, for lists. */
  readonly key: string;
  readonly componentId: string;
  readonly name: string;
  readonly change: StatusEventData['change'];
  /** When the change happened (the poll's time, or the new state's `since` when found by a snapshot). */
  readonly at: string;
  /** The component's state and reason after the change (for `removed`: as last seen). */
  readonly state: ComponentState;
  readonly reason: string | null;
  /** What it was before (`changed` only): the state, its reason and since when it held. */
  readonly previous: {
    readonly state: ComponentState;
    readonly reason: string | null;
    readonly since: string;
  } | null;
  /** `stream`: a `status` event; `snapshot`: found by comparing a new snapshot with what was shown. */
  readonly via: 'stream' | 'snapshot';
}

export interface PlatformStatusState {
  /** Every component, sorted by id. */
  readonly components: readonly StatusComponent[];
  readonly provider: ProviderName | null;
  readonly polledAt: string | null;
  /** Id of the last event folded in. */
  readonly eventId: string | null;
  /** Where the components come from so far. */
  readonly source: 'none' | 'initial' | 'stream';
  /** Per component id, newest first, at most HISTORY_PER_COMPONENT. */
  readonly history: Readonly<Record<string, readonly HistoryEntry[]>>;
  /** Every change seen, newest first, at most HISTORY_ALL. */
  readonly changes: readonly HistoryEntry[];
  /** Set when the stream failed; cleared by the next event (or a reopened stream). */
  readonly staleSince: string | null;
  /** `closed`: the browser gave up reconnecting (or the session ended). */
  readonly connection: 'connecting' | 'open' | 'closed';
  /** The reason of the last `end` event, until the next event. */
  readonly ended: EndReason | null;
  /** Counter for entry keys. */
  readonly seq: number;
}

/** What the hook feeds the reducer; `receivedAt` keeps the reducer pure. */
export type StatusAction =
  | { readonly type: 'initial'; readonly data: StatusSnapshotBody; readonly receivedAt: string }
  | {
      readonly type: 'snapshot';
      readonly data: SnapshotEventData;
      readonly id?: string;
      readonly receivedAt: string;
    }
  | {
      readonly type: 'status';
      readonly data: StatusEventData;
      readonly id?: string;
      readonly receivedAt: string;
    }
  | { readonly type: 'end'; readonly data: EndEventData; readonly receivedAt: string }
  | { readonly type: 'open'; readonly receivedAt: string }
  | { readonly type: 'error'; readonly closed: boolean; readonly receivedAt: string };

export const initialStatusState: PlatformStatusState = {
  components: [],
  provider: null,
  polledAt: null,
  eventId: null,
  source: 'none',
  history: {},
  changes: [],
  staleSince: null,
  connection: 'connecting',
  ended: null,
  seq: 0,
};

const byId = (a: StatusComponent, b: StatusComponent) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The later of two ISO 8601 times (null counts as earliest). */
function later(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return Date.parse(b) > Date.parse(a) ? b : a;
}

/** Adds entries (oldest first) to the per-component and page-wide histories. */
function record(
  state: PlatformStatusState,
  entries: readonly Omit<HistoryEntry, 'key'>[],
): PlatformStatusState {
  if (entries.length === 0) return state;
  let seq = state.seq;
  const history: Record<string, readonly HistoryEntry[]> = { ...state.history };
  let changes = state.changes;
  for (const entry of entries) {
    seq += 1;
    const keyed: HistoryEntry = { ...entry, key: `${seq}` };
    history[entry.componentId] = [keyed, ...(history[entry.componentId] ?? [])].slice(
      0,
      HISTORY_PER_COMPONENT,
    );
    changes = [keyed, ...changes].slice(0, HISTORY_ALL);
  }
  return { ...state, seq, history, changes };
}

/** What changed between the components shown and a new snapshot (after a gap or a reset). */
function diff(
  before: readonly StatusComponent[],
  after: readonly StatusComponent[],
  polledAt: string | null,
  receivedAt: string,
): Omit<HistoryEntry, 'key'>[] {
  const old = new Map(before.map((c) => [c.id, c]));
  const now = new Map(after.map((c) => [c.id, c]));
  const entries: Omit<HistoryEntry, 'key'>[] = [];
  for (const c of after) {
    const was = old.get(c.id);
    const base = {
      componentId: c.id,
      name: c.name,
      state: c.state,
      reason: c.reason,
      via: 'snapshot' as const,
    };
    if (!was) entries.push({ ...base, change: 'added', at: c.since, previous: null });
    else if (was.state !== c.state || was.reason !== c.reason) {
      const at = was.state !== c.state ? c.since : (polledAt ?? receivedAt);
      entries.push({
        ...base,
        change: 'changed',
        at,
        previous: { state: was.state, reason: was.reason, since: was.since },
      });
    }
  }
  for (const c of before) {
    if (now.has(c.id)) continue;
    entries.push({
      componentId: c.id,
      name: c.name,
      change: 'removed',
      at: polledAt ?? receivedAt,
      state: c.state,
      reason: c.reason,
      previous: null,
      via: 'snapshot',
    });
  }
  return entries.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

/** Reached once an event arrived: the stream is live again. */
function live(state: PlatformStatusState): PlatformStatusState {
  return { ...state, staleSince: null, ended: null, connection: 'open' };
}

/**
 * Folds one platform-status event (or a connection change) into the page's state. Pure: times come
 * in the action.
 */
export function applyStatusEvent(state: PlatformStatusState, action: StatusAction): PlatformStatusState {
  switch (action.type) {
    case 'initial': {
      // First paint only: once the stream spoke, its state is newer.
      if (state.source !== 'none') return state;
      return {
        ...state,
        components: [...action.data.components].sort(byId),
        provider: action.data.provider,
        polledAt: action.data.polled_at,
        eventId: action.data.event_id,
        source: 'initial',
      };
    }
    case 'snapshot': {
      const components = [...action.data.components].sort(byId);
      const found =
        state.source === 'none'
          ? []
          : diff(state.components, components, action.data.polled_at, action.receivedAt);
      return record(
        live({
          ...state,
          components,
          provider: action.data.provider,
          polledAt: action.data.polled_at,
          eventId: action.id ?? action.data.event_id,
          source: 'stream',
        }),
        found,
      );
    }
    case 'status': {
      const { change, component, previous, at } = action.data;
      const rest = state.components.filter((c) => c.id !== component.id);
      const components = change === 'removed' ? rest : [...rest, component].sort(byId);
      return record(
        live({
          ...state,
          components,
          polledAt: later(state.polledAt, at),
          eventId: action.id ?? state.eventId,
          source: 'stream',
        }),
        [
          {
            componentId: component.id,
            name: component.name,
            change,
            at,
            state: component.state,
            reason: component.reason,
            previous,
            via: 'stream',
          },
        ],
      );
    }
    case 'end':
      return {
        ...state,
        ended: action.data.reason,
        connection: action.data.reason === 'shutdown' ? state.connection : 'closed',
      };
    case 'open':
      // A reopened stream replays exactly what was missed (possibly nothing): the page is current.
      return {
        ...state,
        staleSince: null,
        connection: 'open',
        ended: state.ended === 'shutdown' ? null : state.ended,
      };
    case 'error':
      return {
        ...state,
        staleSince: state.staleSince ?? action.receivedAt,
        connection: action.closed ? 'closed' : 'connecting',
      };
  }
}
