import type { Logger } from 'pino';
import type {
  ConfigurationChange,
  ConfigurationChanges,
  ConfigurationEvents,
  ConfigurationListener,
} from '../network/ports/configuration-events.ts';

/**
 * The one channel of configuration changes. Listeners run synchronously after the change committed; a
 * listener that throws is logged and the others still run, since the operator's change has been made.
 * Listeners hand slow work off (a deregistration, a session release) rather than doing it inline.
 */
export function createConfigurationEvents(deps: {
  logger: Logger;
}): ConfigurationEvents & ConfigurationChanges {
  const listeners = new Set<ConfigurationListener>();
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    publish(change: ConfigurationChange) {
      for (const listener of listeners) {
        try {
          listener(change);
        } catch (error) {
          deps.logger.error({ err: error, change }, 'a configuration change listener failed');
        }
      }
    },
  };
}
