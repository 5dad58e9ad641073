// Composition root: builds the daemon's parts from a validated config and
// wires them together. Data flows one way: ingest -> job -> pipeline ->
// result -> delivery; the parts talk through the event bus.
import fs from 'node:fs';
import path from 'node:path';
import { classificationRoutes } from './api/classification-routes.js';
import { Keys } from './api/auth.js';
import { HttpServer, type Mount } from './api/server.js';
import { resolveKeys } from './config/secrets.js';
import { jobConcurrency, type Config } from './config/schema.js';
import { EventBus } from './core/bus.js';
import type { Feature } from './core/feature.js';
import type { Logger } from './core/log.js';
import { Controller } from './controller.js';
import { ModelService } from './models/model-service.js';
import { ModelUpdater } from './models/updater.js';
import { buildDelivery } from './delivery/wiring.js';
import { cameraRulesOf } from './capture/rules.js';
import { Intake } from './ingest/intake.js';
import { Deleter } from './jobs/deletion.js';
import { Semaphore } from './jobs/process-job.js';
import { JobRunner } from './jobs/runner.js';
import { buildRetention } from './retention/wiring.js';
import { buildCapture } from './capture/wiring.js';
import { buildOps, runtimeVersion } from './ops/wiring.js';
import { renderHighlight } from './highlight/render.js';
import type { ClassifierSource } from './jobs/stages.js';
import { Database } from './store/db.js';
import { ClassificationStore, existingIds } from './store/classifications.js';
import { MediaFiles } from './store/media-files.js';

export class Daemon {
  private constructor(
    readonly config: Config,
    readonly db: Database,
    readonly bus: EventBus,
    readonly http: HttpServer,
    private readonly controller: Controller,
    private readonly log: Logger,
  ) {}

  static async create(config: Config, log: Logger): Promise<Daemon> {
    const dataDir = path.resolve(config.storage.data_dir);
    fs.mkdirSync(dataDir, { recursive: true });
    const db = await Database.open(path.resolve(dataDir, config.storage.database));
    const bus = new EventBus(log.child('bus'));
    // readiness registry (parts add their checks to ops.readiness), metrics, /healthz /readyz /metrics, systemd notify
    const ops = buildOps(config, { db, bus, dataDir, databaseFile: path.resolve(dataDir, config.storage.database), log });
    const files = new MediaFiles(dataDir);
    await files.prepare();
    const store = new ClassificationStore(db, { mqtt: config.mqtt.enabled });
    const keys = resolveKeys(config, dataDir, log);

    const models = new ModelService({ models: config.models, inference: config.inference, dataDir }, bus, log.child('models'));
    const classifiers: ClassifierSource = models;
    const modelUpdater = new ModelUpdater(config.models, () => models.packStore, log.child('models'));
    ops.readiness.register('model', async () => {
      const { pack, backend, error } = models.status;
      return pack ? { ok: true, detail: `${pack} on ${backend}` } : { ok: false, detail: error ?? 'no model pack is active yet' };
    });

    const runner = new JobRunner(
      {
        store, files, classifiers,
        renderHighlight,
        renderSlots: new Semaphore(config.jobs.render_concurrency),
        maxAttempts: config.jobs.max_attempts,
        log: log.child('jobs'),
        bus,
        cameraRules: cameraRulesOf(config),
      },
      bus,
      { concurrency: jobConcurrency(config), shutdownGraceMs: config.jobs.shutdown_grace_s * 1000 },
    );
    const deleter = new Deleter(store, files, runner, bus, log.child('delete'));
    await deleter.reconcile((ids) => existingIds(db, ids));
    const intake = new Intake(store, files, bus, keys.defaultFlows, log.child('ingest'));
    const retention = buildRetention(config.retention, { db, files, deleter, bus, log });
    const delivery = await buildDelivery(config, { db, store, files, bus, dataDir, defaultFlows: keys.defaultFlows, version: runtimeVersion(), log });
    const capture = buildCapture(config, { intake, store, files, bus, defaultFlows: keys.defaultFlows, log, admission: retention.admission });

    const mounts: Mount[] = [
      ops.mount,
      {
        access: 'tenant',
        router: classificationRoutes({
          store, files, intake, deleter, bus,
          maxUploadBytes: config.server.max_upload_bytes,
          syncTimeoutMs: config.server.sync_timeout_s * 1000,
          admission: retention.admission,
        }),
      },
      delivery.adminMount,
      capture.mount,
    ];
    const http = new HttpServer({
      host: config.server.host,
      port: config.server.port,
      keys: new Keys({ tenants: keys.tenants, admin: keys.admin }),
      mounts,
      log: log.child('http'),
    });

    // Started in this order, stopped in reverse: the API goes first on shutdown,
    // so no new work arrives while running jobs finish or go back to the queue.
    // Metrics listen before anything emits; the systemd notifier says READY=1 last and STOPPING=1 first.
    const features: Feature[] = [ops.metrics, ...delivery.features, models, modelUpdater, runner, retention.feature, ...capture.features, http, ops.notifier];
    return new Daemon(config, db, bus, http, new Controller(features, log), log);
  }

  async start(): Promise<void> {
    await this.controller.start();
    this.log.info('vigil started');
  }

  async stop(): Promise<void> {
    await this.controller.stop();
    await this.db.close();
    this.log.info('vigil stopped');
  }
}
