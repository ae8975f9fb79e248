import type {
  BulkDestination,
  Destination,
  DriverName,
  HecDestination,
  SyslogDestination,
} from '../destinations/destination-types.ts';
import { AppError } from '../errors.ts';
import { createBulkDriver } from './bulk/bulk-driver.ts';
import { createHecDriver } from './hec/hec-driver.ts';
import type { Driver, DriverDeps } from './siem-client.ts';
import { createSyslogDriver } from './syslog-tcp/syslog-driver.ts';

/** Builds the driver of one kind; the destination is of that kind (checked by {@link createDriver}). */
type Factory = (destination: Destination, deps: DriverDeps) => Driver;

/** One line per driver: adding a fourth is a new folder and a line here (docs/adding-a-destination.md). */
const FACTORIES: Record<DriverName, Factory> = {
  vendorA_hec: (d, deps) => createHecDriver(d as HecDestination, deps),
  vendorB_bulk: (d, deps) => createBulkDriver(d as BulkDestination, deps),
  syslog_tcp: (d, deps) => createSyslogDriver(d as SyslogDestination, deps),
};

/** The driver for a destination, by its `driver` field. */
export function createDriver(destination: Destination, deps: DriverDeps): Driver {
  const factory = FACTORIES[destination.driver] as Factory | undefined;
  if (!factory) throw new AppError('invalid_input', `Unknown SIEM driver "${String(destination.driver)}"`);
  return factory(destination, deps);
}
