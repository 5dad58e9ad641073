// Which frames are painted through a colour map (a thermal camera's false colour), on real
// frames decoded by the real ffmpeg.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { falseColour, toBrightness } from '../../runtime/pipeline/false-colour.js';
import { readFrameSets } from '../../runtime/pipeline/frames.js';
import { media } from '../support/paths.js';
import { colourMap } from '../support/thermal.js';

/** The clip's frame at 1 s (or its first), RGB at 320x180. */
async function frameOf(file: string): Promise<Buffer> {
  const frames: Buffer[] = [];
  for await (const [rgb] of readFrameSets({ input: file, filters: 'fps=1', sizes: [{ width: 320, height: 180 }], signal: new AbortController().signal })) frames.push(rgb!);
  return frames[Math.min(1, frames.length - 1)]!;
}

describe('false colour', () => {
  const clips = [
    ...fs.readdirSync(media('real')).filter((f) => /\.(mp4|avi)$/.test(f)).map((f) => path.join(media('real'), f)),
    ...fs.readdirSync(media('nuisance')).filter((f) => /\.(mp4|avi)$/.test(f)).map((f) => path.join(media('nuisance'), f)),
    media('face_closeup.avi'), media('indoor_plants.mp4'), media('cartoon.avi'),
  ];

  it('no frame of the real footage is painted: daylight and lamps leave grays, whites and muted surfaces in every view', async () => {
    for (const clip of clips) expect(falseColour(await frameOf(clip)), path.basename(clip)).to.equal(false);
  });

  it('nor is a photograph coloured all over (sunflowers, a cat): a surface keeps its hue in light and in shade', async () => {
    for (const photo of ['sunflower.png', 'cat.png', 'parrot.jpg', 'pets.jpg', 'owl.jpg']) {
      const frames: Buffer[] = [];
      for await (const [rgb] of readFrameSets({ input: media(photo), filters: 'null', sizes: [{ width: 300, height: 300 }], signal: new AbortController().signal })) frames.push(rgb!);
      expect(falseColour(frames[0]!), photo).to.equal(false);
    }
  });

  it('the same frames, their brightness painted through a thermal camera\'s iron or rainbow colour map, are', async () => {
    for (const palette of ['iron', 'rainbow'] as const) {
      const lut = colourMap(palette);
      for (const clip of clips) {
        const frame = await frameOf(clip);
        toBrightness(frame);
        const painted = Buffer.alloc(frame.length);
        for (let p = 0; p < frame.length; p += 3) for (let k = 0; k < 3; k++) painted[p + k] = lut[3 * frame[p]! + k]!;
        expect(falseColour(painted), `${palette}: ${path.basename(clip)}`).to.equal(true);
      }
    }
  });

  it('a frame is given by its brightness, gray, in place', () => {
    const rgb = Uint8Array.from([255, 0, 0, 0, 255, 0, 0, 0, 255, 200, 100, 50]);
    toBrightness(rgb);
    expect([...rgb]).to.deep.equal([76, 76, 76, 150, 150, 150, 29, 29, 29, 124, 124, 124]);
  });
});
