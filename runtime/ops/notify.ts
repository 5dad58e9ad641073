// systemd notification (Type=notify): READY=1 once the API listens, WATCHDOG=1
// from the event loop while it turns, STOPPING=1 on shutdown.
//
// Node cannot open the unix datagram socket named by NOTIFY_SOCKET without a
// native module, so the messages go through `systemd-notify`. The unit sets
// NotifyAccess=all because that helper is a child process, and systemd-notify
// waits (without --no-block) until the manager has taken the message, so the
// helper exiting at once cannot make systemd drop it. Without NOTIFY_SOCKET
// (not started by systemd) all of this is a no-op.
import type { Feature } from '../core/feature.js';
import type { Logger } from '../core/log.js';
import { runTool } from '../core/spawn.js';

export interface NotifyOptions {
  env?: NodeJS.ProcessEnv;
  /** the helper binary (tests may point elsewhere) */
  command?: string;
  /** text for `systemctl status` once ready */
  readyStatus?: string;
}

/** Half of the watchdog period systemd asked for (sd_watchdog_enabled semantics), or undefined when off. */
export function watchdogIntervalMs(env: NodeJS.ProcessEnv, pid = process.pid): number | undefined {
  const usec = Number(env.WATCHDOG_USEC);
  if (!Number.isFinite(usec) || usec <= 0) return undefined;
  // WATCHDOG_PID names the process the watchdog is meant for; another process (a child) must not ping
  if (env.WATCHDOG_PID && Number(env.WATCHDOG_PID) !== pid) return undefined;
  return Math.max(1, Math.floor(usec / 1000 / 2));
}

export class SystemdNotifier implements Feature {
  readonly name = 'systemd-notify';
  private timer: NodeJS.Timeout | undefined;
  private pinging = false;
  private warned = false;

  constructor(
    private readonly log: Logger,
    private readonly options: NotifyOptions = {},
  ) {}

  private get env(): NodeJS.ProcessEnv {
    return this.options.env ?? process.env;
  }

  private get enabled(): boolean {
    return Boolean(this.env.NOTIFY_SOCKET);
  }

  async start(): Promise<void> {
    if (!this.enabled) {
      this.log.debug('NOTIFY_SOCKET is not set: no systemd notifications');
      return;
    }
    await this.send(['--ready', `--status=${this.options.readyStatus ?? 'ready'}`]);
    const interval = watchdogIntervalMs(this.env);
    if (interval !== undefined) {
      // The ping is sent from a timer, so a blocked event loop stops the pings and systemd restarts us.
      this.timer = setInterval(() => void this.ping(), interval);
      this.timer.unref();
      this.log.info('systemd watchdog on', { ping_ms: interval });
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.enabled) await this.send(['STOPPING=1', '--status=stopping']);
  }

  private async ping(): Promise<void> {
    if (this.pinging) return; // a helper that hangs must not pile up more of them
    this.pinging = true;
    try {
      await this.send(['WATCHDOG=1']);
    } finally {
      this.pinging = false;
    }
  }

  /** Runs systemd-notify; failures are logged, never thrown (notification must not stop the daemon). */
  private async send(args: string[]): Promise<void> {
    const failure = await runTool(this.options.command ?? 'systemd-notify', args, { env: this.env, timeoutMs: 10_000 }).then(
      (run) => (run.code === 0 ? undefined : { error: run.timedOut ? 'no answer within 10 s' : `exited with ${run.code ?? run.signal}`, stderr: run.stderr.trim() }),
      (err: Error) => ({ error: err.message, stderr: '' }),
    );
    // warn once per run of failures, so a broken helper does not flood the journal
    if (failure && !this.warned) this.log.warn('systemd notification failed', { args, ...failure });
    this.warned = Boolean(failure);
  }
}
