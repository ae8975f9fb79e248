import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useReducer, useState } from 'react';
import { useNavigate } from 'react-router';
import { api, call } from '../../api/client.ts';
import {
  applyStatusEvent,
  type EndEventData,
  initialStatusState,
  type PlatformStatusState,
  type SnapshotEventData,
  type StatusEventData,
} from './platform-status-state.ts';

/** The platform-status stream (server-sent events, same origin: the session cookie rides along). */
export const STATUS_EVENTS_URL = '/api/platform-status/events';
/** Where the console goes when the server ends the stream because the session is gone. */
export const SESSION_ENDED_URL = '/sign-in?expired=1&next=/';

// EventSource.CLOSED, without relying on the global's static fields.
const CLOSED = 2;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

/** The event's JSON data, or null when it is not an object (a malformed event is ignored). */
function parse(event: Event): Record<string, unknown> | null {
  if (!(event instanceof MessageEvent) || typeof event.data !== 'string') return null;
  try {
    const data: unknown = JSON.parse(event.data);
    return isObject(data) ? data : null;
  } catch {
    return null;
  }
}

const eventId = (event: Event) =>
  event instanceof MessageEvent && typeof event.lastEventId === 'string' && event.lastEventId !== ''
    ? event.lastEventId
    : undefined;

export interface PlatformStatus {
  readonly state: PlatformStatusState;
  /** The first-paint request failed (and the stream has not spoken yet). */
  readonly initialError: unknown;
  /** Opens a new stream after the browser gave up on the old one. */
  readonly reconnect: () => void;
}

/**
 * Live platform status: GET /api/platform-status for the first paint, then the event stream (the
 * browser reconnects with Last-Event-ID by itself). A session that ended sends the console to sign-in.
 */
export function usePlatformStatus(): PlatformStatus {
  const [state, dispatch] = useReducer(applyStatusEvent, initialStatusState);
  const [generation, setGeneration] = useState(0);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const first = useQuery({
    queryKey: ['platform-status'],
    queryFn: () => call(api.GET('/api/platform-status')),
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
  });

  useEffect(() => {
    if (first.data) dispatch({ type: 'initial', data: first.data, receivedAt: new Date().toISOString() });
  }, [first.data]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `generation` opens a new stream on purpose
  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    const source = new EventSource(STATUS_EVENTS_URL);
    const now = () => new Date().toISOString();
    source.addEventListener('open', () => dispatch({ type: 'open', receivedAt: now() }));
    source.addEventListener('error', () =>
      dispatch({ type: 'error', closed: source.readyState === CLOSED, receivedAt: now() }),
    );
    source.addEventListener('snapshot', (event) => {
      const data = parse(event);
      if (!data || !Array.isArray(data.components)) return;
      dispatch({ type: 'snapshot', data: data as SnapshotEventData, id: eventId(event), receivedAt: now() });
    });
    source.addEventListener('status', (event) => {
      const data = parse(event);
      if (!data || !isObject(data.component) || typeof data.component.id !== 'string') return;
      dispatch({ type: 'status', data: data as StatusEventData, id: eventId(event), receivedAt: now() });
    });
    source.addEventListener('end', (event) => {
      const data = parse(event);
      if (!data || typeof data.reason !== 'string') return;
      // Shutdown: the browser reconnects (to this instance restarted, or another). Otherwise the
      // session is gone and reconnecting would only meet a 401.
      if (data.reason !== 'shutdown') source.close();
      dispatch({ type: 'end', data: data as EndEventData, receivedAt: now() });
    });
    return () => source.close();
  }, [generation]);

  useEffect(() => {
    if (state.ended === 'session_ended' || state.ended === 'session_expired') {
      // Nothing of the previous user's stays in memory for whoever signs in next on this tab.
      queryClient.clear();
      void navigate(SESSION_ENDED_URL, { replace: true });
    }
  }, [state.ended, navigate, queryClient]);

  // The browser gave up (e.g. the stream answered 401): ask the API once, so a lost session ends at
  // sign-in through the console's usual 401 handling.
  const { refetch } = first;
  useEffect(() => {
    if (state.connection === 'closed' && state.ended === null) void refetch();
  }, [state.connection, state.ended, refetch]);

  const reconnect = useCallback(() => setGeneration((g) => g + 1), []);
  return { state, initialError: state.source === 'none' ? first.error : null, reconnect };
}
