// Webhook integrations (spec 6.1): a tenant's flow and the receiver's URL.
// Those from the config are synced into the table at start (source 'config',
// read-only over the API); the admin API creates, updates and deletes the
// others (source 'api'). ClassificationStore.finalize reads the table.
import crypto from 'node:crypto';
import type { Database } from '../store/db.js';
import { isoNow } from '../store/time.js';
import type { IntegrationConfig } from './config.js';

export interface Integration {
  id: string;
  type: 'webhook';
  tenant: string;
  flow: string;
  url: string;
  source: 'config' | 'api';
  created_at: string;
}

export type IntegrationFields = Pick<Integration, 'tenant' | 'flow' | 'url'>;

/** Config integrations keep their id across restarts, so their outbox rows and the admin view stay linked. */
export function configIntegrationId(i: IntegrationFields): string {
  return 'config-' + crypto.createHash('sha256').update(`${i.tenant}\n${i.flow}\n${i.url}`).digest('hex').slice(0, 16);
}

export class Integrations {
  constructor(private readonly db: Database) {}

  list(filter: { tenant?: string; flow?: string } = {}): Promise<Integration[]> {
    const where: string[] = [];
    const params: string[] = [];
    if (filter.tenant) {
      where.push('tenant = ?');
      params.push(filter.tenant);
    }
    if (filter.flow) {
      where.push('flow = ?');
      params.push(filter.flow);
    }
    return this.db.all<Integration>(
      `SELECT id, type, tenant, flow, url, source, created_at FROM integrations ${where.length ? 'WHERE ' + where.join(' AND ') : ''}
       ORDER BY created_at, id`,
      params,
    );
  }

  get(id: string): Promise<Integration | undefined> {
    return this.db.get<Integration>('SELECT id, type, tenant, flow, url, source, created_at FROM integrations WHERE id = ?', [id]);
  }

  async create(fields: IntegrationFields): Promise<Integration> {
    const id = crypto.randomUUID();
    await this.db.run(
      `INSERT INTO integrations (id, tenant, flow, type, url, source, created_at) VALUES (?, ?, ?, 'webhook', ?, 'api', ?)`,
      [id, fields.tenant, fields.flow, fields.url, isoNow()],
    );
    return (await this.get(id))!;
  }

  async update(id: string, fields: IntegrationFields): Promise<Integration | undefined> {
    const { changes } = await this.db.run('UPDATE integrations SET tenant = ?, flow = ?, url = ? WHERE id = ?', [
      fields.tenant, fields.flow, fields.url, id,
    ]);
    return changes ? this.get(id) : undefined;
  }

  /** Pending deliveries already queued for it keep their URL and still go out. */
  async remove(id: string): Promise<boolean> {
    const { changes } = await this.db.run('DELETE FROM integrations WHERE id = ?', [id]);
    return changes > 0;
  }

  /** Makes the config-sourced rows equal to the config. */
  syncConfig(configured: IntegrationConfig[]): Promise<{ added: number; removed: number }> {
    return this.db.transaction(async (tx) => {
      const wanted = new Map(configured.map((i) => [configIntegrationId(i), i]));
      const existing = await tx.all<{ id: string }>(`SELECT id FROM integrations WHERE source = 'config'`);
      let removed = 0;
      for (const { id } of existing) {
        if (wanted.has(id)) wanted.delete(id);
        else removed += (await tx.run('DELETE FROM integrations WHERE id = ?', [id])).changes;
      }
      for (const [id, i] of wanted) {
        await tx.run(
          `INSERT INTO integrations (id, tenant, flow, type, url, source, created_at) VALUES (?, ?, ?, 'webhook', ?, 'config', ?)`,
          [id, i.tenant, i.flow, i.url, isoNow()],
        );
      }
      return { added: wanted.size, removed };
    });
  }
}
