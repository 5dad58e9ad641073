// Starting the media tools (ffmpeg, ffprobe) without fork(). Node's spawn
// forks the daemon: the kernel copies its page tables and write-protects every
// page it has, so each page the daemon writes afterwards faults once more. A
// clip starts five or six tools, and the 10 s 720p clip cost the daemon about
// 14,000 such faults: 0.05 to 0.2 s of its CPU, the more on a busy host.
// glibc's posix_spawn runs the child in the daemon's memory until it executes
// the tool (clone with CLONE_VM and CLONE_VFORK), so there is nothing to copy
// or protect. koffi calls it (core/libc.ts); where koffi or glibc is missing
// (musl), Node's spawn does the same job the old way.
import { spawn as nodeSpawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import type { Readable } from 'node:stream';
import { glibc } from './libc.js';

/** A started tool: a small subset of Node's ChildProcess, the same for both ways of starting it. */
export interface ToolProcess extends EventEmitter {
  readonly pid: number | undefined;
  /** the exit code once it exited by itself, else null */
  readonly exitCode: number | null;
  /** the read end of each piped descriptor, by the child's descriptor number (1 stdout, 2 stderr, 3...) */
  readonly stdio: Array<Readable | null>;
  readonly stderr: Readable | null;
  kill(signal?: NodeJS.Signals): boolean;
  on(event: 'close', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  on(event: 'error', listener: (err: Error) => void): this;
  once(event: 'close', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  once(event: 'error', listener: (err: Error) => void): this;
}

/**
 * A pipe read straight into buffers the caller gives (net's onread): `buffer` names where the
 * next bytes go, `callback` says how many came. No buffer is allocated per read, and nothing is
 * copied again: the frames of a decode land where they are kept.
 */
export interface PipeReader {
  buffer: () => Uint8Array;
  callback: (bytes: number, buffer: Uint8Array) => void;
}

/** A piped descriptor of the child: its number, with a reader when its bytes go to given buffers ('data' events otherwise). */
export type Pipe = number | { fd: number; reader: PipeReader };

export interface ToolOptions {
  /** the child's descriptors that are pipes to the daemon (1 stdout, 2 stderr, 3, 4...); every other one up to the highest is /dev/null */
  pipes: Pipe[];
  /** killed (SIGKILL) when this aborts */
  signal?: AbortSignal;
  /** killed (SIGKILL) after this many milliseconds */
  timeoutMs?: number;
  /** its environment (else the daemon's) */
  env?: NodeJS.ProcessEnv;
  /** started by Node's fork-based spawn even where posix_spawn is there: the way of systems without glibc, chosen (its tests) */
  fork?: boolean;
}

const O_RDONLY = 0;
const O_WRONLY = 1;
const O_CLOEXEC = 0o2000000;
const WNOHANG = 1;
const POSIX_SPAWN_SETSIGDEF = 4;
const POSIX_SPAWN_SETSIGMASK = 8;
/** glibc's opaque types, with room to spare: posix_spawn_file_actions_t 80 bytes, posix_spawnattr_t 336, sigset_t 128 */
const OPAQUE_BYTES = 512;

type Native = NonNullable<ReturnType<typeof loadNative>>;
let native: Native | null | undefined;

function loadNative() {
  const libc = glibc();
  if (!libc) return null;
  return {
    spawn: libc.func('int posix_spawn(_Out_ int *pid, const char *path, void *actions, void *attr, const char **argv, const char **envp)'),
    spawnPath: libc.func('int posix_spawnp(_Out_ int *pid, const char *file, void *actions, void *attr, const char **argv, const char **envp)'),
    actionsInit: libc.func('int posix_spawn_file_actions_init(void *actions)'),
    actionsDestroy: libc.func('int posix_spawn_file_actions_destroy(void *actions)'),
    addDup2: libc.func('int posix_spawn_file_actions_adddup2(void *actions, int fd, int newfd)'),
    addOpen: libc.func('int posix_spawn_file_actions_addopen(void *actions, int fd, const char *path, int oflag, int mode)'),
    attrInit: libc.func('int posix_spawnattr_init(void *attr)'),
    attrDestroy: libc.func('int posix_spawnattr_destroy(void *attr)'),
    attrFlags: libc.func('int posix_spawnattr_setflags(void *attr, short flags)'),
    attrSigDefault: libc.func('int posix_spawnattr_setsigdefault(void *attr, void *sigset)'),
    attrSigMask: libc.func('int posix_spawnattr_setsigmask(void *attr, void *sigset)'),
    sigFill: libc.func('int sigfillset(void *sigset)'),
    sigEmpty: libc.func('int sigemptyset(void *sigset)'),
    pipe2: libc.func('int pipe2(_Out_ int *fds, int flags)'),
    close: libc.func('int close(int fd)'),
    waitpid: libc.func('int waitpid(int pid, _Out_ int *status, int options)'),
  };
}

function loaded(): Native | null {
  if (native === undefined) {
    try {
      native = loadNative();
    } catch {
      native = null; // a glibc without one of these functions
    }
  }
  return native;
}

/** Whether tools start by posix_spawn here (false: by Node's fork-based spawn). */
export function spawnsWithoutFork(): boolean {
  return loaded() !== null;
}

const signalName = (n: number): NodeJS.Signals | null =>
  (Object.entries(os.constants.signals).find(([, v]) => v === n)?.[0] as NodeJS.Signals | undefined) ?? null;

const errnoName = (n: number): string => Object.entries(os.constants.errno).find(([, v]) => v === n)?.[0] ?? `errno ${n}`;

/** Starts a tool (a path, or a name looked up in PATH) with stdin and every unpiped descriptor on /dev/null. */
export function spawnTool(file: string, args: string[], options: ToolOptions): ToolProcess {
  const libc = options.fork ? null : loaded();
  const env = options.env ?? process.env;
  const pipes = options.pipes.map((p) => (typeof p === 'number' ? { fd: p, reader: undefined } : p));
  const child = libc ? posixSpawn(libc, file, args, pipes, env) : undefined;
  const tool = child ?? forkSpawn(file, args, pipes, env);
  const kill = () => tool.kill('SIGKILL');
  const timer = options.timeoutMs ? setTimeout(kill, options.timeoutMs) : undefined;
  timer?.unref();
  options.signal?.addEventListener('abort', kill, { once: true });
  if (options.signal?.aborted) kill();
  tool.once('close', () => {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', kill);
  });
  return tool;
}

type PipeSpec = { fd: number; reader: PipeReader | undefined };

/** Node's spawn, the same descriptors; a reader gets the bytes of 'data' events copied into its buffers. */
function forkSpawn(file: string, args: string[], pipes: PipeSpec[], env: NodeJS.ProcessEnv): ToolProcess {
  const highest = Math.max(2, ...pipes.map((p) => p.fd));
  // Node's 'ignore' gives /dev/null to 0, 1 and 2 only and leaves a higher descriptor closed: those get /dev/null here
  const devNull = highest > 2 ? fs.openSync('/dev/null', 'w') : undefined;
  let child: ChildProcess;
  try {
    const stdio = Array.from({ length: highest + 1 }, (_, fd) => (pipes.some((p) => p.fd === fd) ? 'pipe' : fd <= 2 ? 'ignore' : devNull!));
    child = nodeSpawn(file, args, { stdio, env });
  } finally {
    if (devNull !== undefined) fs.closeSync(devNull); // the child has its own copy
  }
  for (const { fd, reader } of pipes) {
    if (!reader) continue;
    child.stdio[fd]!.on('data', (chunk: Buffer) => {
      for (let at = 0; at < chunk.length;) {
        const into = reader.buffer();
        const bytes = Math.min(into.length, chunk.length - at);
        into.set(chunk.subarray(at, at + bytes));
        at += bytes;
        reader.callback(bytes, into);
      }
    });
  }
  return child as unknown as ToolProcess;
}

class SpawnedTool extends EventEmitter implements ToolProcess {
  exitCode: number | null = null;
  private reaped = false;

  constructor(
    readonly pid: number,
    readonly stdio: Array<Readable | null>,
    private readonly libc: Native,
  ) {
    super();
    const open = stdio.filter((s): s is Readable => s !== null);
    let left = open.length;
    // Its pipes close when it exits (or hands them on): then it is reaped, asking until it is.
    const closed = () => {
      if (--left === 0) this.reap(1);
    };
    for (const stream of open) stream.once('close', closed);
    // no pipe to wait for: reaped from the next tick, so a 'close' listener added by the starter is there for it
    if (left === 0) process.nextTick(() => this.reap(1));
  }

  get stderr(): Readable | null {
    return this.stdio[2] ?? null;
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    if (this.reaped) return false;
    try {
      process.kill(this.pid, signal); // not reaped yet, so the pid is still its own
      return true;
    } catch {
      return false;
    }
  }

  private reap(delayMs: number): void {
    const status = new Int32Array(1);
    const done = this.libc.waitpid(this.pid, status, WNOHANG) as number;
    if (done === 0) {
      setTimeout(() => this.reap(Math.min(100, delayMs * 2)), delayMs);
      return;
    }
    this.reaped = true;
    const s = status[0]!;
    const signal = done === this.pid && (s & 0x7f) !== 0 ? signalName(s & 0x7f) : null;
    this.exitCode = done === this.pid && (s & 0x7f) === 0 ? (s >> 8) & 0xff : null;
    this.emit('close', this.exitCode, signal);
  }
}

function posixSpawn(libc: Native, file: string, args: string[], pipes: PipeSpec[], environment: NodeJS.ProcessEnv): ToolProcess | undefined {
  const highest = Math.max(2, ...pipes.map((p) => p.fd));
  const ends: Array<{ fd: number; read: number; write: number; reader: PipeReader | undefined }> = [];
  const closeAll = () => {
    for (const end of ends) {
      libc.close(end.read);
      libc.close(end.write);
    }
  };
  for (const { fd, reader } of pipes) {
    const pair = new Int32Array(2);
    if (libc.pipe2(pair, O_CLOEXEC) !== 0) {
      closeAll();
      return undefined;
    }
    ends.push({ fd, read: pair[0]!, write: pair[1]!, reader });
  }
  // A pipe end on a descriptor number the child uses would be overwritten before it is moved:
  // never so in the daemon (the low numbers are taken), but then the old way is the safe one.
  if (ends.some((e) => e.read <= highest || e.write <= highest)) {
    closeAll();
    return undefined;
  }
  const actions = Buffer.alloc(OPAQUE_BYTES);
  const attr = Buffer.alloc(OPAQUE_BYTES);
  const all = Buffer.alloc(OPAQUE_BYTES);
  const none = Buffer.alloc(OPAQUE_BYTES);
  libc.actionsInit(actions);
  libc.attrInit(attr);
  try {
    for (let fd = 0; fd <= highest; fd++) {
      const end = ends.find((e) => e.fd === fd);
      if (end) libc.addDup2(actions, end.write, fd);
      else libc.addOpen(actions, fd, '/dev/null', fd === 0 ? O_RDONLY : O_WRONLY, 0);
    }
    // Node ignores SIGPIPE and may block signals: the tool starts with every signal at its default, none blocked.
    libc.sigFill(all);
    libc.sigEmpty(none);
    libc.attrSigDefault(attr, all);
    libc.attrSigMask(attr, none);
    libc.attrFlags(attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    const env = Object.entries(environment).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${v}`);
    const pid = new Int32Array(1);
    const start = file.includes('/') ? libc.spawn : libc.spawnPath;
    const err = start(pid, file, actions, attr, [file, ...args, null], [...env, null]) as number;
    for (const end of ends) libc.close(end.write);
    if (err !== 0) {
      for (const end of ends) libc.close(end.read);
      return failedStart(file, err);
    }
    const stdio: Array<Readable | null> = Array.from({ length: highest + 1 }, () => null);
    for (const end of ends) {
      stdio[end.fd] = new net.Socket({ fd: end.read, readable: true, writable: false, ...(end.reader ? { onread: end.reader } : {}) });
    }
    return new SpawnedTool(pid[0]!, stdio, libc);
  } finally {
    libc.actionsDestroy(actions);
    libc.attrDestroy(attr);
  }
}

/** A tool that could not start: 'error' (as Node's spawn gives it), then 'close'. */
function failedStart(file: string, errno: number): ToolProcess {
  const code = errnoName(errno);
  const failed = new EventEmitter() as EventEmitter & { pid: undefined; exitCode: null; stdio: []; stderr: null; kill: () => boolean };
  Object.assign(failed, { pid: undefined, exitCode: null, stdio: [], stderr: null, kill: () => false });
  process.nextTick(() => {
    failed.emit('error', Object.assign(new Error(`spawn ${file} ${code}`), { code, errno: -errno, syscall: 'spawn', path: file }));
    failed.emit('close', -errno, null);
  });
  return failed as unknown as ToolProcess;
}

export interface ToolRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** killed after timeoutMs */
  timedOut: boolean;
}

/** Runs a tool to its end, keeping its output (stdout up to maxBytes, the last 64 KB of stderr). */
export function runTool(file: string, args: string[], options: Omit<ToolOptions, 'pipes'> & { maxBytes?: number } = {}): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    let timedOut = false;
    const started = Date.now();
    const child = spawnTool(file, args, { pipes: [1, 2], signal: options.signal, timeoutMs: options.timeoutMs, env: options.env, fork: options.fork });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    child.stdio[1]?.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (options.maxBytes !== undefined && outBytes > options.maxBytes) child.kill('SIGKILL');
      else out.push(chunk);
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err = (err + chunk).slice(-65536)));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      timedOut = signal === 'SIGKILL' && options.timeoutMs !== undefined && Date.now() - started >= options.timeoutMs;
      resolve({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: err, timedOut });
    });
  });
}
