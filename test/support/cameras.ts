// Real camera stand-ins on loopback, for the tests of capture, delivery, the
// dashboard and doctor: an RTSP server (Debian's rtsp-server-perl) fed by
// ffmpeg, an MJPEG-over-HTTP camera with Basic authentication, and a camera
// that accepts connections but never speaks.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { ffprobePath, ffmpegPath } from '../../runtime/core/tools.js';
import { ffmpeg } from './clips.js';
import { freePort } from './daemon.js';
import { media } from './paths.js';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The RTSP server binary, or undefined when the package is not installed. */
export function rtspServerBinary(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v rtsp-server-perl'], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

/**
 * An RTSP server with one stream, `rtsp://127.0.0.1:<port>/<name>`, published by ffmpeg from a clip in a loop;
 * more streams can be published on the same server (one server per test file: a second server beside it
 * does not serve its streams).
 */
export class RtspCamera {
  private server: ChildProcess | undefined;
  private readonly publishers = new Map<string, { clip: string; child: ChildProcess | undefined }>();
  clientPort = 0;
  private sourcePort = 0;

  constructor(private readonly binary: string, private readonly clip: string, readonly streamName = 'cam') {}

  get url(): string {
    return this.urlOf(this.streamName);
  }

  urlOf(name: string): string {
    return `rtsp://127.0.0.1:${this.clientPort}/${name}`;
  }

  async start(): Promise<this> {
    this.clientPort = await freePort();
    this.sourcePort = await freePort();
    await this.startServer();
    await this.publish(this.streamName, this.clip);
    return this;
  }

  /** Stops the server and every stream, then starts them again on the same ports (a camera that went away and came back). */
  async restart(): Promise<void> {
    await this.stop();
    await this.startServer();
    for (const name of this.publishers.keys()) await this.publish(name);
  }

  private async startServer(): Promise<void> {
    // RTP goes over UDP ports counted up from here; a random even base keeps parallel runs apart
    const rtpBase = 20000 + 2 * Math.floor(Math.random() * 10000);
    this.server = spawn(this.binary, [
      '--clientport', String(this.clientPort), '--serverport', String(this.sourcePort), '--rtp_start_port', String(rtpBase),
      '--client_listen_address', '127.0.0.1', '--source_listen_address', '127.0.0.1',
    ], { stdio: 'ignore' });
    await waitForPort(this.clientPort);
    await waitForPort(this.sourcePort);
  }

  /** Publishes a clip in a loop as stream `name` (again after stopStream); resolves once a client can DESCRIBE it. */
  async publish(name: string, clip = this.publishers.get(name)?.clip ?? this.clip): Promise<string> {
    const child = spawn(ffmpegPath, [
      '-hide_banner', '-loglevel', 'error', '-nostdin', '-re', '-stream_loop', '-1', '-i', clip,
      '-c', 'copy', '-f', 'rtsp', `rtsp://127.0.0.1:${this.sourcePort}/${name}`,
    ], { stdio: 'ignore' });
    this.publishers.set(name, { clip, child });
    const deadline = Date.now() + 20_000;
    for (;;) {
      const ok = await run(ffprobePath, ['-v', 'error', '-stimeout', '2000000', '-show_streams', this.urlOf(name)], { timeout: 5000 }).then(() => true, () => false);
      if (ok) return this.urlOf(name);
      if (Date.now() > deadline) throw new Error(`the RTSP stream ${this.urlOf(name)} did not come up within 20 s`);
      await sleep(300);
    }
  }

  private async stopStream(name: string): Promise<void> {
    const publisher = this.publishers.get(name);
    await stopChild(publisher?.child);
    if (publisher) publisher.child = undefined;
  }

  async stop(): Promise<void> {
    for (const name of this.publishers.keys()) await this.stopStream(name);
    await stopChild(this.server);
  }
}

async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => { socket.destroy(); resolve(true); });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port} after ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** An HTTP camera serving an MJPEG stream (multipart/x-mixed-replace) at 10 fps, behind Basic authentication; /trickle never completes a frame. */
export class MjpegCamera {
  private server: http.Server | undefined;
  private frames: Buffer[] = [];
  port = 0;

  constructor(readonly username: string, readonly password: string) {}

  url(pathname = '/video.mjpg'): string {
    return `http://127.0.0.1:${this.port}${pathname}`;
  }

  /** JPEG frames of a pan across an image, made with ffmpeg. */
  async start(workDir: string): Promise<this> {
    const dir = fs.mkdtempSync(path.join(workDir, 'frames-'));
    await ffmpeg([
      '-loop', '1', '-framerate', '10', '-i', media('pets.jpg'), '-t', '2',
      '-vf', `scale=400:-2,crop=320:ih:'(iw-ow)*t/2':0,scale=trunc(iw/2)*2:trunc(ih/2)*2`, '-q:v', '5', path.join(dir, 'f%03d.jpg'),
    ]);
    this.frames = fs.readdirSync(dir).sort().map((f) => fs.readFileSync(path.join(dir, f)));
    const expected = 'Basic ' + Buffer.from(`${this.username}:${this.password}`).toString('base64');
    this.server = http.createServer((req, res) => {
      if (req.url === '/trickle') {
        // a camera stuck part way: it answers, then sends a byte now and then, never a whole frame
        res.writeHead(200, { 'content-type': 'multipart/x-mixed-replace; boundary=frame' });
        res.write('--frame\r\nContent-Type: image/jpeg\r\nContent-Length: 100000\r\n\r\n');
        const timer = setInterval(() => res.write(Buffer.from([0xff])), 200);
        res.on('close', () => clearInterval(timer));
        return;
      }
      if (req.headers.authorization !== expected) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="camera"' }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'multipart/x-mixed-replace; boundary=frame' });
      let i = 0;
      const timer = setInterval(() => {
        const f = this.frames[i++ % this.frames.length];
        res.write(`--frame\r\nContent-Type: image/jpeg\r\nContent-Length: ${f.length}\r\n\r\n`);
        res.write(f);
        res.write('\r\n');
      }, 100);
      res.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r) ?? r(undefined));
  }
}

/** A camera that accepts TCP connections and never answers (a hung device). */
export class SilentCamera {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  async start(): Promise<this> {
    this.server = net.createServer((socket) => {
      this.sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => this.server?.close(r) ?? r(undefined));
  }
}
