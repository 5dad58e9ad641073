// Structured logs through pino: one JSON object per line,
// {level, time, component, [request_id], ...fields, msg}. Under systemd each line
// starts with the journald priority (<3> error, <4> warning, <6> info, <7> debug),
// so `journalctl -p warning` shows exactly the warnings and errors. Errors keep
// their stack; values under secret-looking keys are censored by pino's redaction,
// and every line goes through core/redact.ts (URLs lose user info and query values).
// For a person at a terminal (stdout a TTY) the same records are printed by
// pino-pretty as one readable line each instead of JSON.
import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import pino from 'pino';
import { prettyFactory } from 'pino-pretty';
import { redactSecrets } from './redact.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** The call shape every part of the runtime uses: a message, then fields. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(component: string): Logger;
}

/** Keys whose values never reach a log line, at the top level and two levels down. */
const SECRET_KEYS = ['authorization', 'password', 'passphrase', 'api_key', 'api_keys', 'apikey', 'secret', 'token', 'access_token', 'client_secret', 'admin_key', 'key_file'];
export const REDACTED_PATHS = SECRET_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`]);

// Fields added to every line logged while handling one request (its request id),
// whichever logger writes the line: no call site has to pass them along.
const requestFields = new AsyncLocalStorage<Record<string, unknown>>();

/** Runs fn with fields added to every log line written in its asynchronous course. */
export function withLogFields<T>(fields: Record<string, unknown>, fn: () => T): T {
  return requestFields.run(fields, fn);
}

/** Runs fn outside any request's fields (background work a request merely woke up). */
export function withoutLogFields<T>(fn: () => T): T {
  return requestFields.exit(fn);
}

/** pino's numeric levels -> syslog priorities that journald reads from a `<N>` prefix. */
const JOURNAL_PRIORITY: Record<number, number> = { 10: 7, 20: 7, 30: 6, 40: 4, 50: 3, 60: 2 };

export function journalPriority(pinoLevel: number): number {
  return JOURNAL_PRIORITY[pinoLevel] ?? 6;
}

/**
 * Whether the file descriptor is connected to journald: systemd sets
 * JOURNAL_STREAM to the device and inode of the stream it gave the service,
 * and a redirection to anything else (a file, a pipe) changes them.
 */
export function isJournalStream(fd: number, env: NodeJS.ProcessEnv = process.env): boolean {
  const [dev, ino] = (env.JOURNAL_STREAM ?? '').split(':');
  if (!dev || !ino) return false;
  try {
    const st = fs.fstatSync(fd);
    return String(st.dev) === dev && String(st.ino) === ino;
  } catch {
    return false;
  }
}

/** Errors among the fields become {type, message, stack, cause} instead of {} (pino's serializer does `err`). */
function withErrors(fields: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(fields)) {
    if (v instanceof Error && k !== 'err') (out ??= { ...fields })[k] = pino.stdSerializers.errWithCause(v);
  }
  return out ?? fields;
}

type Write = (line: string) => void;

export interface LoggerOptions {
  /** prefix each line with its journald priority (`<4>{...}`) */
  journald?: boolean;
  /** one readable line per record instead of JSON (default: when writing to stdout and stdout is a terminal) */
  pretty?: boolean;
}

/**
 * A record as a person reads it: local time, level, component, message, then
 * the other fields as JSON on the same line; an error's stack follows on
 * indented lines. Colours as pino-pretty decides (a terminal, NO_COLOR).
 * pino-pretty formats in this thread rather than as a worker transport, so it
 * formats the line core/redact.ts has cleaned and no line is lost at exit.
 */
function prettyLine(): (json: string) => string {
  const format = prettyFactory({
    translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l',
    messageFormat: '{component}: {msg}',
    ignore: 'component',
    singleLine: true,
  });
  return (json) => format(json).replace(/[ \t]+(?=\n)/g, '').trimEnd();
}

/** Children hang off the root with their full dotted name (nested bindings would repeat the key). */
function wrap(root: pino.Logger, component: string): Logger {
  const p = root.child({ component });
  return {
    debug: (msg, fields) => p.debug(withErrors(fields ?? {}), msg),
    info: (msg, fields) => p.info(withErrors(fields ?? {}), msg),
    warn: (msg, fields) => p.warn(withErrors(fields ?? {}), msg),
    error: (msg, fields) => p.error(withErrors(fields ?? {}), msg),
    child: (name) => wrap(root, `${component}.${name}`),
  };
}

/**
 * A logger writing one line per record to `write` (stdout by default, where the
 * journald prefix is on when stdout is the journal, and the readable format when
 * stdout is a terminal).
 */
export function createLogger(level: LogLevel = 'info', write?: Write, component = 'vigil', options: LoggerOptions = {}): Logger {
  const journald = options.journald ?? (write === undefined && isJournalStream(1));
  const pretty = options.pretty ?? (write === undefined && !journald && process.stdout.isTTY === true);
  const sink: Write = write ?? ((line) => process.stdout.write(line + '\n'));
  // the JSON line, pino's redaction and core/redact.ts done, is what the terminal format is made from
  const render = pretty ? prettyLine() : (line: string) => line;
  // pino hands a destination marked with this symbol the level of the line it writes
  const stream = {
    [pino.symbols.needsMetadataGsym]: true,
    lastLevel: 30,
    write(chunk: string) {
      const line = render(redactSecrets(chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk));
      sink(journald ? `<${journalPriority(this.lastLevel)}>${line}` : line);
    },
  };
  const root = pino(
    {
      level,
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: pino.stdSerializers.errWithCause },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      // a fresh object each time: pino merges the line's fields into what mixin returns
      mixin: () => ({ ...requestFields.getStore() }),
    },
    stream,
  );
  return wrap(root, component);
}

/** A logger that drops everything, for tools and tests that print their own output. */
export const silentLogger: Logger = createLogger('error', () => {});
