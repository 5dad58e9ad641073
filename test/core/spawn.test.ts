// Starting tools without fork (core/spawn.ts), and by Node's fork-based spawn
// where that is not there (no koffi, no glibc): real processes, real pipes, the
// same cases through both ways.
import { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { expect } from 'chai';
import { runTool, spawnTool, spawnsWithoutFork, type ToolProcess } from '../../runtime/core/spawn.js';
import { ffmpegPath } from '../../runtime/core/tools.js';

const closed = (child: ToolProcess) => new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('close', (code, signal) => resolve([code, signal])));

/** This process's minor page faults so far. */
const minorFaults = () => Number(fs.readFileSync('/proc/self/stat', 'latin1').split(') ')[1]!.split(' ')[7]);

for (const way of ['posix_spawn', 'fork'] as const) {
  const fork = way === 'fork';
  describe(`starting tools (${way})`, () => {
    it(fork ? 'starts a tool by Node\'s spawn when asked to, though posix_spawn is there' : 'starts tools without fork on Linux with glibc', () => {
      expect(spawnsWithoutFork()).to.equal(true);
      const child = spawnTool('/bin/true', [], { pipes: [], fork });
      expect(child instanceof ChildProcess).to.equal(fork);
      return closed(child);
    });

    it('gives the tool\'s output, exit code and error output', async () => {
      expect(await runTool('/bin/sh', ['-c', 'echo out; echo err >&2; exit 3'], { fork })).to.deep.equal({ code: 3, signal: null, stdout: 'out\n', stderr: 'err\n', timedOut: false });
      const version = await runTool(ffmpegPath, ['-hide_banner', '-version'], { fork });
      expect(version.code).to.equal(0);
      expect(version.stdout).to.match(/^ffmpeg version /);
    });

    it('finds a tool named without a path in PATH, and gives it the environment asked for', async () => {
      const run = await runTool('sh', ['-c', 'echo "$VIGIL_TEST_VALUE"'], { env: { PATH: process.env.PATH, VIGIL_TEST_VALUE: 'given' }, fork });
      expect(run).to.include({ code: 0, stdout: 'given\n' });
    });

    it('pipes the descriptors asked for, each on its own, and gives the others /dev/null', async () => {
      const child = spawnTool('/bin/sh', ['-c', 'echo one; echo three >&3; echo five >&5; echo four >&4 || echo no-four >&2'], { pipes: [1, 2, 3, 5], fork });
      const got: Record<number, string> = {};
      for (const fd of [1, 2, 3, 5]) child.stdio[fd]!.setEncoding('utf8').on('data', (d: string) => (got[fd] = (got[fd] ?? '') + d));
      expect(child.stdio[4]).to.equal(null);
      expect(await closed(child)).to.deep.equal([0, null]);
      expect(got).to.deep.equal({ 1: 'one\n', 3: 'three\n', 5: 'five\n' }); // fd 4 took the line silently: /dev/null
    });

    it('starts the tool with SIGPIPE at its default, though Node ignores it', async () => {
      // a writer into a closed pipe dies of SIGPIPE (exit status 141 in the shell) instead of looping on EPIPE
      const run = await runTool('/bin/sh', ['-c', 'yes | head -c 2 >/dev/null; trap'], { fork });
      expect(run.code).to.equal(0);
      expect(run.stdout).to.equal(''); // no signal is set to ignore
    });

    it('tells a tool killed by a signal, stops one at its time limit and on abort', async () => {
      expect((await runTool('/bin/sh', ['-c', 'kill -TERM $$'], { fork })).signal).to.equal('SIGTERM');
      const slow = await runTool('/bin/sleep', ['30'], { timeoutMs: 100, fork });
      expect(slow).to.include({ code: null, signal: 'SIGKILL', timedOut: true });
      const abort = new AbortController();
      const child = spawnTool('/bin/sleep', ['30'], { pipes: [2], signal: abort.signal, fork });
      setTimeout(() => abort.abort(), 50);
      expect(await closed(child)).to.deep.equal([null, 'SIGKILL']);
      expect(child.kill('SIGKILL')).to.equal(false); // reaped: its pid is not signalled again
    });

    it('answers a missing tool with an ENOENT error, as Node\'s spawn does', async () => {
      const child = spawnTool('/nonexistent/ffmpeg', [], { pipes: [1, 2], fork });
      const [error] = await Promise.all([new Promise<NodeJS.ErrnoException>((resolve) => child.once('error', resolve)), closed(child)]);
      expect(error.code).to.equal('ENOENT');
    });
  });
}

describe('starting tools (posix_spawn) and the daemon\'s memory', () => {
  it('leaves the daemon\'s memory alone: no page of it faults again after a tool started', async () => {
    const memory = Array.from({ length: 10 }, () => Buffer.alloc(4_000_000, 1)); // 40 MB: about 9,800 pages
    const touch = () => memory.forEach((b) => { for (let i = 0; i < b.length; i += 4096) b[i]!++; });
    touch();
    await runTool('/bin/true', []);
    const before = minorFaults();
    touch();
    // after a fork, every one of those pages would fault once (copy-on-write protection)
    expect(minorFaults() - before).to.be.below(500);
  });
});
