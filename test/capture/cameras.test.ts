// Camera capture end to end: the real daemon records with ffmpeg from real
// servers on loopback (RTSP, MJPEG over HTTP) and from cameras that refuse,
// fail authentication or never answer; the last ones give a final 3001 result.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import mqtt from 'mqtt';
import { panClip, tempDir } from '../support/clips.js';
import { TestBroker } from '../support/broker.js';
import { TestDaemon, freePort } from '../support/daemon.js';
import { parseExposition, value } from '../support/prom-text.js';
import { MjpegCamera, RtspCamera, SilentCamera, rtspServerBinary } from '../support/cameras.js';

const CAPTURE_FAILED = 3001;
const PASSWORD = 'pa55-w0rd-for-the-test';
const WRONG_PASSWORD = 'not-the-password-at-all';
const MQTT_PREFIX = 'vigil-capture-test';

describe('camera capture', function () {
  const rtspBinary = rtspServerBinary();
  let dir: string;
  let rtsp: RtspCamera | undefined;
  let mjpeg: MjpegCamera;
  let silent: SilentCamera;
  let broker: TestBroker;
  let daemon: TestDaemon;

  before(async () => {
    dir = tempDir('vigil-capture-');
    if (rtspBinary) {
      // a key frame each second, as cameras stream: a recording starts at one (ffmpeg reads the
      // stream up to it before it writes), and one every 4 s left a 2 s recording 7 s at most
      const clip = await panClip('traffic_0001.png', path.join(dir, 'traffic.mp4'), 4, 10, 320, 1);
      rtsp = await new RtspCamera(rtspBinary, clip, 'traffic').start();
    }
    mjpeg = await new MjpegCamera('viewer', PASSWORD).start(dir);
    silent = await new SilentCamera().start();
    const passwordFile = path.join(dir, 'camera-password');
    fs.writeFileSync(passwordFile, PASSWORD + '\n');
    const closedPort = await freePort();
    const cameras: Record<string, unknown>[] = [
      { id: 'mjpeg-cam', url: mjpeg.url(), username: 'viewer', password_file: passwordFile, record_s: 2, timeout_s: 5 },
      { id: 'wrong-password', url: mjpeg.url(), username: 'viewer', password: WRONG_PASSWORD, record_s: 2, timeout_s: 5 },
      { id: 'closed-port', url: `rtsp://127.0.0.1:${closedPort}/stream`, record_s: 2, timeout_s: 3 },
      { id: 'silent', url: `rtsp://127.0.0.1:${silent.port}/stream`, record_s: 2, timeout_s: 2 },
      { id: 'trickle', url: mjpeg.url('/trickle'), record_s: 1, timeout_s: 2 },
      { id: 'other-tenant-cam', url: mjpeg.url(), tenant: 'tenant-b', record_s: 1, timeout_s: 5 },
    ];
    if (rtsp) {
      cameras.push(
        { id: 'rtsp-cam', url: rtsp.url, record_s: 2, timeout_s: 5 },
        { id: 'rtsp-no-stream', url: rtsp.url.replace(/\/traffic$/, '/nothing-here'), record_s: 2, timeout_s: 5 },
      );
    }
    broker = await new TestBroker().start();
    daemon = await new TestDaemon({ config: { cameras, mqtt: { enabled: true, url: broker.url, prefix: MQTT_PREFIX, gateway_id: 'gw' } } }).start();
  });

  after(async () => {
    await daemon?.cleanup();
    await rtsp?.stop();
    await mjpeg?.stop();
    await silent?.stop();
    await broker?.cleanup();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const capture = (camera: string, query = '', key = daemon.tenantKey) =>
    fetch(`${daemon.url}/api/cameras/${camera}/capture${query}`, { method: 'POST', headers: daemon.auth(key) });

  /** A camera that could not be recorded from: a final stored result, 3001, a reason, and nothing secret in it. */
  async function expectCaptureFailure(camera: string, reason: RegExp): Promise<Record<string, any>> {
    const res = await capture(camera, '?sync=true');
    expect(res.status).to.equal(200);
    const result = (await res.json()) as Record<string, any>;
    expect(result.error_code).to.equal(CAPTURE_FAILED);
    expect(result.status).to.deep.equal({ classify: 'error', video: 'error' });
    expect(result.result).to.equal('error');
    expect(result.camera_id).to.equal(camera);
    expect(result.tenant).to.equal('tenant-a');
    expect(result.error_msg).to.include(camera).and.match(reason);
    expect(result.video.filesize).to.equal(0);
    const stored = await daemon.waitForResult(result.id, 10_000);
    expect(stored).to.deep.equal(result);
    return result;
  }

  it('records from an RTSP camera and classifies the clip with camera_id set', async function () {
    if (!rtsp) {
      console.log('      (skipped: rtsp-server-perl is not installed; `apt-get install rtsp-server-perl` or .ci/run installs it)');
      this.skip();
    }
    const res = await capture('rtsp-cam', '?parent_id=alarm-17');
    expect(res.status).to.equal(202);
    const accepted = (await res.json()) as Record<string, string>;
    expect(Object.keys(accepted).sort()).to.deep.equal(['accepted_at', 'id']);
    const result = await daemon.waitForResult(accepted.id);
    expect(result.error_code, result.error_msg).to.not.equal(CAPTURE_FAILED);
    expect(result.camera_id).to.equal('rtsp-cam');
    expect(result.parent_id).to.equal('alarm-17');
    expect(result.tenant).to.equal('tenant-a');
    expect(result.video.filesize).to.be.greaterThan(0);
    expect(result.video.videoname).to.match(/^rtsp-cam-\d{8}T\d{6}Z\.mp4$/);
    // the stream published from the 320-wide clip
    expect(result.video.specs['original.width']).to.equal(320);
    expect(result.video.specs['original.nframes']).to.be.greaterThan(0);
  });

  it('gives a 3001 result when the RTSP server has no such stream', async function () {
    if (!rtsp) {
      console.log('      (skipped: rtsp-server-perl is not installed)');
      this.skip();
    }
    await expectCaptureFailure('rtsp-no-stream', /404|not found/i);
  });

  it('records from an MJPEG HTTP camera with credentials from a password file (sync=true)', async () => {
    const res = await capture('mjpeg-cam', '?sync=true');
    expect(res.status).to.equal(200);
    const result = (await res.json()) as Record<string, any>;
    expect(result.error_code, result.error_msg).to.not.equal(CAPTURE_FAILED);
    expect(result.camera_id).to.equal('mjpeg-cam');
    expect(result.status.classify).to.be.oneOf(['done', 'error']);
    expect(result.video.specs['original.width']).to.equal(320);
    expect(result.video.specs['original.nframes']).to.be.greaterThan(0);
  });

  it('records when a message arrives on the MQTT command topic <prefix>/<gateway id>/cameras/<id>/capture', async () => {
    const client = await mqtt.connectAsync(broker.url, { connectTimeout: 5000 });
    try {
      await daemon.waitForLog((r) => r.msg === 'connected to the MQTT broker');
      // the daemon subscribes just after it connects: repeat until it has heard one (bounded)
      const heard = (r: { msg: string }) => r.msg === 'capture requested over MQTT';
      for (let i = 0; i < 15 && !daemon.logs.some(heard); i++) {
        await client.publishAsync(`${MQTT_PREFIX}/gw/cameras/mjpeg-cam/capture`, '{}', { qos: 1 });
        await daemon.waitForLog(heard, 1000).catch(() => undefined);
      }
      const record = await daemon.waitForLog((r) => r.msg === 'recorded' && r.camera === 'mjpeg-cam' && r.source === 'mqtt');
      const result = await daemon.waitForResult(String(record.id));
      expect(result.camera_id).to.equal('mjpeg-cam');
      expect(result.error_code, result.error_msg).to.not.equal(CAPTURE_FAILED);
    } finally {
      await client.endAsync(true);
    }
  });

  it('gives one recording to triggers that arrive while the camera is recording', async () => {
    const [a, b] = await Promise.all([capture('mjpeg-cam'), capture('mjpeg-cam')]);
    expect([a.status, b.status]).to.deep.equal([202, 202]);
    const [first, second] = (await Promise.all([a.json(), b.json()])) as Array<Record<string, string>>;
    expect(second.id).to.equal(first.id);
    const result = await daemon.waitForResult(first.id);
    expect(result.camera_id).to.equal('mjpeg-cam');
    expect(result.error_code).to.not.equal(CAPTURE_FAILED);
  });

  it('gives a 3001 result for a camera that refuses the credentials, without the password in it', async () => {
    const result = await expectCaptureFailure('wrong-password', /401|unauthori[sz]ed/i);
    expect(JSON.stringify(result)).to.not.include(WRONG_PASSWORD);
    expect(JSON.stringify(daemon.logs)).to.not.include(WRONG_PASSWORD);
    expect(JSON.stringify(daemon.logs)).to.not.include(PASSWORD);
  });

  it('gives a 3001 result for a camera whose port is closed', async () => {
    await expectCaptureFailure('closed-port', /refused/i);
  });

  it('gives a 3001 result, not a hung job, for a camera that accepts the connection and never answers', async () => {
    await expectCaptureFailure('silent', /no answer|no complete/i);
  });

  it('kills a recording that never completes (a camera trickling bytes) and gives a 3001 result', async () => {
    await expectCaptureFailure('trickle', /no complete 1 s recording within 3 s/);
  });

  it("answers 404 for an unknown camera and for another tenant's camera, 401 without a key", async () => {
    const unknown = await capture('no-such-camera');
    expect(unknown.status).to.equal(404);
    expect(await unknown.json()).to.have.nested.property('error.code', 'not_found');
    const foreign = await capture('other-tenant-cam');
    expect(foreign.status).to.equal(404);
    const anonymous = await fetch(`${daemon.url}/api/cameras/mjpeg-cam/capture`, { method: 'POST' });
    expect(anonymous.status).to.equal(401);
  });

  it('rejects bad trigger fields with 400 before recording', async () => {
    const res = await capture('mjpeg-cam', '?analyse_id=seven');
    expect(res.status).to.equal(400);
    expect(await res.json()).to.have.nested.property('error.code', 'invalid_analyse_id');
  });

  it('counts the recordings above by outcome in /metrics', async () => {
    const exp = parseExposition(await (await fetch(`${daemon.url}/metrics`)).text());
    // the MJPEG camera recorded; closed port, wrong password, silence and trickle failed
    expect(value(exp, 'vigil_captures_total', { outcome: 'recorded' })).to.be.at.least(1);
    expect(value(exp, 'vigil_captures_total', { outcome: 'camera_failed' })).to.be.at.least(4);
  });
});
