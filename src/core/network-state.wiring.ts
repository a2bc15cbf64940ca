import type { Logger } from 'pino';
import type { Clock, Timers } from '../clock.ts';
import { createNetworkEvents } from '../network/events/network-events.ts';
import { installNetworkEventMetrics, installNetworkMetrics } from '../network/network-metrics.ts';
import { createNetworkState } from '../network/network-state.ts';
import type { ConfigurationEvents } from '../network/ports/configuration-events.ts';
import type { SubscriberViews } from '../network/ports/subscriber-views.ts';
import { createSubscriberViewWriter } from '../network/subscriber-view-writer.ts';
import { createWriteRetry } from '../network/write-retry.ts';
import { createRadiosService, type PeerRadios } from '../resources/radios/radios.service.ts';
import { createPeerViews } from '../resources/subscribers/peer-views.ts';
import { writeRetryCounters } from './network-write-retries.ts';
import type { CoreWiring } from './wiring.ts';

const GONE_ROWS_INTERVAL_MS = 10 * 60_000;

/**
 * The network's events (the network functions emit them) and the live picture of the network built from
 * them: the API's read model, written only from those events. A subscriber deleted from the
 * configuration leaves it at once.
 */
export function wireNetworkState(
  core: CoreWiring,
  deps: {
    clock: Clock;
    logger: Logger;
    configuration: ConfigurationEvents;
    /** The AMF set this process is a member of: the API lists the radios of its other members too. */
    amfSet: {
      self(): string | undefined;
      peerRadios(): Promise<PeerRadios[]>;
      onRunning(listener: (name: string) => void): void;
      members(): Promise<{ name: string; state: string }[]>;
      /** The other live members as read at most a moment ago (the views read their rows). */
      recentPeers(): Promise<{ name: string }[]>;
    };
    /**
     * The AMF set's read model of subscribers where the set runs (PostgreSQL): this member writes its
     * view there from the events. Without it (SQLite, one process) the state in memory is the only one.
     */
    views?: SubscriberViews;
    timers: Timers;
  },
) {
  const events = createNetworkEvents({ logger: deps.logger });
  const state = createNetworkState({ clock: deps.clock, events });
  installNetworkMetrics(core.metrics, state);
  installNetworkEventMetrics(core.metrics, events);
  const { amfSet, views } = deps;
  const viewWriter =
    views &&
    createSubscriberViewWriter({
      events,
      state,
      views,
      self: () => amfSet.self(),
      timers: deps.timers,
      logger: deps.logger,
      retry: createWriteRetry({
        store: 'subscriber_views',
        counters: writeRetryCounters(core.metrics),
        clock: deps.clock,
        timers: deps.timers,
        logger: deps.logger,
      }),
    });
  if (views !== undefined && viewWriter !== undefined) {
    amfSet.onRunning(() => void viewWriter.started());
    // The changes gathered when this member stops are written before the database closes.
    core.component({
      name: 'AMF set read model',
      // Stopped first: a write the database refuses now is not tried again for a minute.
      stop: () => {
        viewWriter.stop();
        return viewWriter.flush();
      },
    });
    // Rows of members that died or left are never read (the reads name live members); this drops them.
    core.job({
      name: 'AMF set read model of gone members',
      intervalMs: GONE_ROWS_INTERVAL_MS,
      job: async () => {
        const live = (await amfSet.members()).filter((member) => member.state !== 'gone');
        await views.keepOnly(live.map((member) => member.name));
      },
    });
  }
  deps.configuration.subscribe(({ resource, change, name }) => {
    if (resource !== 'subscriber' || change !== 'deleted') return;
    state.subscriberRemoved(name);
    viewWriter?.removed(name);
  });
  const set = { self: () => amfSet.self(), peers: () => amfSet.peerRadios() };
  const peerViews = views && createPeerViews({ views, peers: () => amfSet.recentPeers() });
  return { events, state, radios: createRadiosService({ state, set }), viewWriter, peerViews };
}
