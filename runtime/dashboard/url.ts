// The dashboard's address as others reach it (Home Assistant's "Visit" link):
// server.public_url when set; else http://<host>:<port>/ when the daemon
// listens where others can reach it (the host name for a wildcard address);
// none when it listens on loopback only.
import os from 'node:os';
import type { Config } from '../config/schema.js';

const LOOPBACK = /^(127\.|::1$|localhost$)/;
const WILDCARD = new Set(['0.0.0.0', '::', '']);

export function dashboardUrl(server: Pick<Config['server'], 'host' | 'port' | 'public_url'>, hostname = os.hostname()): string {
  if (server.public_url) return server.public_url;
  if (LOOPBACK.test(server.host)) return '';
  const host = WILDCARD.has(server.host) ? hostname : server.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${server.port}/`;
}
