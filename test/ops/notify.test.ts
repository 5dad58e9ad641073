// systemd notification through the real `systemd-notify` into a unix datagram
// socket standing in for systemd's (Node has no datagram unix sockets, so a
// python3 one-liner receives). Skipped when either tool is missing.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { watchdogIntervalMs } from '../../runtime/ops/notify.js';
import { tempDir } from '../support/clips.js';
import { TestDaemon } from '../support/daemon.js';

// Prints each datagram on one line (newlines escaped); fds passed along (the
// BARRIER=1 of systemd-notify) are closed at once, which releases the sender.
const RECEIVER = `
import socket, sys, os, array
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
print("LISTENING", flush=True)
while True:
    msg, anc, flags, addr = s.recvmsg(4096, socket.CMSG_SPACE(16 * 4))
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds = array.array("i"); fds.frombytes(data[: len(data) - (len(data) % fds.itemsize)])
            for fd in fds: os.close(fd)
    print(msg.decode().replace("\\n", "|"), flush=True)
`;

function available(cmd: string, args: string[]): boolean {
  return spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
}

class NotifySocket {
  readonly messages: string[] = [];
  private child: ChildProcess | undefined;
  constructor(readonly socketPath: string) {}

  async start(): Promise<void> {
    const child = spawn('python3', ['-c', RECEIVER, this.socketPath], { stdio: ['ignore', 'pipe', 'inherit'] });
    this.child = child;
    let buffer = '';
    await new Promise<void>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`receiver exited with ${code}`)));
      child.stdout!.on('data', (d: Buffer) => {
        buffer += d.toString();
        let nl;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line === 'LISTENING') resolve();
          else this.messages.push(line);
        }
      });
    });
  }

  async waitFor(match: (m: string) => boolean, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const found = this.messages.find(match);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`notification not received in time; got: ${JSON.stringify(this.messages)}`);
  }

  stop(): void {
    this.child?.kill();
  }
}

describe('ops: systemd notification', function () {
  it('reads the watchdog period like sd_watchdog_enabled', () => {
    expect(watchdogIntervalMs({})).to.equal(undefined);
    expect(watchdogIntervalMs({ WATCHDOG_USEC: '60000000' })).to.equal(30_000);
    expect(watchdogIntervalMs({ WATCHDOG_USEC: '60000000', WATCHDOG_PID: '1' }, 2)).to.equal(undefined);
    expect(watchdogIntervalMs({ WATCHDOG_USEC: '60000000', WATCHDOG_PID: '2' }, 2)).to.equal(30_000);
    expect(watchdogIntervalMs({ WATCHDOG_USEC: 'soon' })).to.equal(undefined);
  });

  describe('a daemon started with NOTIFY_SOCKET and WATCHDOG_USEC', function () {
    let dir: string;
    let socket: NotifySocket;
    let daemon: TestDaemon;

    before(async function () {
      if (!available('systemd-notify', ['--help']) || !available('python3', ['-c', 'import socket; socket.AF_UNIX'])) {
        this.skip(); // needs systemd-notify (Debian package systemd) and python3
      }
      dir = tempDir('vigil-notify-');
      socket = new NotifySocket(path.join(dir, 'notify.sock'));
      await socket.start();
      daemon = await new TestDaemon({ env: { NOTIFY_SOCKET: socket.socketPath, WATCHDOG_USEC: '400000' } }).start();
    });
    after(async () => {
      await daemon?.cleanup();
      socket?.stop();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    it('says READY=1 with a status once the API listens', async () => {
      const ready = await socket.waitFor((m) => m.split('|').includes('READY=1'));
      expect(ready).to.match(/STATUS=listening on 127\.0\.0\.1:\d+/);
      expect((await fetch(`${daemon.url}/healthz`)).status).to.equal(200);
    });

    it('pings the watchdog while the event loop runs', async () => {
      await socket.waitFor((m) => m === 'WATCHDOG=1');
      const seen = socket.messages.filter((m) => m === 'WATCHDOG=1').length;
      await socket.waitFor(() => socket.messages.filter((m) => m === 'WATCHDOG=1').length > seen);
    });

    it('says STOPPING=1 on SIGTERM and exits 0', async () => {
      expect(await daemon.stop()).to.equal(0);
      await socket.waitFor((m) => m.split('|').includes('STOPPING=1'));
    });
  });
});
