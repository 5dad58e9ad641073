// Logs as an installer reads them: journald priorities when stdout is the
// journal, readable lines on a terminal (run under a real pseudo-terminal with
// util-linux `script`), JSON lines otherwise, secrets censored in both, stacks
// kept, and one line per refused request with its status, code, tenant, remote
// address and request id (also in X-Request-Id).
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import YAML from 'yaml';
import { createLogger } from '../../runtime/core/log.js';
import { stillClip, tempDir } from '../support/clips.js';
import { TestDaemon, freePort, type LogRecord } from '../support/daemon.js';
import { PROJECT_ROOT, SHARED_MODELS } from '../support/paths.js';

const run = promisify(execFile);
const CLI = path.join(PROJECT_ROOT, 'dist/runtime/cli.js');

/** A readable record: local time, level, component, message, then the fields (colours taken off). */
const PRETTY_LINE = /^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}\] (DEBUG|INFO|WARN|ERROR|FATAL): vigil(\.[\w.-]+)?: \S/;
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r/g, '');

/**
 * Runs a shell command with a pseudo-terminal as its stdin, stdout and stderr
 * (`script`), types Ctrl-C once `until` appears in what it printed, and
 * resolves with all it printed, colours and carriage returns taken off.
 */
function onTerminal(command: string, until?: string, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    // `exec`: the command replaces the shell `script` starts ($SHELL, or sh where it is
    // unset). A shell left waiting would take the Ctrl-C too and die of it, whatever the
    // command did with its own.
    const child = spawn('script', ['-qfec', `exec ${command}`, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let interrupted = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (until && !interrupted && plain(out).includes(until)) {
        interrupted = true;
        child.stdin.write('\x03'); // the terminal turns it into SIGINT for the command
      }
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      // the terminal echoes the Ctrl-C as ^C
      if (code === 0) resolve(plain(out).replace(/\^C/g, ''));
      else reject(new Error(`${command}: exit ${code}\n${plain(out)}`));
    });
  });
}

