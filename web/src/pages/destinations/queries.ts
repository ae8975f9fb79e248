import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client.ts';
import type { DestinationView } from './types.ts';

/** Query keys of this page: the list, one destination, the kinds, the SIEMs' live state. */
export const keys = {
  all: ['destinations'] as const,
  one: (name: string) => ['destinations', 'one', name] as const,
  kinds: ['siem-kinds'] as const,
  status: ['destinations', 'platform-status'] as const,
};

/** The SIEM kinds with their settings schemas; they change only with a new version of the service. */
export function useKinds() {
  return useQuery({
    queryKey: keys.kinds,
    queryFn: () => call(api.GET('/api/siem-kinds')),
    staleTime: 5 * 60_000,
  });
}

/** Every destination. */
export function useDestinations() {
  return useQuery({ queryKey: keys.all, queryFn: () => call(api.GET('/api/destinations')) });
}

/** One destination by name. */
export function useDestination(name: string) {
  return useQuery({
    queryKey: keys.one(name),
    queryFn: () => call(api.GET('/api/destinations/{name}', { params: { path: { name } } })),
  });
}

/** The SIEMs' state as the platform status sees it, by destination name (`siem:<name>` components). */
export function useSiemStates() {
  return useQuery({
    queryKey: keys.status,
    queryFn: () => call(api.GET('/api/platform-status')),
    refetchInterval: 30_000,
    select: (snapshot) =>
      new Map(
        snapshot.components
          .filter((c) => c.kind === 'siem' && c.id.startsWith('siem:'))
          .map((c) => [c.id.slice('siem:'.length), c] as const),
      ),
  });
}

/** Stores a destination answer in the cache and marks the list stale. */
export function useStoreDestination() {
  const queryClient = useQueryClient();
  return (view: DestinationView) => {
    queryClient.setQueryData(keys.one(view.name), view);
    void queryClient.invalidateQueries({ queryKey: keys.all, exact: true });
    // The SIEM list other pages pick from (noise targets, wipe).
    void queryClient.invalidateQueries({ queryKey: ['siems'] });
  };
}

/** Turns a destination on or off (PATCH { enabled }). */
export function useSetEnabled() {
  const store = useStoreDestination();
  return useMutation({
    mutationFn: ({ name, enabled }: { name: string; enabled: boolean }) =>
      call(api.PATCH('/api/destinations/{name}', { params: { path: { name } }, body: { enabled } })),
    onSuccess: store,
  });
}
