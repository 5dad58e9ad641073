// Readiness: a registry of named checks that the parts of the daemon plug in
// (database, disk, model, ...). GET /readyz runs them all; the daemon is ready
// when every check is ok. A check that throws or does not answer in time is
// not ok, so one stuck dependency can never hang the probe.
import { errorMessage } from '../core/errors.js';

export interface CheckResult {
  ok: boolean;
  /** short, human-readable, never a secret */
  detail: string;
}

export type ReadinessCheck = () => Promise<CheckResult>;

export interface ReadinessReport {
  ok: boolean;
  checks: Record<string, CheckResult>;
}

export class Readiness {
  private readonly checks = new Map<string, ReadinessCheck>();

  constructor(private readonly timeoutMs = 2000) {}

  /** Adds a check; a second check under the same name replaces the first. */
  register(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  get names(): string[] {
    return [...this.checks.keys()];
  }

  async run(): Promise<ReadinessReport> {
    const entries = await Promise.all(
      [...this.checks].map(async ([name, check]) => [name, await this.runOne(check)] as const),
    );
    const checks = Object.fromEntries(entries);
    return { ok: entries.every(([, r]) => r.ok), checks };
  }

  private async runOne(check: ReadinessCheck): Promise<CheckResult> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<CheckResult>((resolve) => {
      timer = setTimeout(() => resolve({ ok: false, detail: `no answer within ${this.timeoutMs} ms` }), this.timeoutMs);
    });
    try {
      return await Promise.race([check().catch((err): CheckResult => ({ ok: false, detail: errorMessage(err) })), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
