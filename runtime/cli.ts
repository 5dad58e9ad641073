#!/usr/bin/env node
// The `vigil` command.
import { parseArgs } from 'node:util';
import { loadConfig, ConfigError } from './config/load.js';
import { createLogger } from './core/log.js';
import { Daemon } from './daemon.js';

const USAGE = `usage: vigil <command> [options]

commands:
  serve [--config FILE]          run the daemon (embedded defaults without --config)
  config check FILE              validate a config file and exit
`;

async function serve(configFile: string | undefined): Promise<void> {
  const config = loadConfig(configFile);
  const log = createLogger(config.log.level);
  const daemon = await Daemon.create(config, log);
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
    options: { config: { type: 'string', short: 'c' }, help: { type: 'boolean', short: 'h' } },
  });
  const [command, sub, arg] = positionals;
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
  }
  process.stderr.write(USAGE);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err) => {
    if (err instanceof ConfigError) process.stderr.write(`vigil: ${err.message}\n`);
    else process.stderr.write(`vigil: ${err instanceof Error ? err.message : err}\n`);
    process.exit(err instanceof ConfigError ? 78 : 1);
  },
);
