// Real camera footage (../shared/media/real) through the daemon with the
// default pack: the outcomes that decide whether a gateway is worth
// installing. A far person and an overhead view are found, an empty room
// stays NOTHING without a network run, and people who stay put are present
// (danger), not intruders.
import fs from 'node:fs';
import { expect } from 'chai';
import { rainScore } from '../../runtime/pipeline/decide.js';
import { analyseMotion } from '../../runtime/pipeline/motion.js';
import { probeClip } from '../../runtime/pipeline/probe.js';
import { suiteDaemon } from '../support/daemon.js';
import { media } from '../support/paths.js';

describe('real camera footage (default pack, real models)', function () {
  this.timeout(300_000);
  const daemon = suiteDaemon();

  async function classify(name: string): Promise<Record<string, any>> {
    const result = await daemon().classified(media(`real/${name}`));
    expect(result.labels, 'no weather on this footage').to.not.include('rain');
    return result;
  }

  // None of the real footage here shows rain or snow: the motion pass with its precipitation
  // analysis, and the rain rule, on every clip (the classifications above and the bench's quality
  // table take them through the whole pipeline).
  for (const folder of ['real', 'nuisance']) {
    for (const name of fs.readdirSync(media(folder)).filter((f) => f.endsWith('.mp4'))) {
      it(`${folder}/${name}: no rain`, async () => {
        const clip = await probeClip(media(`${folder}/${name}`));
        const { pattern } = await analyseMotion(clip, new AbortController().signal);
        expect(rainScore(pattern), JSON.stringify(pattern)).to.equal(0);
      });
    }
  }

  it('two small people at the far edge of a fisheye ceiling view: person, intrusion', async () => {
    const r = await classify('fisheye_people_edge.mp4');
    expect(r.labels).to.include.members(['person', 'intrusion']);
    for (const label of ['vehicule', 'animal']) expect(r.labels).to.not.include(label);
    expect(r.risk).to.equal('intrusion');
  });

  it('a worker in hard hat and vest seen from above: person, never animal', async () => {
    const r = await classify('worker_hardhat_walking.mp4');
    expect(r.labels).to.include('person');
    expect(r.labels).to.not.include('animal');
    expect(r.risk).to.equal('intrusion');
  });

  it('a parking lot seen from above: a car turning is a vehicule intrusion, nothing is an animal', async () => {
    const r = await classify('lot_car_cyclist_walker.mp4');
    expect(r.labels).to.include.members(['vehicule', 'intrusion']);
    expect(r.labels).to.not.include('animal');
  });

  it('people seated in a meeting room: person, present rather than intruding, never vehicule', async () => {
    const r = await classify('classroom_seated.mp4');
    expect(r.labels).to.include('person');
    expect(r.labels).to.not.include('vehicule');
    expect(r.risk).to.be.oneOf(['danger', 'intrusion']);
  });

  it('an empty room where nothing moves: NOTHING, safe, no network run', async () => {
    const r = await classify('indoor_empty_room.mp4');
    expect(r.labels).to.deep.equal(['NOTHING']);
    expect(r.risk).to.equal('safe');
    const log = await daemon().waitForLog((l) => l.msg === 'clip classified' && l.id === r.id);
    expect(log.frames_inferred).to.equal(0);
  });

  it('produce on a conveyor: no person, vehicule or animal, safe; it moves one way: no flag, wind or plant', async () => {
    const r = await classify('conveyor_produce.mp4');
    for (const label of ['person', 'vehicule', 'animal', 'intrusion', 'flag', 'wind', 'plant']) expect(r.labels).to.not.include(label);
    expect(r.risk).to.equal('safe');
  });
});
