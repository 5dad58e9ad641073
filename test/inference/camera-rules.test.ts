// A camera's masks, zones and label filters, through the daemon with the real
// models: the same clip posted with different camera_ids gets each camera's
// rules, and the result keeps exactly the spec's fields.
import path from 'node:path';
import { expect } from 'chai';
import { tempDir, walkerClip } from '../support/clips.js';
import { sunflowerInWindClip } from '../support/nuisance-clips.js';
import { TestDaemon } from '../support/daemon.js';

const WHOLE = [[0, 0], [1, 0], [1, 1], [0, 1]];
const TOP = [[0, 0], [1, 0], [1, 0.5], [0, 0.5]];
const BOTTOM = [[0, 0.5], [1, 0.5], [1, 1], [0, 1]];

describe('camera rules: masks, zones and label filters (default pack, real models)', function () {
  this.timeout(300_000);
  let daemon: TestDaemon;
  let walker: string;
  let sway: string;
  let plain: Record<string, any>;
  const dir = tempDir('vigil-camera-rules-');

  before(async () => {
    daemon = await new TestDaemon({
      config: {
        cameras: [
          { id: 'plain' },
          // the walker's feet are at the bottom of the frame
          { id: 'zone-top', zones: [{ name: 'far', points: TOP }] },
          { id: 'zone-bottom', zones: [{ name: 'near', points: BOTTOM }] },
          { id: 'masked', masks: [BOTTOM] },
          { id: 'vehicles-only', labels: { vehicule: 0.5 } },
          { id: 'strict', labels: { person: 0.999 } },
          { id: 'no-intruders', intrusion_labels: ['vehicule'] },
          { id: 'masked-all', masks: [WHOLE] },
        ],
      },
    }).start();
    walker = await walkerClip('grace_hopper.png', path.join(dir, 'walker.mp4'));
    sway = await sunflowerInWindClip(path.join(dir, 'sway.mp4'), { seconds: 4 });
    plain = await classify(walker, 'plain');
  });
  after(async () => {
    await daemon.cleanup();
  });

  async function classify(file: string, camera: string): Promise<Record<string, any>> {
    const result = await daemon.classified(file, { camera_id: camera });
    expect(result.camera_id).to.equal(camera);
    return result;
  }

  it('without rules, the walker is a person and an intrusion', () => {
    expect(plain.labels).to.include.members(['person', 'intrusion']);
    expect(plain.risk).to.equal('intrusion');
  });

  it('an intrusion outside every zone (tested at the bottom-centre of its box) is not one; inside one it is', async () => {
    const outside = await classify(walker, 'zone-top');
    expect(outside.labels).to.include('person').and.not.include('intrusion');
    expect(outside.risk).to.equal('safe');
    const inside = await classify(walker, 'zone-bottom');
    expect(inside.labels).to.include.members(['person', 'intrusion']);
    expect(inside.risk).to.equal('intrusion');
    // nothing new in the result: the spec's fields only
    expect(Object.keys(inside).sort()).to.deep.equal(Object.keys(plain).sort());
  });

  it('a masked region is neither motion nor a detection', async () => {
    const r = await classify(walker, 'masked');
    expect(r.labels).to.not.include('person');
    expect(r.labels).to.not.include('intrusion');
    expect(r.risk).to.equal('safe');
  });

  it('a swaying plant under a mask moves nothing', async () => {
    const free = await classify(sway, 'plain');
    expect(free.labels).to.include('wind');
    const masked = await classify(sway, 'masked-all');
    expect(masked.labels).to.deep.equal(['NOTHING']);
    expect(masked.risk).to.equal('safe');
  });

  it('only the labels a camera counts, from its scores; its own intrusion labels', async () => {
    const vehicles = await classify(walker, 'vehicles-only');
    expect(vehicles.labels).to.not.include('person');
    expect(vehicles.risk).to.equal('safe');
    const strict = await classify(walker, 'strict');
    expect(strict.labels).to.not.include('person');
    const noIntruders = await classify(walker, 'no-intruders');
    expect(noIntruders.labels).to.include('person').and.not.include('intrusion');
    expect(noIntruders.risk).to.not.equal('intrusion');
  });
});
