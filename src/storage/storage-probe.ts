import type { StatusProbe } from '../platform-status/status-probes.ts';
import type { ObjectStorage } from './object-storage.ts';

/** The platform-status probe of object storage: up while every bucket is reachable and writable. */
export function storageProbe(storage: ObjectStorage): StatusProbe {
  return {
    id: 'storage',
    kind: 'storage',
    name: 'Object storage',
    labels: { backend: storage.backend },
    async check(signal) {
      const result = await storage.check(signal);
      return result.ok ? { state: 'up' } : { state: 'down', reason: result.message };
    },
  };
}
