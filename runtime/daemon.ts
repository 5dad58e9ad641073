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
import { ErrorCode, PipelineError } from './core/errors.js';
import type { Feature } from './core/feature.js';
import type { Logger } from './core/log.js';
import { Controller } from './controller.js';
import { Intake } from './ingest/intake.js';
import { Deleter } from './jobs/deletion.js';
import { Semaphore } from './jobs/process-job.js';
import { JobRunner } from './jobs/runner.js';
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
    const files = new MediaFiles(dataDir);
    await files.prepare();
    const store = new ClassificationStore(db, { mqtt: false });
    const keys = resolveKeys(config, dataDir, log);

    const classifiers: ClassifierSource = {
      async acquire() {
        throw new PipelineError(ErrorCode.NO_MODEL, 'no model pack is active: run `vigil models pull`');
      },
    };

    const runner = new JobRunner(
      {
        store, files, classifiers,
        renderHighlight: null,
        renderSlots: new Semaphore(config.jobs.render_concurrency),
        maxAttempts: config.jobs.max_attempts,
        log: log.child('jobs'),
      },
      bus,
      { concurrency: jobConcurrency(config), shutdownGraceMs: config.jobs.shutdown_grace_s * 1000 },
    );
    const deleter = new Deleter(store, files, runner, bus, log.child('delete'));
    await deleter.reconcile((ids) => existingIds(db, ids));
    const intake = new Intake(store, files, bus, keys.defaultFlows, log.child('ingest'));

    const mounts: Mount[] = [
      {
        access: 'tenant',
        router: classificationRoutes({
          store, files, intake, deleter, bus,
          maxUploadBytes: config.server.max_upload_bytes,
          syncTimeoutMs: config.server.sync_timeout_s * 1000,
        }),
      },
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
    const features: Feature[] = [runner, http];
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
