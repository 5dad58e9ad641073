// Structured JSON logs, one object per line on stdout (journald keeps them).
// Secrets are never passed to the logger; `redact` covers values that might hold one.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(component: string): Logger;
}

const SECRET_KEYS = /(authorization|password|api_?key|secret|token)/i;

/** Replaces values under secret-looking keys, at any depth. */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object' && !(value instanceof Error)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEYS.test(k) ? '[redacted]' : redact(v);
    return out;
  }
  if (value instanceof Error) return { name: value.name, message: value.message };
  return value;
}

export function createLogger(
  level: LogLevel = 'info',
  write: (line: string) => void = (line) => process.stdout.write(line + '\n'),
  component = 'vigil',
): Logger {
  const min = LEVELS[level];
  const emit = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS[lvl] < min) return;
    const record = { time: new Date().toISOString(), level: lvl, component, msg, ...(redact(fields ?? {}) as object) };
    write(JSON.stringify(record));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (name) => createLogger(level, write, `${component}.${name}`),
  };
}

/** A logger that drops everything, for tools and tests that print their own output. */
export const silentLogger: Logger = createLogger('error', () => {});
