// A real MQTT broker for tests on a free loopback port: Debian's mosquitto
// when it is installed (with a temporary config, no persistence), else aedes
// in-process. stop() and start() again keep the port, so clients can reconnect.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Aedes } from 'aedes';
import { tempDir } from './clips.js';
import { freePort } from './daemon.js';

/** mosquitto's path, unless VIGIL_TEST_BROKER=aedes asks for the in-process broker. */
function findMosquitto(): string | undefined {
  if (process.env.VIGIL_TEST_BROKER === 'aedes') return undefined;
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/sbin', '/usr/local/sbin'];
  for (const dir of dirs) {
    const candidate = path.join(dir, 'mosquitto');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      /* not here */
    }
  }
  return undefined;
}

async function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export class TestBroker {
  readonly kind: 'mosquitto' | 'aedes';
  port = 0;
  private readonly mosquitto = findMosquitto();
  private readonly dir = tempDir('vigil-broker-');
  private child: ChildProcess | undefined;
  private aedes: { broker: Aedes; server: net.Server; sockets: Set<net.Socket> } | undefined;

  constructor() {
    this.kind = this.mosquitto ? 'mosquitto' : 'aedes';
  }

  get url(): string {
    return `mqtt://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    if (!this.port) this.port = await freePort();
    if (this.mosquitto) await this.startMosquitto(this.mosquitto);
    else await this.startAedes();
    return this;
  }

  async stop(): Promise<void> {
    if (this.child) {
      const child = this.child;
      this.child = undefined;
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    }
    if (this.aedes) {
      const { broker, server, sockets } = this.aedes;
      this.aedes = undefined;
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
      await new Promise<void>((r) => broker.close(() => r()));
    }
  }

  async cleanup(): Promise<void> {
    await this.stop();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  private async startMosquitto(binary: string): Promise<void> {
    const conf = path.join(this.dir, 'mosquitto.conf');
    fs.writeFileSync(conf, [`listener ${this.port} 127.0.0.1`, 'allow_anonymous true', 'persistence false', 'log_dest stderr', ''].join('\n'));
    fs.chmodSync(this.dir, 0o755);
    fs.chmodSync(conf, 0o644);
    let stderr = '';
    const child = spawn(binary, ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
    this.child = child;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`mosquitto exited with ${child.exitCode}: ${stderr}`);
      if (await acceptsConnections(this.port)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`mosquitto did not listen on ${this.port} within 10 s: ${stderr}`);
  }

  private async startAedes(): Promise<void> {
    const broker = await Aedes.createBroker();
    const sockets = new Set<net.Socket>();
    const server = net.createServer((socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      broker.handle(socket);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.aedes = { broker, server, sockets };
  }
}

/**
 * A TCP forwarder in front of a port: close() cuts every connection and
 * refuses new ones, open() lets them through again. It decides when a client
 * (the daemon) can reach the broker, so a test can get its subscriber ready first.
 */
export class TcpGate {
  port = 0;
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();

  constructor(private readonly targetPort: number) {}

  async open(): Promise<this> {
    if (this.server) return this;
    if (!this.port) this.port = await freePort();
    const server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, '127.0.0.1');
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.once('close', () => this.sockets.delete(s));
        s.on('error', () => {});
      }
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    return this;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  }
}
