// Builds the capture parts from the config: the camera capture feature with its
// tenant route (also for the dashboard), and one watch-folder feature per configured folder.
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Mount } from '../api/server.js';
import type { Config } from '../config/schema.js';
import type { EventBus } from '../core/bus.js';
import type { Feature } from '../core/feature.js';
import type { Logger } from '../core/log.js';
import type { Intake } from '../ingest/intake.js';
import type { ClassificationStore } from '../store/classifications.js';
import type { MediaFiles } from '../store/media-files.js';
import { CameraCapture } from './camera-capture.js';
import { captureRoutes } from './capture-routes.js';
import { resolveCameras, resolveWatchFolders } from './resolve.js';
import { WatchFolderFeature } from './watch-folder.js';

export interface CaptureWiringDeps {
  intake: Intake;
  store: ClassificationStore;
  files: MediaFiles;
  bus: EventBus;
  defaultFlows: Map<string, string>;
  log: Logger;
  /** extra checks before a recording (disk pressure) */
  admission?: (ctx: Context) => Promise<void>;
}

export function buildCapture(config: Config, deps: CaptureWiringDeps): { features: Feature[]; mount: Mount; dashboardRouter: Router } {
  const capture = new CameraCapture({
    cameras: resolveCameras(config),
    intake: deps.intake, store: deps.store, files: deps.files, bus: deps.bus,
    defaultFlows: deps.defaultFlows,
    log: deps.log.child('capture'),
  });
  const watchers = resolveWatchFolders(config).map(
    (folder) => new WatchFolderFeature({ folder, intake: deps.intake, files: deps.files, log: deps.log.child('watch') }),
  );
  const routeDeps = {
    capture, store: deps.store, bus: deps.bus,
    syncTimeoutMs: config.server.sync_timeout_s * 1000,
    admission: deps.admission,
  };
  // the same route under /dashboard answers the dashboard's capture button (session cookie)
  return {
    features: [capture, ...watchers],
    mount: { access: 'tenant', router: captureRoutes(routeDeps) },
    dashboardRouter: captureRoutes({ ...routeDeps, prefix: '/dashboard' }),
  };
}