describe('logs: format', () => {
  it('keeps the {level, time, component, msg} fields, stacks of errors and censors secrets', () => {
    const lines: string[] = [];
    const log = createLogger('debug', (l) => lines.push(l)).child('http');
    const err = new Error('outer', { cause: new Error('inner') });
    log.error('failed', { err, webhook: { url: 'http://x', headers: { authorization: 'Bearer s3cret-token' } }, password: 'hunter2' });
    const record = JSON.parse(lines[0]) as Record<string, any>;
    expect(record).to.include({ level: 'error', component: 'vigil.http', msg: 'failed' });
    expect(new Date(record.time).toISOString()).to.equal(record.time);
    expect(record.err.message).to.match(/^outer/);
    expect(record.err.stack).to.match(/^Error: outer\n\s+at /);
    expect(record.err.cause.message).to.equal('inner');
    expect(lines[0]).to.not.include('s3cret-token');
    expect(lines[0]).to.not.include('hunter2');
    expect(record.password).to.equal('[redacted]');
  });

  it('takes user info and query values out of every URL in a line, wherever it sits, and keeps the line JSON', () => {
    const lines: string[] = [];
    const log = createLogger('debug', (l) => lines.push(l)).child('capture');
    const err = new Error('cannot open "rtsp://cam:cam-pw@127.0.0.1:554/live?token=tok-1&channel=2"');
    log.warn('fetch of https://user:pw-2@mirror.example/packs?sig=sig-3 failed', { err, detail: 'see http://127.0.0.1:9/x?pwd=pwd-4', plain: 'http://127.0.0.1:8080' });
    const record = JSON.parse(lines[0]!) as Record<string, any>;
    for (const secret of ['cam-pw', 'tok-1', 'pw-2', 'sig-3', 'pwd-4', 'channel=2']) expect(lines[0], secret).to.not.include(secret);
    expect(record.msg).to.equal('fetch of https://mirror.example/packs?sig=*** failed');
    expect(record.err.message).to.equal('cannot open "rtsp://127.0.0.1:554/live?token=***&channel=***"');
    expect(record.detail).to.equal('see http://127.0.0.1:9/x?pwd=***');
    expect(record.plain).to.equal('http://127.0.0.1:8080');
  });

  it('on request prints one readable line per record, censored as the JSON is', () => {
    const lines: string[] = [];
    const log = createLogger('debug', (l) => lines.push(l), 'vigil', { pretty: true }).child('http');
    log.info('listening on http://admin:pw-1@127.0.0.1:8080/?token=tok-2', { port: 8080, request_id: 'r-1', headers: { authorization: 'Bearer s3cret-token' }, password: 'hunter2' });
    log.error('failed', { err: new Error('outer', { cause: new Error('inner') }) });
    const text = plain(lines.join('\n'));
    for (const secret of ['pw-1', 'tok-2', 's3cret-token', 'hunter2']) expect(text, secret).to.not.include(secret);
    const first = plain(lines[0]!);
    expect(first).to.match(PRETTY_LINE);
    expect(first).to.include('INFO: vigil.http: listening on http://127.0.0.1:8080/?token=***');
    expect(first).to.include('"port":8080');
    expect(first).to.include('"request_id":"r-1"');
    expect(first).to.include('"password":"[redacted]"');
    expect(first, 'one line').to.not.include('\n');
    // an error's stack follows its line, indented
    const error = plain(lines[1]!).split('\n');
    expect(error[0]).to.match(/ERROR: vigil\.http: failed$/);
    expect(error.slice(1).join('\n')).to.match(/^\s+Error: outer$/m).and.match(/^\s+at /m).and.include('inner');
  });

  it('drops lines below the level', () => {
    const lines: string[] = [];
    const log = createLogger('warn', (l) => lines.push(l));
    log.info('not shown');
    log.warn('shown');
    expect(lines.map((l) => JSON.parse(l).msg)).to.deep.equal(['shown']);
  });

  it('prefixes journald priorities exactly when stdout is the stream JOURNAL_STREAM names', async () => {
    const dir = tempDir();
    try {
      const script = path.join(dir, 'log.mjs');
      const logModule = path.join(PROJECT_ROOT, 'dist/runtime/core/log.js');
      fs.writeFileSync(script, [
        `import fs from 'node:fs';`,
        `import { createLogger } from ${JSON.stringify(logModule)};`,
        // the journal's stream is stdout itself (what systemd does), or, for the control run, another file
        `const st = fs.fstatSync(process.argv[2] === 'self' ? 1 : 0);`,
        `process.env.JOURNAL_STREAM = st.dev + ':' + st.ino;`,
        `const log = createLogger('debug');`,
        `log.debug('d'); log.info('i'); log.warn('w'); log.error('e');`,
      ].join('\n'));
      const lines = async (mode: string) => {
        const out = path.join(dir, `${mode}.log`);
        const fd = fs.openSync(out, 'w');
        await new Promise<void>((resolve, reject) => {
          const child = spawn(process.execPath, [script, mode], { stdio: ['ignore', fd, 'inherit'] });
          child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
        });
        fs.closeSync(fd);
        return fs.readFileSync(out, 'utf8').trim().split('\n');
      };
      const journal = await lines('self');
      expect(journal.map((l) => l.slice(0, 3))).to.deep.equal(['<7>', '<6>', '<4>', '<3>']);
      expect(JSON.parse(journal[2].slice(3)).msg).to.equal('w');
      const plain = await lines('other');
      for (const l of plain) expect(l.startsWith('{'), l).to.equal(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('logs: refused requests and request ids on the daemon', function () {
  let daemon: TestDaemon;
  let dir: string;
  let clip: string;

  before(async () => {
    dir = tempDir();
    clip = await stillClip('grace_hopper.png', path.join(dir, 'grace.mp4'), 2, 10, 320);
    daemon = await new TestDaemon({ config: { server: { max_upload_bytes: 200_000 } } }).start();
  });
  after(async () => {
    await daemon?.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const refusal = (requestId: string) => (r: LogRecord) => r.msg === 'request refused' && r.request_id === requestId;

  it('a request without a key: 401 logged as a warning with code, remote address and request id', async () => {
    const res = await fetch(`${daemon.url}/api/result/00000000-0000-4000-8000-000000000000`);
    expect(res.status).to.equal(401);
    const requestId = res.headers.get('x-request-id')!;
    expect(requestId).to.match(/^[0-9a-f-]{36}$/);
    const line = await daemon.waitForLog(refusal(requestId));
    expect(line).to.include({ level: 'warn', status: 401, code: 'unauthorized', remote: '127.0.0.1', method: 'GET' });
    expect(line).to.not.have.property('tenant');
  });

  it('keeps the sender\'s X-Request-Id and names the tenant once known (413, 422)', async () => {
    const big = await fetch(`${daemon.url}/api/classify`, {
      method: 'POST',
      headers: { ...daemon.auth(), 'content-type': 'video/mp4', 'x-request-id': 'nvr-upload-413' },
      body: new Uint8Array(300_000),
    });
    expect(big.status).to.equal(413);
    expect(big.headers.get('x-request-id')).to.equal('nvr-upload-413');
    expect(await daemon.waitForLog(refusal('nvr-upload-413'))).to.include({ status: 413, code: 'too_large', tenant: 'tenant-a' });

    const text = await fetch(`${daemon.url}/api/classify`, {
      method: 'POST',
      headers: { ...daemon.auth(), 'content-type': 'video/mp4', 'x-request-id': 'nvr-upload-422' },
      body: 'not a video at all',
    });
    expect(text.status).to.equal(422);
    const body = (await text.json()) as { error: { code: string; message: string } };
    expect(body.error.code).to.equal('invalid_video');
    expect(body.error.message, 'no machine path in the answer').to.not.match(/\/[A-Za-z0-9_.-]+\//);
    expect(await daemon.waitForLog(refusal('nvr-upload-422'))).to.include({ status: 422, code: 'invalid_video', tenant: 'tenant-a' });
  });

  it('an invented request id is replaced', async () => {
    const res = await fetch(`${daemon.url}/api/classify`, {
      method: 'POST',
      headers: { ...daemon.auth(), 'content-type': 'video/mp4', 'x-request-id': 'bad id with spaces' },
      body: 'still not a video',
    });
    expect(res.status).to.equal(422);
    const requestId = res.headers.get('x-request-id')!;
    expect(requestId).to.not.equal('bad id with spaces');
    expect(await daemon.waitForLog(refusal(requestId))).to.include({ status: 422 });
  });

  it('every line written while handling a request carries its id; the job that follows does not', async () => {
    const id = await daemon.submit(clip, {}, '', daemon.tenantKey, { 'x-request-id': 'upload-ok-1' });
    const accepted = await daemon.waitForLog((r) => r.msg === 'clip accepted' && r.id === id);
    expect(accepted.request_id).to.equal('upload-ok-1');
    const request = await daemon.waitForLog((r) => r.msg === 'request' && r.request_id === 'upload-ok-1');
    // each line has its own fields: none of the acceptance line's leaks into the request line
    expect(request).to.include({ status: 202, method: 'POST' });
    expect(request).to.not.have.property('codec');
    await daemon.waitForResult(id);
    const final = await daemon.waitForLog((r) => r.msg === 'classification final' && r.id === id);
    expect(final).to.not.have.property('request_id');
  });

  it('a `vigil` one-shot command logs to stderr, leaving stdout to its answer', async () => {
    const { stdout } = await run(process.execPath, [CLI, 'models', 'list', '--config', daemon.configFile]);
    expect(stdout).to.not.match(/"level":/);
  });
});

describe('logs: readable lines on a terminal, JSON lines otherwise', function () {
  let dir: string;
  let config: string;

  before(async () => {
    dir = tempDir();
    config = path.join(dir, 'vigil.yaml');
    fs.writeFileSync(config, YAML.stringify({
      server: { host: '127.0.0.1', port: await freePort() },
      storage: { data_dir: path.join(dir, 'data') },
      tenants: [{ id: 'tenant-a', api_keys: ['tenant-a-key-for-the-log-test-0001'] }],
      models: { source: SHARED_MODELS },
    }));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('`vigil serve` on a terminal prints readable lines, none of them JSON, and stops on Ctrl-C', async () => {
    const out = await onTerminal(`${process.execPath} ${CLI} serve --config ${config}`, 'vigil started');
    const lines = out.split('\n').filter((l) => l.trim() !== '');
    for (const line of lines) expect(line, line).to.match(PRETTY_LINE);
    expect(lines.some((l) => /INFO: vigil\.http: listening \{.*"port":\d+/.test(l))).to.equal(true);
    expect(lines.some((l) => /INFO: vigil: vigil started/.test(l))).to.equal(true);
    expect(lines.some((l) => /INFO: vigil: stopping \{"signal":"SIGINT"\}/.test(l))).to.equal(true);
  });

  it('`vigil serve` piped (as under systemd or a log shipper) prints JSON lines, exactly one record each', async () => {
    const child = spawn(process.execPath, [CLI, 'serve', '--config', config], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('"msg":"vigil started"')) child.kill('SIGTERM');
      });
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}: ${out}`))));
    });
    const records = out.trim().split('\n').map((l) => JSON.parse(l) as LogRecord);
    expect(records.map((r) => r.msg)).to.include.members(['listening', 'vigil started', 'stopping']);
    for (const r of records) expect(Object.keys(r).slice(0, 3), JSON.stringify(r)).to.deep.equal(['level', 'time', 'component']);
  });

  it('a one-shot command logs readable lines to a terminal and JSON to a pipe, on stderr', async () => {
    // `models pull` logs each file it fetches; on the terminal its stdout goes elsewhere, so what shows is stderr
    const pull = ['models', 'pull', '--config', config, '--source', SHARED_MODELS];
    const terminal = await onTerminal(`${process.execPath} ${CLI} ${pull.join(' ')} >/dev/null`);
    const lines = terminal.split('\n').filter((l) => l.trim() !== '');
    expect(lines.length).to.be.greaterThan(0);
    for (const line of lines) expect(line, line).to.match(PRETTY_LINE);
    const piped = await run(process.execPath, [CLI, ...pull]);
    const records = piped.stderr.trim().split('\n').map((l) => JSON.parse(l) as LogRecord);
    expect(records.length).to.be.greaterThan(0);
    expect(piped.stdout).to.not.match(/"level":/);
  });

  it('secrets stay censored on a terminal, as in JSON', async () => {
    const script = path.join(dir, 'secrets.mjs');
    fs.writeFileSync(script, [
      `import { createLogger } from ${JSON.stringify(path.join(PROJECT_ROOT, 'dist/runtime/core/log.js'))};`,
      `const log = createLogger('debug').child('capture');`,
      `log.warn('cannot open rtsp://cam:cam-pw@127.0.0.1:554/live?token=tok-1', { password: 'hunter2', webhook: { headers: { authorization: 'Bearer s3cret' } }, err: new Error('fetch of https://u:pw-2@127.0.0.1/x?sig=sig-3 failed') });`,
    ].join('\n'));
    const out = await onTerminal(`${process.execPath} ${script}`);
    expect(out).to.match(PRETTY_LINE);
    expect(out).to.include('WARN: vigil.capture: cannot open rtsp://127.0.0.1:554/live?token=***');
    expect(out).to.include('"password":"[redacted]"');
    for (const secret of ['cam-pw', 'tok-1', 'hunter2', 's3cret', 'pw-2', 'sig-3']) expect(out, secret).to.not.include(secret);
  });
});
