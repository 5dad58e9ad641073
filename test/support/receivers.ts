// Real webhook receivers on loopback for delivery tests: record every request,
// answer with a chosen status, optionally hold requests unanswered (a slow
// receiver), and close and open again on the same port (a receiver that is away).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from './daemon.js';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** the body parsed as JSON, or undefined */
  json: any;
}

export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  /** the status answered to every request */
  status = 200;
  /** while true, requests are recorded but not answered until release() */
  holding = false;
  private held: http.ServerResponse[] = [];
  private server: http.Server | undefined;

  private constructor(public port: number) {}

  /** A receiver listening on a free port (or the given one). */
  static async start(options: { status?: number; port?: number } = {}): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(options.port ?? (await freePort()));
    if (options.status) receiver.status = options.status;
    await receiver.open();
    return receiver;
  }

  /** A receiver that is not listening yet: its port refuses connections until open(). */
  static async closed(): Promise<WebhookReceiver> {
    return new WebhookReceiver(await freePort());
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks/vigil`;
  }

  get isOpen(): boolean {
    return this.server !== undefined;
  }

  async open(): Promise<void> {
    if (this.server) return;
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        this.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, json });
        if (this.holding) this.held.push(res);
        else this.answer(res);
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Answers the held requests and stops holding. */
  release(): void {
    this.holding = false;
    for (const res of this.held.splice(0)) this.answer(res);
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    for (const res of this.held.splice(0)) res.destroy();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  /** Requests whose JSON body has this result id. */
  forId(id: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.json?.id === id);
  }

  /** Waits until the predicate holds for the recorded requests, or fails after the timeout. */
  async waitFor(check: (requests: ReceivedRequest[]) => boolean, timeoutMs = 30_000, what = 'webhook requests'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (check(this.requests)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`${what} not seen within ${timeoutMs} ms (got ${this.requests.length} requests)`);
  }

  private answer(res: http.ServerResponse): void {
    res.writeHead(this.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: this.status < 300 }));
  }
}
