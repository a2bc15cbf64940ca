import type { Logger } from 'pino';
import type {
  ConfigurationChange,
  ConfigurationChanges,
  ConfigurationEvents,
  ConfiguredResource,
  ConfigurationListener,
} from '../network/ports/configuration-events.ts';
import { localChangeNotices, type ChangeNotices } from '../storage/change-notices.ts';

const TOPIC = 'configuration';
const RESOURCES = new Set<string>([
  'subscriber',
  'profile',
  'policy',
  'slice',
  'data-network',
  'operator',
  'smsc-link',
]);
const CHANGES = new Set<string>(['created', 'changed', 'deleted']);
/**
 * When notices may have been missed, each resource whose change the network functions react to for
 * every device or radio is said to have changed (name empty: any): they read it again and reconsider
 * every UE, which also deregisters one whose subscriber was deleted meanwhile.
 */
const AFTER_MISSED: ConfiguredResource[] = ['operator', 'slice', 'profile', 'policy', 'smsc-link'];

/** A change told by another process, if it has the shape of one. */
function changeOf(detail: unknown): ConfigurationChange | undefined {
  const { resource, change, name, previousName } = (detail ?? {}) as Record<string, unknown>;
  if (typeof resource !== 'string' || !RESOURCES.has(resource)) return undefined;
  if (typeof change !== 'string' || !CHANGES.has(change) || typeof name !== 'string') return undefined;
  if (previousName !== undefined && typeof previousName !== 'string') return undefined;
  return {
    resource: resource as ConfiguredResource,
    change: change as ConfigurationChange['change'],
    name,
    ...(previousName === undefined ? {} : { previousName }),
  };
}

/**
 * The one channel of configuration changes. Listeners run synchronously after the change committed; a
 * listener that throws is logged and the others still run, since the operator's change has been made.
 * Listeners hand slow work off (a deregistration, a session release) rather than doing it inline.
 * Changes made through another process on the database arrive through `notices` and reach the same
 * listeners; `fromOthers` hears those alone (what this process tracks of its own writes).
 */
export function createConfigurationEvents(deps: {
  logger: Logger;
  notices?: ChangeNotices;
}): ConfigurationEvents & ConfigurationChanges & { fromOthers: ConfigurationEvents } {
  const notices = deps.notices ?? localChangeNotices;
  const listeners = new Set<ConfigurationListener>();
  const others = new Set<ConfigurationListener>();
  const subscribe = (set: Set<ConfigurationListener>) => (listener: ConfigurationListener) => {
    set.add(listener);
    return () => void set.delete(listener);
  };
  function deliver(change: ConfigurationChange, to: Iterable<ConfigurationListener>): void {
    for (const listener of to) {
      try {
        listener(change);
      } catch (error) {
        deps.logger.error({ err: error, change }, 'a configuration change listener failed');
      }
    }
  }
  notices.listen(TOPIC, (detail) => {
    const change = changeOf(detail);
    if (!change) return void deps.logger.warn({ detail }, 'a configuration change notice was ignored');
    deliver(change, [...listeners, ...others]);
  });
  notices.onMissed(() => {
    for (const resource of AFTER_MISSED) deliver({ resource, change: 'changed', name: '' }, listeners);
  });
  return {
    subscribe: subscribe(listeners),
    fromOthers: { subscribe: subscribe(others) },
    publish(change: ConfigurationChange) {
      deliver(change, listeners);
      notices.send(TOPIC, change);
    },
  };
}
