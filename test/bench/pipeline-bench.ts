// Per-clip figures of the pipeline itself, in process with the real models:
// wall time split into motion pass, frame decoding, inference and the rest,
// frames inferred, and the ratio of wall time to the serial inference cost
// (inferences x the median single-inference time of each model, run alone).
import path from 'node:path';
import { EventBus } from '../../runtime/core/bus.js';
import { silentLogger } from '../../runtime/core/log.js';
import { ModelService } from '../../runtime/models/model-service.js';
import { probeClip } from '../../runtime/pipeline/probe.js';
import { tempDir } from '../support/clips.js';
import { SHARED_MODELS } from '../support/paths.js';

export async function benchPipeline(clips: Array<[string, string]>, pack = 'default'): Promise<Array<Record<string, string | number>>> {
  const service = new ModelService({
    models: { pack, source: SHARED_MODELS, auto_pull: true, update_schedule: '', keep: 1, fetch_timeout_s: 60 },
    inference: { device: 'auto', workers: 'auto', threads: 1, timeout_ms: 20_000, max_frames: 4 },
    dataDir: tempDir('vigil-bench-'),
  }, new EventBus(silentLogger), silentLogger);
  await service.start();
  await service.ready();
  const single = await service.measureInference(20);
  const rows: Array<Record<string, string | number>> = [];
  try {
    for (const [name, file] of clips) {
      const clip = await probeClip(file);
      const lease = await service.acquire();
      try {
        const started = performance.now();
        const a = await lease.classifier.classify(clip, new AbortController().signal);
        const wall = performance.now() - started;
        const serial = Object.entries(a.stats.inferences ?? {}).reduce((sum, [model, n]) => sum + n * (single[model] ?? 0), 0);
        rows.push({
          clip: name, size: `${clip.width}x${clip.height}`, seconds: Math.round(clip.duration * 10) / 10,
          wall_ms: Math.round(wall), motion_ms: Math.round(a.stats.motionMs), decode_ms: Math.round(a.stats.decodeMs),
          'inference_ms (sum)': Math.round(a.stats.inferenceMs),
          other_ms: Math.max(0, Math.round(wall - a.stats.motionMs - a.stats.decodeMs - a.stats.inferenceMs)),
          inferences: a.stats.framesInferred,
          'wall/serial': serial ? Math.round((wall / serial) * 100) / 100 : '-',
          risk: a.risk, labels: a.labels.join(','),
        });
      } finally {
        lease.release();
      }
    }
    rows.push({ clip: '(single inference, median of 20)', size: Object.entries(single).map(([m, v]) => `${m} ${v.toFixed(1)} ms`).join(', ') });
  } finally {
    await service.stop();
  }
  return rows;
}

export const benchClipName = (file: string) => path.basename(file);
