// Shared steps of the delivery tests: the admin API, submitting a clip to a
// flow, and waiting for a classification's deliveries to reach a state.
import { expect } from 'chai';
import type { TestDaemon } from '../support/daemon.js';

export interface DeliveryView {
  id: number;
  target: 'webhook' | 'mqtt';
  integration_id: string | null;
  url: string | null;
  state: 'pending' | 'delivered' | 'dropped';
  status_code: number | null;
  attempts: number;
  last_error: string;
}

export function admin(daemon: TestDaemon, path: string, init: { method?: string; body?: unknown; key?: string } = {}): Promise<Response> {
  return fetch(`${daemon.url}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${init.key ?? daemon.adminKey}`,
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
}

export async function createIntegration(daemon: TestDaemon, flow: string, url: string, tenant = 'tenant-a'): Promise<string> {
  const res = await admin(daemon, '/api/admin/integrations', { method: 'POST', body: { type: 'webhook', tenant, flow, url } });
  expect(res.status, await res.clone().text()).to.equal(201);
  return ((await res.json()) as { id: string }).id;
}

/** Uploads a clip to a flow and returns its id (the result is not awaited). */
export async function submit(daemon: TestDaemon, clip: string, flow: string, key = daemon.tenantKey): Promise<string> {
  return daemon.submit(clip, { flow }, '', key);
}

export async function deliveriesOf(daemon: TestDaemon, id: string): Promise<DeliveryView[]> {
  const res = await admin(daemon, `/api/admin/deliveries/${id}`);
  expect(res.status, await res.clone().text()).to.equal(200);
  return ((await res.json()) as { deliveries: DeliveryView[] }).deliveries;
}

/** Polls the admin delivery view until the check holds; returns the last view. */
export async function waitForDeliveries(
  daemon: TestDaemon,
  id: string,
  check: (d: DeliveryView[]) => boolean,
  timeoutMs = 30_000,
): Promise<DeliveryView[]> {
  const deadline = Date.now() + timeoutMs;
  let last: DeliveryView[] = [];
  while (Date.now() < deadline) {
    last = await deliveriesOf(daemon, id);
    if (check(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`deliveries of ${id} did not reach the expected state: ${JSON.stringify(last)}`);
}

export const webhooks = (d: DeliveryView[]) => d.filter((x) => x.target === 'webhook');

/** Does an MQTT topic filter (with + and # wildcards) match this topic, as a broker matches a subscription? */
export function topicMatches(filter: string, topic: string): boolean {
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return i === f.length - 1;
    if (i >= t.length || (f[i] !== '+' && f[i] !== t[i])) return false;
  }
  return f.length === t.length;
}
