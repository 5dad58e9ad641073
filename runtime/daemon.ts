// Composition root: builds the daemon's parts from a validated config and
// wires them together. Data flows one way: ingest -> job -> pipeline ->
// result -> delivery; the parts talk through the event bus.
import fs from 'node:fs';
import path from 'node:path';
import { classificationRoutes } from './api/classification-routes.js';
import { Keys } from './api/auth.js';
import { openApiRoutes } from './api/openapi.js';
import { adminRoutes } from './api/admin-routes.js';
import { HttpServer } from './api/server.js';
import { resolveKeys } from './config/secrets.js';
import { jobConcurrency, type Config } from './config/schema.js';
import { EventBus } from './core/bus.js';
import type { Feature } from './core/feature.js';
import type { Mount } from './core/http-mount.js';
import type { Logger } from './core/log.js';
import { Controller } from './controller.js';
import { ModelService } from './models/model-service.js';
import { ModelUpdater } from './models/updater.js';
import { buildDelivery } from './delivery/wiring.js';
import { cameraRulesOf } from './capture/rules.js';
import { Intake } from './ingest/intake.js';
import { Deleter } from './jobs/deletion.js';
import { Semaphore } from './core/semaphore.js';
import { JobRunner } from './jobs/runner.js';
import { MediaReconciliation } from './jobs/media-reconciliation.js';
import { buildRetention } from './retention/wiring.js';
import { buildCapture } from './capture/wiring.js';
import { buildOps } from './ops/wiring.js';
import { runtimeVersion } from './ops/version.js';
import { GatewayOverview } from './ops/overview.js';
import { IdleCollector } from './ops/idle-collector.js';
import { dashboardUrl } from './dashboard/url.js';
import { buildDashboard } from './dashboard/wiring.js';
import { highlightStage } from './highlight/render.js';
import type { ClassifierSource } from './jobs/stages.js';
import { Database } from './store/db.js';
import { DataLock } from './store/data-lock.js';
import { ClassificationStore, existingClips } from './store/classifications.js';
import { MediaFiles } from './store/media-files.js';

export class Daemon {
  private constructor(
    readonly config: Config,
    readonly db: Database,
    readonly bus: EventBus,
    readonly http: HttpServer,
    private readonly controller: Controller,
    private readonly log: Logger,
    private readonly lock: DataLock,
  ) {}

