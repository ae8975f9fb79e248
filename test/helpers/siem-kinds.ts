import type { Config } from '../../src/config.ts';
import type { Destination } from '../../src/destinations/destination-types.ts';
import { builtinSiemKinds } from '../../src/siems/registry.ts';
import type { SiemClient } from '../../src/siems/siem-client.ts';
import type { AnySiemKind } from '../../src/siems/siem-kind.ts';

/** Builds a destination's client in a test: `real()` is the one its kind would build. */
export type ClientWrapper = (destination: Destination, real: () => SiemClient) => SiemClient;

/** A kind that builds its clients through `wrap` (to record, fail or slow them); all else is the kind's. */
export function wrapClients(kind: AnySiemKind, wrap: ClientWrapper): AnySiemKind {
  return { ...kind, create: (destination, deps) => wrap(destination, () => kind.create(destination, deps)) };
}

/** The built-in kinds, their clients built through `wrap`: a `siemKinds` context override. */
export function builtinKindsWith(
  wrap: ClientWrapper,
): (config: Pick<Config, 'hecRetryNotFound'>) => AnySiemKind[] {
  return (config) =>
    builtinSiemKinds({ hecRetryNotFound: config.hecRetryNotFound }).map((kind) => wrapClients(kind, wrap));
}
