import type { Logger } from 'pino';
import type { Timers } from '../clock.ts';

/**
 * What an N2 peer can send or do in bulk that the AMF refuses or ignores, by the `kind` label of
 * `pmn_n2_peer_problems_total`. A fixed set, so that the metric's label set stays bounded.
 */
export type PeerProblemKind =
  /** A message with another PPID than NGAP's 60 (TS 38.412 7). */
  | 'foreign_ppid'
  /** An NGAP PDU that does not decode (TS 38.413 10.2). */
  | 'undecodable'
  /** A message other than NG Setup before NG Setup (TS 38.413 10.4). */
  | 'before_ng_setup'
  /** An answer to nothing the AMF asked, or a procedure it does not handle (10.3.4.1, 10.4). */
  | 'unexpected'
  /** An answer the transport refused (the peer does not read: queue full, or the association closing). */
  | 'send_refused'
  /** An association that completed no NG Setup in time. */
  | 'no_ng_setup'
  /** An NG Setup naming a Global RAN Node ID another live association holds (docs/n2.md). */
  | 'node_id_in_use'
  /** An association from a peer the N2 allowlist does not admit. */
  | 'peer_not_allowed'
  /** An Initial UE Message beyond the AMF's UE connection limit. */
  | 'ue_connection_limit'
  /** A NAS message container that did not open (TS 24.501 4.4.6). */
  | 'nas_container_unreadable'
  /** A UE Radio Capability Info Indication above the size the AMF keeps per UE (amf/n2/radio-capability.ts). */
  | 'radio_capability_too_large'
  /** A NAS Non Delivery Indication (TS 38.413 8.6.4): the radio could not deliver a downlink NAS PDU. */
  | 'nas_not_delivered'
  /** A UE Context Modification Failure (TS 38.413 8.3.4.3): the radio kept the UE context it had. */
  | 'ue_context_modification_failed';

interface PeerLogLimiterOptions {
  logger: Logger;
  timers: Timers;
  /** Called for every occurrence, logged or not (the metric). */
  count: (kind: PeerProblemKind) => void;
  /** Length of one interval: the first occurrence per peer and kind in it is logged. */
  intervalMs?: number;
  /** (peer, kind) pairs remembered in one interval; beyond, occurrences are only counted and summed up. */
  maxEntries?: number;
}

const PEER_LOG_INTERVAL_MS = 60_000;
const MAX_ENTRIES = 1024;

/**
 * Warn lines a peer can trigger at the rate it sends (a bad message, a refused association) would let
 * any peer write the log at that rate. This writes the first line per peer and kind in each interval,
 * counts every occurrence (the metric), and ends an interval in which more occurred with one summary
 * line. At most `maxEntries` + 1 lines per interval whatever the peers send; memory is one small entry per
 * (peer, kind) pair, at most `maxEntries`, forgotten when the interval ends.
 */
export function createPeerLogLimiter(options: PeerLogLimiterOptions) {
  const { logger, timers, count } = options;
  const intervalMs = options.intervalMs ?? PEER_LOG_INTERVAL_MS;
  const maxEntries = options.maxEntries ?? MAX_ENTRIES;
  /** `kind|peer` -> occurrences in this interval not logged one by one. */
  const seen = new Map<string, number>();
  /** Occurrences of pairs beyond `maxEntries`, by kind. */
  let untracked = new Map<PeerProblemKind, number>();
  let intervalRunning = false;

  function endInterval(): void {
    intervalRunning = false;
    const suppressed = new Map<PeerProblemKind, number>(untracked);
    const peers = new Set<string>();
    for (const [key, n] of seen) {
      if (n === 0) continue;
      const split = key.indexOf('|');
      const kind = key.slice(0, split) as PeerProblemKind;
      suppressed.set(kind, (suppressed.get(kind) ?? 0) + n);
      peers.add(key.slice(split + 1));
    }
    seen.clear();
    untracked = new Map();
    if (suppressed.size === 0) return;
    const total = [...suppressed.values()].reduce((a, b) => a + b, 0);
    logger.warn(
      { suppressed: Object.fromEntries(suppressed), peers: peers.size },
      `N2: ${total} more of the above in the last ${intervalMs / 1000} s (not logged one by one; pmn_n2_peer_problems_total counts them)`,
    );
  }

  return {
    /** One occurrence of `kind` from `peer`: counted; logged at warn when it is the pair's first in the interval. */
    warn(kind: PeerProblemKind, peer: string, fields: Record<string, unknown>, message: string): void {
      count(kind);
      if (!intervalRunning) {
        intervalRunning = true;
        timers.after(intervalMs, endInterval);
      }
      const key = `${kind}|${peer}`;
      const before = seen.get(key);
      if (before !== undefined) {
        seen.set(key, before + 1);
        return;
      }
      if (seen.size >= maxEntries) {
        untracked.set(kind, (untracked.get(kind) ?? 0) + 1);
        return;
      }
      seen.set(key, 0);
      logger.warn({ ...fields, peer, kind }, message);
    },
  };
}

export type PeerLogLimiter = ReturnType<typeof createPeerLogLimiter>;