  static async create(config: Config, log: Logger): Promise<Daemon> {
    const dataDir = path.resolve(config.storage.data_dir);
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    // before anything in the folder is read or changed: a second daemon stops here
    const lock = await DataLock.acquire(dataDir);
    const db = await Database.open(path.resolve(dataDir, config.storage.database));
    const bus = new EventBus(log.child('bus'));
    const models = new ModelService({ models: config.models, inference: config.inference, dataDir }, bus, log.child('models'));
    // readiness registry (parts add their checks to ops.readiness), the gateway's status, metrics, /healthz /readyz /metrics, systemd notify
    const ops = buildOps(config, { db, bus, dataDir, databaseFile: path.resolve(dataDir, config.storage.database), models, log });
    const files = new MediaFiles(dataDir);
    await files.prepare();
    const store = new ClassificationStore(db, { mqtt: config.mqtt.enabled });
    const keys = resolveKeys(config, dataDir, log);

    const classifiers: ClassifierSource = models;
    const modelUpdater = new ModelUpdater(config.models, () => models.packStore, log.child('models'));
    ops.readiness.register('model', async () => {
      const { pack, backend, error } = models.status;
      if (pack) return { ok: true, detail: `${pack} on ${backend}` };
      return { ok: false, detail: models.starting ? `starting: loading ${models.packStore.activeId() ?? `model pack ${config.models.pack}`}` : error ?? 'no model pack is active yet' };
    });

    // the runner waits for the start-up reconciliation, which deletes through the deleter, which cancels the runner's jobs
    let reconciliation: MediaReconciliation | undefined;
    const runner = new JobRunner(
      {
        store, files, classifiers,
        highlight: highlightStage(config.retention.min_free_bytes),
        renderSlots: new Semaphore(config.jobs.render_concurrency),
        maxAttempts: config.jobs.max_attempts,
        log: log.child('jobs'),
        bus,
        cameraRules: cameraRulesOf(config),
      },
      bus,
      { concurrency: jobConcurrency(config), shutdownGraceMs: config.jobs.shutdown_grace_s * 1000, holdUntil: () => reconciliation!.jobsMayRun() },
    );
    const deleter = new Deleter(store, files, runner, bus, log.child('delete'));
    await deleter.finishInterrupted();
    // proportional to the store: started after the API listens, in the background (see MediaReconciliation)
    reconciliation = new MediaReconciliation({ files, store, knownClips: (ids) => existingClips(db, ids), log: log.child('delete') });
    ops.readiness.register('media', async () => reconciliation!.status());
    const intake = new Intake(store, files, bus, keys.defaultFlows, log.child('ingest'));
    const retention = buildRetention(config.retention, { db, files, deleter, bus, log, tenantCount: keys.defaultFlows.size, jobsWaitingForSpace: () => runner.waitingForSpace });
    const delivery = await buildDelivery(config, { db, store, files, bus, defaultFlows: keys.defaultFlows, version: runtimeVersion(), status: ops.status, configurationUrl: dashboardUrl(config.server), log });
    const capture = buildCapture(config, { intake, store, files, bus, defaultFlows: keys.defaultFlows, log, admission: retention.admission });

    const classification = {
      store, files, intake, deleter, bus,
      maxUploadBytes: config.server.max_upload_bytes,
      syncTimeoutMs: config.server.sync_timeout_s * 1000,
      admission: retention.admission,
    };
    const apiKeys = new Keys({ tenants: keys.tenants, admin: keys.admin });
    const dashboard = buildDashboard(config, { keys: apiKeys, tenants: keys.defaultFlows, db, status: new GatewayOverview(ops.status), classification, capture: capture.dashboardRouter, watchStatus: capture.watchStatus, log });

    const admin = adminRoutes({
      integrations: delivery.integrations, outbox: delivery.outbox, store,
      tenants: keys.defaultFlows, droppedSinceStart: delivery.droppedSinceStart,
    });
    const mounts: Mount[] = [
      ops.mount,
      { access: 'public', router: openApiRoutes() },
      { access: 'tenant', router: classificationRoutes(classification) },
      { access: 'admin', router: admin },
      capture.mount,
      ...dashboard.mounts,
    ];
    const http = new HttpServer({
      host: config.server.host,
      port: config.server.port,
      keys: apiKeys,
      mounts,
      log: log.child('http'),
      bodyIdleTimeoutMs: config.server.body_idle_timeout_s * 1000,
      headersTimeoutMs: config.server.headers_timeout_s * 1000,
      bus,
      trustProxy: config.server.trust_proxy,
    });

    // Started in this order, stopped in reverse: the API goes first on shutdown,
    // so no new work arrives while running jobs finish or go back to the queue.
    // Metrics listen before anything emits; the systemd notifier says READY=1 last and STOPPING=1 first.
    // The dashboard's live streams end before the server closes, so it need not cut them.
    const features: Feature[] = [
      ops.metrics, ops.status, ...delivery.features, models, modelUpdater, runner, new IdleCollector({ bus, busy: () => runner.activeCount > 0 }), retention.feature, ...capture.features, http, reconciliation, ...dashboard.features, ops.notifier,
    ];
    return new Daemon(config, db, bus, http, new Controller(features, log), log, lock);
  }

  async start(): Promise<void> {
    await this.controller.start();
    this.log.info('vigil started');
  }

  async stop(): Promise<void> {
    await this.controller.stop();
    await this.db.close();
    await this.lock.release();
    this.log.info('vigil stopped');
  }
}
