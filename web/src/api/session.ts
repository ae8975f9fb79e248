import { useQuery } from '@tanstack/react-query';
import { api, call } from './client.ts';

/** The signed-in user (GET /api/me); a 401 sends the console to sign-in (see App). */
export function useMe() {
  return useQuery({ queryKey: ['me'], queryFn: () => call(api.GET('/api/me')), staleTime: 60_000 });
}

/** A signed-in user's capability set. */
export type Capabilities = ReadonlySet<string>;

/** Whether the signed-in user holds `capability` (the server still decides every request). */
export function useCan(capability: string): boolean {
  const me = useMe();
  return me.data?.user.capabilities.includes(capability) ?? false;
}
