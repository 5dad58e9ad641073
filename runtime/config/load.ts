// Reads a config file (YAML, of which JSON is a subset), applies VIGIL_*
// environment overrides, and validates the result once against the schema.
import fs from 'node:fs';
import { closest, distance } from 'fastest-levenshtein';
import YAML from 'yaml';
import type { z } from 'zod';
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
export function applyEnvOverrides(raw: Record<string, unknown>, env: NodeJS.ProcessEnv, sources?: EnvSources): Record<string, unknown> {
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('VIGIL_') || !name.includes('__') || value === undefined) continue;
    const keyPath = name.slice('VIGIL_'.length).toLowerCase().split('__');
    sources?.set(keyPath.join('.'), name);
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

/** dotted key path (as the variable names it) -> the VIGIL_* variable that set it */
export type EnvSources = Map<string, string>;

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

/** The variable that set this key path or one of its parents, if any. */
function envSourceOf(path: PropertyKey[], sources: EnvSources): string | undefined {
  for (let n = path.length; n > 0; n--) {
    const found = sources.get(path.slice(0, n).map(String).join('.'));
    if (found) return found;
  }
  return undefined;
}

/** The keys the schema allows at a path (through defaults, optionals and arrays), or none. */
function keysAt(schema: z.core.$ZodType, path: PropertyKey[]): string[] {
  let node = schema;
  const unwrap = () => {
    for (;;) {
      const def = node._zod.def as { type: string; innerType?: z.core.$ZodType };
      if (!def.innerType || !['default', 'prefault', 'optional', 'nullable', 'catch', 'readonly'].includes(def.type)) return;
      node = def.innerType;
    }
  };
  for (const segment of path) {
    unwrap();
    const def = node._zod.def as { type: string; shape?: Record<string, z.core.$ZodType>; element?: z.core.$ZodType };
    if (typeof segment === 'number' && def.type === 'array' && def.element) node = def.element;
    else if (typeof segment === 'string' && def.type === 'object' && def.shape?.[segment]) node = def.shape[segment];
    else return [];
  }
  unwrap();
  const def = node._zod.def as { type: string; shape?: Record<string, z.core.$ZodType> };
  return def.type === 'object' && def.shape ? Object.keys(def.shape) : [];
}

/** The allowed key nearest a misspelt one, when it is near enough to be what was meant. */
function nearestKey(key: string, allowed: string[]): string | undefined {
  if (!allowed.length) return undefined;
  const best = closest(key, allowed);
  return distance(key, best) <= Math.max(2, Math.floor(best.length / 3)) ? best : undefined;
}

/** What a value had to be: the allowed values of enums and literals, the types of union branches. */
function expected(issue: z.core.$ZodIssue): string[] {
  if (issue.code === 'invalid_value') return issue.values.map((v) => JSON.stringify(v));
  if (issue.code === 'invalid_type') return [`a ${issue.expected}`];
  if (issue.code === 'invalid_union') return issue.errors.flatMap((branch) => (branch[0] ? expected(branch[0]) : []));
  return [issue.message];
}

function valueAt(raw: unknown, path: PropertyKey[]): unknown {
  let node = raw;
  for (const segment of path) node = node && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[segment] : undefined;
  return node;
}

const shown = (value: unknown) => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

function describe(issue: z.core.$ZodIssue, raw: unknown, sources: EnvSources): string[] {
  const where = (path: PropertyKey[]) => {
    const name = formatPath(path, raw) || '(top level)';
    const variable = envSourceOf(path, sources);
    return variable ? `${name} (from ${variable})` : name;
  };
  if (issue.code === 'unrecognized_keys') {
    const allowed = keysAt(configSchema, issue.path);
    return issue.keys.map((k) => {
      const near = nearestKey(k, allowed);
      const variable = sources.get([...issue.path, k].map(String).join('.'));
      const hint = near ? `; did you mean ${formatPath([...issue.path, near], raw)}${variable ? ` (VIGIL_${[...issue.path, near].map(String).join('__').toUpperCase()})` : ''}?` : '';
      return `${where([...issue.path, k])}: unknown key${hint}`;
    });
  }
  if (issue.code === 'invalid_value' || issue.code === 'invalid_union') {
    const options = [...new Set(expected(issue))];
    return [`${where(issue.path)}: expected ${options.length > 1 ? `one of ${options.join(', ')}` : options[0]}, got ${shown(valueAt(raw, issue.path))}`];
  }
  return [`${where(issue.path)}: ${issue.message}`];
}

/**
 * Validates a raw config object; throws a ConfigError listing every problem
 * with its key path, the allowed values, the nearest key to a misspelt one,
 * and the VIGIL_* variable when one set the key.
 */
export function validateConfig(raw: unknown, source = 'config', sources: EnvSources = new Map()): Config {
  const parsed = configSchema.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.flatMap((issue) => describe(issue, raw, sources));
  const fromEnv = parsed.error.issues.some((issue) => envSourceOf(issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]] : issue.path, sources));
  throw new ConfigError(problems, fromEnv ? `${source} and the environment` : source);
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
  const sources: EnvSources = new Map();
  return validateConfig(applyEnvOverrides(raw as Record<string, unknown>, env, sources), source, sources);
}
