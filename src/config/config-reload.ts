import type { Logger } from 'pino';
import type { Timers } from '../clock.ts';
import { endpointKey, type OfferedEndpoint } from '../network/amf/n2/tnl-associations.ts';
import type { LoadedConfig } from './config.ts';
import { watchFile } from './watch-file.ts';

/** The one setting a running process takes from its changed file. */
const RUNTIME_KEY = 'n2_further_endpoints';

/** How long a burst of file events must be quiet before the file is read (an editor's save is several). */
export const CONFIG_QUIET_MS = 500;

interface ConfigReloadOptions {
  /** The configuration as the process started with it. */
  loaded: LoadedConfig;
  /** Reads and validates the whole configuration again, as at start (`loadConfigSources`); throws if it cannot. */
  reload: () => LoadedConfig;
  /**
   * Offers radios the further endpoints given (`N2Service.changeFurtherEndpoints`); undefined when N2
   * is not running.
   */
  changeFurtherEndpoints: (next: readonly OfferedEndpoint[]) => Promise<unknown> | undefined;
  logger: Logger;
  timers: Timers;
  quietMs?: number;
}

/** What changed between two lists of further endpoints, each as `address:port/usage/weight`. */
interface EndpointsChange {
  added: string[];
  removed: string[];
  updated: string[];
}

const shown = (endpoint: OfferedEndpoint): string =>
  `${endpointKey(endpoint)}/${endpoint.usage}/${endpoint.weight}`;

/** The endpoints added, removed and updated (same address and port, another usage or weight factor). */
export function endpointsChange(
  before: readonly OfferedEndpoint[],
  after: readonly OfferedEndpoint[],
): EndpointsChange {
  const old = new Map(before.map((endpoint) => [endpointKey(endpoint), endpoint]));
  const now = new Set(after.map(endpointKey));
  return {
    added: after.filter((endpoint) => !old.has(endpointKey(endpoint))).map(shown),
    removed: before.filter((endpoint) => !now.has(endpointKey(endpoint))).map(shown),
    updated: after
      .filter((endpoint) => {
        const was = old.get(endpointKey(endpoint));
        return was !== undefined && (was.usage !== endpoint.usage || was.weight !== endpoint.weight);
      })
      .map(shown),
  };
}

/** The file keys whose values differ (a key added or removed counts). */
export function changedKeys(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key])).sort();
}

/**
 * The configuration file's watch (docs/operations.md, "Configuration"): once an edit of the file is
 * quiet, the whole configuration is read and validated again as at start. A file that does not read or
 * validate changes nothing and logs one warning per distinct reason. A change of `n2_further_endpoints`
 * is offered to the radios (unless the environment or a flag set it: they win, as at start); a change of
 * any other key is logged as taking effect at the next start. Without a configuration file nothing is
 * watched. A lifecycle component: it stops before N2 and waits for a change in flight.
 */
export function createConfigReload(options: ConfigReloadOptions) {
  const { logger } = options;
  const file = options.loaded.file;
  let watch: { stop(): void } | undefined;
  let settings = file?.settings ?? {};
  let offered: readonly OfferedEndpoint[] = options.loaded.config.n2.furtherEndpoints ?? [];
  /** The reason last warned of, so that a file broken the same way is not warned of again. */
  let problem: string | undefined;
  let stopped = false;
  let pending: Promise<void> = Promise.resolve();

  async function check(path: string): Promise<void> {
    if (stopped) return;
    let next: LoadedConfig;
    try {
      next = options.reload();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (reason !== problem)
        logger.warn({ file: path, reason }, `configuration file ${path} changed but not applied: ${reason}`);
      problem = reason;
      return;
    }
    problem = undefined;
    const nextSettings = next.file?.settings ?? {};
    const changed = changedKeys(settings, nextSettings);
    settings = nextSettings;
    const atStart = changed.filter((key) => key !== RUNTIME_KEY);
    // A key the environment or a flag sets keeps their value at the next start too.
    const fixed = atStart.filter((key) => next.overridden.has(key));
    if (atStart.length > 0)
      logger.info(
        { file: path, keys: atStart, overridden: fixed },
        `configuration file ${path}: ${atStart.join(', ')} changed; taking effect at the next start` +
          (fixed.length === 0 ? '' : ` (${fixed.join(', ')} set by the environment or a flag, which win)`),
      );
    if (next.overridden.has(RUNTIME_KEY)) {
      if (changed.includes(RUNTIME_KEY))
        logger.info(
          { file: path, keys: [RUNTIME_KEY] },
          `configuration file ${path}: n2_further_endpoints changed but not applied: ` +
            'PMN_N2_FURTHER_ENDPOINTS or --n2-further-endpoints sets it, and wins over the file',
        );
      return;
    }
    await offer(path, next.config.n2.furtherEndpoints ?? []);
  }

  async function offer(path: string, next: readonly OfferedEndpoint[]): Promise<void> {
    const change = endpointsChange(offered, next);
    if (change.added.length + change.removed.length + change.updated.length === 0) return;
    const changing = options.changeFurtherEndpoints(next);
    if (changing === undefined) {
      logger.warn(
        { file: path, ...change },
        `configuration file ${path}: n2_further_endpoints changed but not applied: N2 is not running`,
      );
      return;
    }
    try {
      await changing;
    } catch (error) {
      // Nothing changed (a listen failed): the next edit of the file tries again.
      const reason = (error as Error).message;
      logger.warn(
        { file: path, ...change, reason },
        `configuration file ${path}: n2_further_endpoints not applied: ${reason}`,
      );
      return;
    }
    offered = next;
    logger.info(
      { file: path, ...change },
      `N2 further endpoints changed from the configuration file: added ${list(change.added)}, ` +
        `removed ${list(change.removed)}, updated ${list(change.updated)}`,
    );
  }

  return {
    name: 'config-reload',
    start(): void {
      if (file === undefined || stopped) return;
      watch = watchFile(file.path, {
        timers: options.timers,
        quietMs: options.quietMs ?? CONFIG_QUIET_MS,
        changed: () => {
          pending = pending
            .then(() => check(file.path))
            .catch((error: unknown) =>
              logger.error({ file: file.path, err: error }, `configuration file ${file.path}: check failed`),
            )
            .then(() =>
              logger.debug({ file: file.path }, `configuration file read after a change: ${file.path}`),
            );
        },
        broken: (error) =>
          logger.warn(
            { file: file.path, err: error },
            `configuration file ${file.path}: no longer watched (${error.message}); changes take effect at the next start`,
          ),
      });
    },
    /** Closes the watch and waits for a change in flight. */
    async stop(): Promise<void> {
      stopped = true;
      watch?.stop();
      watch = undefined;
      await pending;
    },
  };
}

const list = (entries: readonly string[]): string => (entries.length === 0 ? 'none' : entries.join(', '));
