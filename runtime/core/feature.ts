// A feature is one part of the daemon with one lifecycle: its constructor only
// stores its arguments; start() acquires resources and subscribes to the bus;
// stop() releases them. The controller starts features in order and stops them
// in reverse.
export interface Feature {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}
