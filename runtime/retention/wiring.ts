// Builds the retention parts for the daemon: the feature to start and the
// upload admission hook for the classification routes.
import type { Context } from 'koa';
import type { EventBus } from '../core/bus.js';
import type { Feature } from '../core/feature.js';
import type { Logger } from '../core/log.js';
import type { Database } from '../store/db.js';
import type { MediaFiles } from '../store/media-files.js';
import { retentionLimits, type RetentionConfig } from './config.js';
import { storageAdmission } from './admission.js';
import { diskSpace } from '../core/disk-space.js';
import { Pruner, type ClassificationDeleter } from './pruner.js';
import { RetentionQueries } from './retention-queries.js';
import { Retention } from './retention-feature.js';

export interface RetentionParts {
  feature: Feature;
  admission: (ctx: Context) => Promise<void>;
}

export function buildRetention(
  config: RetentionConfig,
  deps: {
    db: Database; files: MediaFiles; deleter: ClassificationDeleter; bus: EventBus; log: Logger; tenantCount: number;
    /** the job runner's word that accepted clips are stuck on a full volume */
    jobsWaitingForSpace: () => boolean;
  },
): RetentionParts {
  const log = deps.log.child('retention');
  const queries = new RetentionQueries(deps.db);
  const pruner = new Pruner({
    queries,
    deleter: deps.deleter,
    files: deps.files,
    disk: () => diskSpace(deps.files.dataDir),
    limits: retentionLimits(config, deps.tenantCount),
    log,
    bus: deps.bus,
  });
  return {
    feature: new Retention({ pruner, queries, files: deps.files, bus: deps.bus, schedule: config.schedule, log }),
    admission: storageAdmission(pruner, deps.jobsWaitingForSpace),
  };
}
