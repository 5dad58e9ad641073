// The public operations endpoints (no key, nothing secret in them):
//   GET /healthz  the process answers (liveness)
//   GET /readyz   every readiness check passes (503 with each check's status otherwise)
//   GET /metrics  Prometheus text
import Router from '@koa/router';
import { PROMETHEUS_CONTENT_TYPE, type Metrics } from './metrics.js';
import type { Readiness } from './readiness.js';

export function healthRoutes(deps: { readiness: Readiness; metrics: Metrics }): Router {
  const router = new Router();

  router.get('/healthz', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'ok' };
  });

  router.get('/readyz', async (ctx) => {
    const report = await deps.readiness.run();
    ctx.set('Cache-Control', 'no-store');
    ctx.status = report.ok ? 200 : 503;
    ctx.body = { status: report.ok ? 'ready' : 'not_ready', checks: report.checks };
    // a 503 here answers the question asked (probes poll it while the daemon starts): no refusal
    ctx.state.answeredWithStatus = true;
  });

  router.get('/metrics', async (ctx) => {
    const text = await deps.metrics.render();
    ctx.set('Cache-Control', 'no-store');
    ctx.type = PROMETHEUS_CONTENT_TYPE;
    ctx.body = text;
  });

  return router;
}
