// Builds the capture parts from the config: the camera capture feature with its
// tenant route (also for the dashboard), one watch-folder feature per configured folder, and one
// camera watch per camera with watch.enabled.
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Config } from '../config/schema.js';
import type { Feature } from '../core/feature.js';
import type { Mount } from '../core/http-mount.js';
import path from 'node:path';
import { defaultBufferRoot } from './buffer-dir.js';
import { CameraCapture, type CameraCaptureDeps } from './camera-capture.js';
import { captureRoutes } from './capture-routes.js';
import { resolveCameras, resolveWatchFolders } from './resolve.js';
import { CameraWatch, type CameraWatchStatus } from './watch.js';
import { WatchFolderFeature } from './watch-folder.js';

/** what the camera capture needs (its cameras and the event join are made here), and the admission of its route */
export interface CaptureWiringDeps extends Omit<CameraCaptureDeps, 'cameras' | 'joinEvent'> {
  /** extra checks before a recording (disk pressure) */
  admission?: (ctx: Context) => Promise<void>;
}

export interface CaptureParts {
  features: Feature[];
  mount: Mount;
  /** the capture route again under /dashboard, for the dashboard's capture button (session cookie) */
  dashboardRouter: Router;
  /** the watched cameras' states and last events, for views of the gateway (dashboard, Home Assistant) */
  watchStatuses: () => CameraWatchStatus[];
  /** one watched camera's; undefined for a camera that is not watched */
  watchStatus: (camera: string) => CameraWatchStatus | undefined;
}

export function buildCapture(config: Config, deps: CaptureWiringDeps): CaptureParts {
  const cameras = resolveCameras(config);
  const watches = new Map<string, CameraWatch>();
  const defaultRoot = defaultBufferRoot(deps.files.dataDir);
  for (const camera of cameras) {
    if (!camera.watch) continue;
    const root = camera.watch.bufferDir || defaultRoot;
    watches.set(camera.id, new CameraWatch({
      camera: { ...camera, watch: camera.watch },
      bufferDir: path.join(root, camera.id), ownBufferRoot: !camera.watch.bufferDir,
      intake: deps.intake, files: deps.files, bus: deps.bus, log: deps.log.child('watch'),
    }));
  }
  const capture = new CameraCapture({
    cameras,
    intake: deps.intake, store: deps.store, files: deps.files, bus: deps.bus,
    defaultFlows: deps.defaultFlows,
    log: deps.log.child('capture'),
    joinEvent: (id) => watches.get(id)?.join(),
  });
  const watchers = resolveWatchFolders(config).map(
    (folder) => new WatchFolderFeature({ folder, intake: deps.intake, files: deps.files, log: deps.log.child('watch') }),
  );
  const routeDeps = {
    capture, store: deps.store, bus: deps.bus,
    syncTimeoutMs: config.server.sync_timeout_s * 1000,
    admission: deps.admission,
    watchStatus: (id: string) => watches.get(id)?.status(),
  };
  return {
    features: [capture, ...watchers, ...watches.values()],
    mount: { access: 'tenant', router: captureRoutes(routeDeps) },
    dashboardRouter: captureRoutes({ ...routeDeps, prefix: '/dashboard' }),
    watchStatuses: () => [...watches.values()].map((w) => w.status()),
    watchStatus: (camera: string) => watches.get(camera)?.status(),
  };
}
