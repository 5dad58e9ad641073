// Small animals on real footage (../shared/media/nuisance) through the daemon with the default
// pack: too small or too strange for the networks, they are found by how they move
// (pipeline/small-movers.ts) and are animals, never a person or an intrusion.
import { expect } from 'chai';
import { TestDaemon } from '../support/daemon.js';
import { media } from '../support/paths.js';

describe('small animals on real footage (default pack, real models)', function () {
  this.timeout(300_000);
  let daemon: TestDaemon;

  before(async () => {
    daemon = await new TestDaemon().start();
  });
  after(async () => {
    await daemon.cleanup();
  });

  async function classify(name: string): Promise<Record<string, any>> {
    const res = await daemon.upload(media(`nuisance/${name}`), {}, '?sync=true');
    expect(res.status, await res.clone().text()).to.equal(200);
    const result = (await res.json()) as Record<string, any>;
    expect(result.error_code, result.error_msg).to.equal(0);
    return result;
  }

  it('a tiny spider crawling on a pale wall below a still one: animal, safe', async () => {
    const r = await classify('spider_on_wall.mp4');
    expect(r.labels).to.include('animal');
    expect(r.labels).to.not.include.members(['person', 'vehicule', 'intrusion', 'NOTHING']);
    expect(r.risk).to.equal('safe');
  });

  it('a mouse in an arena seen from above: animal, never person, safe', async () => {
    const r = await classify('mouse_arena_topdown.mp4');
    expect(r.labels).to.include('animal');
    expect(r.labels).to.not.include.members(['person', 'vehicule', 'intrusion']);
    expect(r.risk).to.equal('safe');
  });
});
