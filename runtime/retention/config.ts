// The `retention` config section: the bounds of the store and when pruning runs.
// Defaults suit a 32 GB SD card or eMMC; 0 switches a bound off.
import cron from 'node-cron';
import { z } from 'zod';

const GiB = 1024 * 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;
const nonNegative = z.number().min(0);
const bytes = z.number().int().min(0);

const perTenant = z.union([z.literal('share'), z.number().int().min(0)]).default('share');

export const retentionSchema = z.strictObject({
  /** a final classification older than this many days is pruned (fractions allowed; 0 = no age bound) */
  max_age_days: nonNegative.default(30),
  /** at most this many classifications are kept (0 = no count bound) */
  max_count: z.number().int().min(0).default(100_000),
  /** at most this many bytes of media (original clips plus highlights; 0 = no byte bound) */
  max_media_bytes: bytes.default(20 * GiB),
  /** keep at least this much free space on the data volume; uploads get 507 below it (0 = no minimum) */
  min_free_bytes: bytes.default(2 * GiB),
  /** original clips are removed after this many days, the result and highlight stay (0 = as long as the result) */
  clip_max_age_days: nonNegative.default(0),
  /** when the full prune runs (node-cron syntax; a leading sixth field is seconds) */
  schedule: z
    .string()
    .min(1)
    .refine((s) => cron.validate(s), 'not a valid cron expression, e.g. "*/15 * * * *"')
    .default('*/15 * * * *'),
  /** classifications deleted per batch; free space and totals are measured again between batches */
  batch_size: z.number().int().positive().default(200),
  /** classifications kept per tenant: "share" (max_count divided among the configured tenants), a number, or 0 (no tenant bound) */
  tenant_max_count: perTenant,
  /** media bytes per tenant: "share" (max_media_bytes divided among the configured tenants), a number, or 0 (no tenant bound) */
  tenant_max_media_bytes: perTenant,
});

export type RetentionConfig = z.infer<typeof retentionSchema>;

/** The bounds in the units the pruner works in. */
export interface RetentionLimits {
  maxAgeMs: number;
  maxCount: number;
  maxMediaBytes: number;
  minFreeBytes: number;
  clipMaxAgeMs: number;
  batchSize: number;
  /** per tenant, so one tenant's burst cannot evict another's results (0: none) */
  tenantMaxCount: number;
  tenantMaxMediaBytes: number;
}

/** A tenant's bound: an explicit number, or its share of the global bound (none when the global one is off). */
function tenantBound(setting: 'share' | number, global: number, tenants: number): number {
  if (setting !== 'share') return setting;
  if (global <= 0 || tenants <= 1) return 0; // one tenant: its share is the global bound itself
  return Math.max(1, Math.floor(global / Math.max(1, tenants)));
}

export function retentionLimits(c: RetentionConfig, tenants = 1): RetentionLimits {
  return {
    tenantMaxCount: tenantBound(c.tenant_max_count, c.max_count, tenants),
    tenantMaxMediaBytes: tenantBound(c.tenant_max_media_bytes, c.max_media_bytes, tenants),
    maxAgeMs: c.max_age_days * DAY_MS,
    maxCount: c.max_count,
    maxMediaBytes: c.max_media_bytes,
    minFreeBytes: c.min_free_bytes,
    clipMaxAgeMs: c.clip_max_age_days * DAY_MS,
    batchSize: c.batch_size,
  };
}
