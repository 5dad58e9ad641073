// API keys: from the config, from key files, or, when none are configured,
// generated once into the data folder (mode 0600) so a fresh install is never
// open to anyone on the network and the installer knows where the key is.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../core/log.js';
import type { Config } from './schema.js';

export function readKeyFile(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new Error(`cannot read key file ${file}: ${(err as NodeJS.ErrnoException).code ?? err}`);
  }
}

/** The key stored in the data folder under this name, created if missing. */
export function generatedKey(dataDir: string, name: string, log: Logger): string {
  const file = path.join(dataDir, 'secrets', `${name}.key`);
  if (fs.existsSync(file)) return readKeyFile(file);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const key = crypto.randomBytes(24).toString('base64url');
  fs.writeFileSync(file, key + '\n', { mode: 0o600, flag: 'wx' });
  log.warn('no key configured: generated one', { for: name, key_file: file });
  return key;
}

export interface ResolvedKeys {
  tenants: Map<string, string>;
  admin: Set<string>;
  /** tenant -> default flow */
  defaultFlows: Map<string, string>;
}

export function resolveKeys(config: Config, dataDir: string, log: Logger): ResolvedKeys {
  const tenants = new Map<string, string>();
  const defaultFlows = new Map<string, string>();
  const configured = config.tenants.length
    ? config.tenants
    : [{ id: 'default', api_keys: [generatedKey(dataDir, 'tenant-default', log)], api_key_files: [], default_flow: 'default' }];
  for (const tenant of configured) {
    defaultFlows.set(tenant.id, tenant.default_flow);
    for (const key of [...tenant.api_keys, ...tenant.api_key_files.map(readKeyFile)]) {
      if (tenants.has(key) && tenants.get(key) !== tenant.id) throw new Error(`tenants ${tenants.get(key)} and ${tenant.id} share an API key`);
      tenants.set(key, tenant.id);
    }
  }
  const adminKeys = [...config.admin.api_keys, ...config.admin.api_key_files.map(readKeyFile)];
  const admin = new Set(adminKeys.length ? adminKeys : [generatedKey(dataDir, 'admin', log)]);
  return { tenants, admin, defaultFlows };
}
