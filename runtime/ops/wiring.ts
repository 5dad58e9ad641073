// Builds the operations part of the daemon: the readiness registry (with the
// database and disk checks; other parts register theirs), the gateway's status
// (the read model of /metrics, the dashboard and MQTT), the metrics, the public
// health/metrics routes and the systemd notifier.
import type { Config } from '../config/schema.js';
import type { EventBus } from '../core/bus.js';
import type { Mount } from '../core/http-mount.js';
import type { Logger } from '../core/log.js';
import type { ModelService } from '../models/model-service.js';
import type { Database } from '../store/db.js';
import { databaseCheck, diskCheck, minFreeBytes } from './core-checks.js';
import { healthRoutes } from './health-routes.js';
import { Metrics } from './metrics.js';
import { SystemdNotifier } from './notify.js';
import { Readiness } from './readiness.js';
import { runtimeVersion } from './version.js';
import { GatewayStatusReader } from './status.js';

export interface Ops {
  readiness: Readiness;
  /** start it before the parts whose events it counts */
  metrics: Metrics;
  /** the gateway's status behind /metrics, the dashboard and MQTT; start it before MQTT (it counts the connection from events) */
  status: GatewayStatusReader;
  /** start it last (READY=1 once everything listens), so it stops first (STOPPING=1) */
  notifier: SystemdNotifier;
  mount: Mount;
}

export function buildOps(
  config: Config,
  deps: { db: Database; bus: EventBus; dataDir: string; databaseFile: string; models: Pick<ModelService, 'status' | 'packStore'>; log: Logger },
): Ops {
  const readiness = new Readiness();
  readiness.register('database', databaseCheck(deps.db));
  readiness.register('disk', diskCheck(deps.dataDir, minFreeBytes(config)));
  const status = new GatewayStatusReader({
    db: deps.db, bus: deps.bus, readiness, models: deps.models, dataDir: deps.dataDir, databaseFile: deps.databaseFile,
    retention: config.retention, mqtt: config.mqtt, version: runtimeVersion(),
  });
  const metrics = new Metrics({ bus: deps.bus, db: deps.db, status, version: runtimeVersion() });
  const notifier = new SystemdNotifier(deps.log.child('systemd'), {
    readyStatus: `listening on ${config.server.host}:${config.server.port}`,
  });
  return { readiness, metrics, status, notifier, mount: { access: 'public', router: healthRoutes({ readiness, metrics }) } };
}
