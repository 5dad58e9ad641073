// The config section of the dashboard: how long sessions live, how many one
// key may hold, how many live-event streams are allowed, and how many failed
// sign-ins a client address gets before it must wait.
import { z } from 'zod';

export const dashboardSchema = z.strictObject({
  /** a session ends this long after it was opened, however often it is used (besides 12 h unused) */
  session_max_age_h: z.number().positive().default(168),
  /** sessions one key holds at most; signing in once more ends that key's oldest session (never another key's) */
  sessions_per_key: z.number().int().positive().max(1000).default(20),
  /** live-event streams (GET /dashboard/api/events) open at once per session */
  streams_per_session: z.number().int().positive().default(4),
  /** live-event streams open at once per tenant (the admin counts as one) */
  streams_per_tenant: z.number().int().positive().default(32),
  /** failed sign-ins a client address may make per minute; further attempts get 429 until the minute has passed */
  sign_in_failures_per_min: z.number().int().positive().default(10),
});

export type DashboardConfig = z.infer<typeof dashboardSchema>;
