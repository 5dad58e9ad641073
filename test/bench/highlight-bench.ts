// Render time of the annotated highlight per clip, with the real ffmpeg and a
// hand-built analysis (one person box moving across the cut, inferred every
// half second), so the figure is the renderer's alone, not the classifier's.
import fs from 'node:fs';
import path from 'node:path';
import type { Analysis, KeyFrame } from '../../runtime/core/analysis.js';
import { probeClip } from '../../runtime/pipeline/probe.js';
import { renderHighlightVideo } from '../../runtime/highlight/render.js';
import { panClip, stillClip, tempDir } from '../support/clips.js';
import { media } from '../support/paths.js';

function movingPerson(duration: number): Analysis {
  const keyframes: KeyFrame[] = [];
  for (let t = 0; t <= duration; t += 0.5) {
    const f = duration > 0 ? t / duration : 0;
    keyframes.push({ t, score: 0.8, detections: [{ label: 'person', score: 0.8, box: { x: 0.1 + 0.5 * f, y: 0.2, w: 0.3, h: 0.6 } }] });
  }
  return {
    risk: 'danger', labels: ['person'], scores: { person: 0.8 }, keyframes,
    model: 'bench', version: '0', backend: 'cpu',
    stats: { framesInferred: keyframes.length, decodeMs: 0, motionMs: 0, inferenceMs: 0, totalMs: 0 },
  };
}

export async function benchHighlight(): Promise<Array<Record<string, string | number>>> {
  const dir = tempDir('vigil-bench-highlight-');
  try {
    const clips = [
      await stillClip('grace_hopper.png', path.join(dir, 'grace_still.mp4'), 3, 10, 640),
      await panClip('squat.png', path.join(dir, 'squat_pan.mp4'), 4, 10, 640),
      media('hand_ball.mp4'),
      media('cartoon.avi'),
    ];
    const rows: Array<Record<string, string | number>> = [];
    for (const file of clips) {
      const clip = await probeClip(file);
      const outPath = path.join(dir, `${path.basename(file)}.highlight.mp4`);
      const started = performance.now();
      await renderHighlightVideo({ clip, analysis: movingPerson(clip.duration), outPath, signal: new AbortController().signal });
      const renderMs = performance.now() - started;
      const out = await probeClip(outPath);
      rows.push({
        clip: path.basename(file),
        source: `${clip.width}x${clip.height} ${clip.duration.toFixed(1)}s`,
        highlight: `${out.width}x${out.height} ${out.duration.toFixed(1)}s`,
        render_ms: Math.round(renderMs),
      });
    }
    return rows;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
