import type { SubscriberViewReads, ViewSummary } from '../../network/ports/subscriber-views.ts';

/**
 * What the other live members of the AMF set show of subscribers (docs/amf-set.md, "One view of the
 * network"): the read model's rows of every member but this process whose lease runs, so a member that
 * died or left counts for nothing once its lease ran out. This process's own view is its network state
 * in memory, newer than its rows.
 */
export function createPeerViews(deps: {
  views: SubscriberViewReads;
  /** The other live members of the set (amf-set.wiring.ts, `recentPeers`). */
  peers: () => Promise<readonly { name: string }[]>;
}) {
  const { views } = deps;

  const peers = async (): Promise<string[]> => (await deps.peers()).map((member) => member.name);

  return {
    /** The live peers' rows of `imsi`, newest first. */
    views: async (imsi: string) => views.views(imsi, await peers()),
    /** Of `imsis`, those a live peer holds registered, with its name and session count. */
    registeredAmong: async (imsis: readonly string[]) =>
      imsis.length === 0 ? new Map<string, ViewSummary>() : views.registeredAmong(imsis, await peers()),
    /** The IMSIs a live peer holds registered through the radio named. */
    onRadio: async (radio: string) => views.onRadio(radio, await peers()),
    /** Per live peer: its registered subscribers and their PDU sessions. */
    totals: async () => views.totals(await peers()),
  };
}

export type PeerViews = ReturnType<typeof createPeerViews>;
