import type { Logger } from 'pino';

/** A part of the process with something to do at start or at stop. */
export interface Component {
  name: string;
  start?(): Promise<void> | void;
  stop?(): Promise<void> | void;
}

/**
 * Starts components in the order they were added (their dependency order) and stops the started ones in
 * reverse: the network side first, then HTTP, background jobs, the records flush, the database last.
 * A start that fails stops what had started, then rethrows; a stop that fails is logged and the rest
 * still stop, so the database always closes.
 */
export function createLifecycle(deps: { logger: Logger }) {
  const components: Component[] = [];
  const started: Component[] = [];
  let stopping: Promise<void> | undefined;

  async function stopStarted(): Promise<void> {
    while (started.length > 0) {
      const component = started.pop() as Component;
      try {
        await component.stop?.();
      } catch (error) {
        deps.logger.error({ err: error, component: component.name }, `stopping ${component.name} failed`);
      }
    }
  }

  return {
    add(component: Component): void {
      if (started.length > 0 || stopping) throw new Error(`cannot add ${component.name}: already started`);
      components.push(component);
    },

    async start(): Promise<void> {
      for (const component of components) {
        try {
          await component.start?.();
        } catch (error) {
          // A component that failed halfway may hold resources: it stops with the others.
          started.push(component);
          await stopStarted();
          throw error;
        }
        started.push(component);
      }
    },

    /** Idempotent: later calls wait for the first. */
    stop(): Promise<void> {
      stopping ??= stopStarted();
      return stopping;
    },

    /** Names in start order, for the docs and tests. */
    names: (): string[] => components.map((component) => component.name),
  };
}
