// Starts the daemon's features in order and stops them in reverse. A feature
// that fails to start stops the ones already started, so nothing is left half up.
import type { Feature } from './core/feature.js';
import type { Logger } from './core/log.js';

export class Controller {
  private started: Feature[] = [];

  constructor(
    private readonly features: Feature[],
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    for (const feature of this.features) {
      try {
        await feature.start();
        this.started.push(feature);
        this.log.debug('feature started', { feature: feature.name });
      } catch (err) {
        this.log.error('feature failed to start', { feature: feature.name, err });
        await this.stop();
        throw err;
      }
    }
  }

  async stop(): Promise<void> {
    for (const feature of this.started.reverse()) {
      try {
        await feature.stop();
        this.log.debug('feature stopped', { feature: feature.name });
      } catch (err) {
        this.log.error('feature failed to stop cleanly', { feature: feature.name, err });
      }
    }
    this.started = [];
  }
}
