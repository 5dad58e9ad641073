// Logs as an installer reads them: journald priorities when stdout is the
// journal, secrets censored, stacks kept, and one line per refused request with
// its status, code, tenant, remote address and request id (also in X-Request-Id).
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { createLogger } from '../../runtime/core/log.js';
import { stillClip, tempDir } from '../support/clips.js';
import { TestDaemon, type LogRecord } from '../support/daemon.js';
import { PROJECT_ROOT } from '../support/paths.js';

const run = promisify(execFile);

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
    const { stdout } = await run(process.execPath, [path.join(PROJECT_ROOT, 'dist/runtime/cli.js'), 'models', 'list', '--config', daemon.configFile]);
    expect(stdout).to.not.match(/"level":/);
  });
});
