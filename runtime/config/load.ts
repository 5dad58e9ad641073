// Reads a config file (YAML, of which JSON is a subset), applies VIGIL_*
// environment overrides, and validates the result once against the schema.
import fs from 'node:fs';
import YAML from 'yaml';
import { configSchema, type Config } from './schema.js';

export class ConfigError extends Error {
  constructor(
    readonly problems: string[],
    source: string,
  ) {
    super(`invalid configuration (${source}):\n` + problems.map((p) => `  - ${p}`).join('\n'));
    this.name = 'ConfigError';
  }
}

/**
 * Environment overrides: VIGIL_<SECTION>__<KEY>=value, segments joined by a
 * double underscore, e.g. VIGIL_SERVER__PORT=9090 or VIGIL_JOBS__CONCURRENCY=1.
 * Values are read as JSON when they parse (numbers, booleans, arrays), else as text.
 */
export function applyEnvOverrides(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): Record<string, unknown> {
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('VIGIL_') || !name.includes('__') || value === undefined) continue;
    const keyPath = name.slice('VIGIL_'.length).toLowerCase().split('__');
    let node = raw;
    for (const segment of keyPath.slice(0, -1)) {
      if (typeof node[segment] !== 'object' || node[segment] === null) node[segment] = {};
      node = node[segment] as Record<string, unknown>;
    }
    node[keyPath[keyPath.length - 1]] = parseEnvValue(value);
  }
  return raw;
}

function parseEnvValue(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** "cameras[0].masks[1]"; a camera's entry also says its id: "cameras[0] (yard).masks[1]". */
function formatPath(path: PropertyKey[], raw?: unknown): string {
  const text = path.map((p) => (typeof p === 'number' ? `[${p}]` : String(p))).join('.').replace(/\.\[/g, '[');
  const [section, index] = path;
  if (section !== 'cameras' || typeof index !== 'number' || path.length < 3) return text;
  const id = (raw as { cameras?: Array<{ id?: unknown }> } | null)?.cameras?.[index]?.id;
  if (typeof id !== 'string' || !id) return text;
  const head = `cameras[${index}]`;
  return `${head} (${id})${text.slice(head.length)}`;
}

/** Validates a raw config object; throws a ConfigError listing every problem with its key path. */
export function validateConfig(raw: unknown, source = 'config'): Config {
  const parsed = configSchema.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => `${formatPath([...issue.path, k], raw)}: unknown key`).join('\n  - ');
    }
    return `${formatPath(issue.path, raw) || '(top level)'}: ${issue.message}`;
  });
  throw new ConfigError(problems, source);
}

/** Loads the config from a file (optional) and the environment. */
export function loadConfig(file: string | undefined, env: NodeJS.ProcessEnv = process.env): Config {
  let raw: unknown = {};
  const source = file ?? 'embedded defaults';
  if (file) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (err) {
      throw new ConfigError([`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? err}`], source);
    }
    try {
      raw = YAML.parse(text) ?? {};
    } catch (err) {
      throw new ConfigError([`not valid YAML: ${(err as Error).message.split('\n')[0]}`], source);
    }
    if (typeof raw !== 'object' || Array.isArray(raw)) throw new ConfigError(['the top level must be a mapping of sections'], source);
  }
  return validateConfig(applyEnvOverrides(raw as Record<string, unknown>, env), source);
}
