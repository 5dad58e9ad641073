#!/usr/bin/env node
// The `vigil` command.
// Each command imports only what it runs (the daemon's HTTP server, broker
// client and metrics are not loaded for `vigil classify`): imports are most of
// a one-shot command's start-up.
import { parseArgs } from 'node:util';

/** Logs of the one-shot commands go to stderr, so stdout carries only the answer; readable lines when stderr is a terminal. */
async function stderrLogger(level: 'info' | 'warn' | 'error' | 'debug') {
  const { createLogger } = await import('./core/log.js');
  return createLogger(level, (line) => process.stderr.write(line + '\n'), 'vigil', { pretty: process.stderr.isTTY === true });
}

const USAGE = `usage: vigil <command> [options]

commands:
  serve [--config FILE]          run the daemon (embedded defaults without --config)
  config check FILE              validate a config file and exit
  models pull [--pack P] [--source S]  fetch, verify and activate a model pack
  models list                    installed packs, the active one and the rollback target
  models activate NAME@VERSION   make an installed pack active (a running daemon swaps)
  models rollback                make the previously active pack active again
  classify FILE [--camera ID]    classify one clip with the active pack and print the result JSON
                                 (--camera: with that camera's masks, zones and label filters)
  doctor                         check ffmpeg, the model pack, the accelerator, disk, broker, webhooks and cameras

Every command takes --config FILE (the daemon's config: data folder, model source).
`;

async function serve(configFile: string | undefined): Promise<void> {
  const [{ loadConfig }, { createLogger }] = await Promise.all([import('./config/load.js'), import('./core/log.js')]);
  const config = loadConfig(configFile);
  // before anything is created: the data folder's contents (clips, database, keys) are private by default
  process.umask(parseInt(config.storage.umask, 8));
  const log = createLogger(config.log.level);
  const [{ Daemon }, { DataDirLocked }] = await Promise.all([import('./daemon.js'), import('./store/data-lock.js')]);
  const daemon = await Daemon.create(config, log).catch((err: unknown) => {
    if (err instanceof DataDirLocked) log.error('not started: another daemon uses the data folder', { data_dir: err.dataDir });
    throw err;
  });
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('stopping', { signal });
    await daemon.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  await daemon.start();
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: 'string', short: 'c' },
      help: { type: 'boolean', short: 'h' },
      pack: { type: 'string' },
      source: { type: 'string' },
      camera: { type: 'string' },
    },
  });
  const [command, sub, arg] = positionals;
  // the interpreter worker starts while this process loads the rest (pool.ts, prestartWorker)
  if (command === 'classify' && sub) (await import('./inference/pool.js')).prestartWorker();
  const { loadConfig } = await import('./config/load.js');
  if (values.help || !command) {
    process.stdout.write(USAGE);
    return command || values.help ? 0 : 2;
  }
  switch (command) {
    case 'serve':
      await serve(values.config);
      return -1; // keeps running
    case 'config':
      if (sub !== 'check' || !(arg ?? values.config)) break;
      loadConfig(arg ?? values.config);
      process.stdout.write(`${arg ?? values.config}: valid\n`);
      return 0;
    case 'models': {
      const config = loadConfig(values.config);
      const { modelsActivate, modelsList, modelsPull, modelsRollback } = await import('./models/commands.js');
      const log = await stderrLogger(config.log.level);
      if (sub === 'pull') {
        const id = await modelsPull(config, { pack: values.pack, source: values.source }, log);
        process.stdout.write(`${id} installed and active\n`);
        return 0;
      }
      if (sub === 'list') {
        process.stdout.write(modelsList(config));
        return 0;
      }
      if (sub === 'activate' && arg) {
        process.stdout.write(`${modelsActivate(config, arg)} active\n`);
        return 0;
      }
      if (sub === 'rollback') {
        process.stdout.write(`${modelsRollback(config)} active again\n`);
        return 0;
      }
      break;
    }
    case 'doctor': {
      const { formatFindings, runDoctor } = await import('./ops/doctor.js');
      const findings = await runDoctor(loadConfig(values.config));
      process.stdout.write(formatFindings(findings));
      return findings.every((f) => f.ok) ? 0 : 1;
    }
    case 'classify': {
      if (!sub) break;
      const config = loadConfig(values.config);
      const { classifyFile } = await import('./models/commands.js');
      const { clip, analysis } = await classifyFile(config, sub, await stderrLogger(config.log.level), values.camera);
      const { stats, ...result } = analysis;
      const camera = values.camera === undefined ? {} : { camera_id: values.camera };
      process.stdout.write(JSON.stringify({ file: sub, ...camera, duration_seconds: Math.round(clip.duration), ...result, stats }, null, 2) + '\n');
      return analysis ? 0 : 1;
    }
  }
  process.stderr.write(USAGE);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err) => {
    // config/load.js's ConfigError, told by name: that module loads only once a command runs
    const configError = err instanceof Error && err.name === 'ConfigError';
    process.stderr.write(`vigil: ${err instanceof Error ? err.message : err}\n`);
    process.exit(configError ? 78 : 1);
  },
);
