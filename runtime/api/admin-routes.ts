// The admin API (admin key): webhook integrations (list, create, update,
// delete), the delivery state of one classification, and the outbox size.
import Router from '@koa/router';
import type { Context } from 'koa';
import { koaBody } from 'koa-body';
import { z } from 'zod';
import { CLASSIFICATION_ID } from '../core/ids.js';
import { flowName, webhookUrl } from '../delivery/config.js';
import type { Integration, Integrations } from '../delivery/integrations.js';
import type { Outbox } from '../delivery/outbox.js';
import type { ClassificationStore } from '../store/classifications.js';
import { isoNow } from '../store/time.js';
import { deliveryView } from './delivery-view.js';
import { ApiError, notFound } from './errors.js';

export interface AdminRoutesDeps {
  integrations: Integrations;
  outbox: Outbox;
  store: ClassificationStore;
  /** tenant id -> its default flow */
  tenants: Map<string, string>;
  /** deliveries dropped by the outbox policy since start, by reason */
  droppedSinceStart?: () => Record<string, number>;
}

/** the body of POST /api/admin/integrations (also the OpenAPI document's) */
export const createIntegrationBody = z.strictObject({
  type: z.literal('webhook').default('webhook'),
  tenant: z.string().min(1),
  /** the tenant's default_flow when absent */
  flow: flowName.optional(),
  url: webhookUrl,
});
/** the body of PUT /api/admin/integrations/<id> */
export const updateIntegrationBody = z.strictObject({
  type: z.literal('webhook').optional(),
  tenant: z.string().min(1).optional(),
  flow: flowName.optional(),
  url: webhookUrl.optional(),
});

const json = koaBody({ json: true, jsonStrict: true, jsonLimit: '64kb', multipart: false, urlencoded: false, text: false });

function parseBody<T>(schema: z.ZodType<T>, ctx: Context): T {
  const parsed = schema.safeParse(ctx.request.body ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
  throw new ApiError(400, 'invalid_integration', problems);
}

const iso = (ms: number | null) => (ms === null ? null : isoNow(new Date(ms)));

export function adminRoutes(deps: AdminRoutesDeps): Router {
  const router = new Router({ prefix: '/api/admin' });

  const knownTenant = (tenant: string) => {
    if (!deps.tenants.has(tenant)) throw new ApiError(400, 'unknown_tenant', `no tenant "${tenant}" is configured`);
  };
  const editable = async (id: string): Promise<Integration> => {
    const found = await deps.integrations.get(id);
    if (!found) throw notFound('integration');
    if (found.source === 'config') {
      throw new ApiError(409, 'config_integration', 'this integration comes from the config file; change it there');
    }
    return found;
  };
  // Two integrations of one flow with one URL would POST the same result twice to one endpoint.
  const unique = async (fields: { tenant: string; flow: string; url: string }, self?: string) => {
    const same = (await deps.integrations.list({ tenant: fields.tenant, flow: fields.flow })).find((i) => i.url === fields.url && i.id !== self);
    if (same) throw new ApiError(409, 'duplicate_integration', `integration ${same.id} already sends this flow to this URL`);
  };

  router.get('/integrations', async (ctx) => {
    const tenant = typeof ctx.query.tenant === 'string' ? ctx.query.tenant : undefined;
    const flow = typeof ctx.query.flow === 'string' ? ctx.query.flow : undefined;
    ctx.body = { integrations: await deps.integrations.list({ tenant, flow }) };
  });

  router.get('/integrations/:id', async (ctx) => {
    const found = await deps.integrations.get(ctx.params.id);
    if (!found) throw notFound('integration');
    ctx.body = found;
  });

  router.post('/integrations', json, async (ctx) => {
    const body = parseBody(createIntegrationBody, ctx);
    knownTenant(body.tenant);
    const fields = { tenant: body.tenant, flow: body.flow ?? deps.tenants.get(body.tenant)!, url: body.url };
    await unique(fields);
    ctx.status = 201;
    ctx.body = await deps.integrations.create(fields);
  });

  router.put('/integrations/:id', json, async (ctx) => {
    const current = await editable(ctx.params.id);
    const body = parseBody(updateIntegrationBody, ctx);
    const next = { tenant: body.tenant ?? current.tenant, flow: body.flow ?? current.flow, url: body.url ?? current.url };
    knownTenant(next.tenant);
    await unique(next, current.id);
    const updated = await deps.integrations.update(current.id, next);
    if (!updated) throw notFound('integration');
    ctx.body = updated;
  });

  router.delete('/integrations/:id', async (ctx) => {
    await editable(ctx.params.id);
    if (!(await deps.integrations.remove(ctx.params.id))) throw notFound('integration');
    ctx.status = 204;
  });

  router.get('/deliveries/:id', async (ctx) => {
    const id = ctx.params.id;
    if (!CLASSIFICATION_ID.test(id)) throw new ApiError(400, 'invalid_id', 'a classification id is a lowercase UUID');
    const row = await deps.store.get(id);
    if (!row) throw notFound();
    ctx.body = {
      classification_id: row.id,
      tenant: row.tenant,
      flow: row.flow,
      final: row.final === 1,
      deliveries: (await deps.outbox.forClassification(id)).map(deliveryView),
    };
  });

  router.get('/outbox', async (ctx) => {
    const s = await deps.outbox.summary();
    ctx.body = {
      total: s.total,
      pending: s.pending,
      delivered: s.delivered,
      dropped: s.dropped,
      by_target: s.by_target,
      oldest_pending_at: iso(s.oldest_pending_ms),
      dropped_since_start: deps.droppedSinceStart?.() ?? {},
    };
  });

  return router;
}
