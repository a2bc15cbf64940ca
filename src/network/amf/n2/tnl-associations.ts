import { isIP } from 'node:net';
import type {
  AMFTNLAssociationSetupList,
  AMFTNLAssociationToAddList,
  AMFTNLAssociationToRemoveList,
  AMFTNLAssociationToUpdateList,
  CPTransportLayerInformation,
  TNLAssociationList,
} from '../../ngap/generated/types.ts';
import { causeText } from './criticality-diagnostics.ts';
import {
  cpTransportLayerInformation,
  endpointOf,
  type TnlEndpoint,
} from '../../ngap/transport-layer-address.ts';

/**
 * The further NG-C endpoints the AMF offers a radio (TS 38.413 8.7.3.2 AMF TNL Association To Add List,
 * TS 23.502 4.2.7.1), and what the radio's acknowledge reports of them.
 */

/** TNL Association Usage (TS 38.413 9.3.2.9): which signalling the radio carries on the association. */
export type TnlUsage = 'ue' | 'non-ue' | 'both';

/** An endpoint the AMF listens on beside its first, offered with a usage and a weight (TS 38.413 9.3.2.10). */
export interface OfferedEndpoint extends TnlEndpoint {
  usage: TnlUsage;
  /** TNL Address Weight Factor, 0..255: the share of the radio's UEs the radio should put on it. */
  weight: number;
}

/** `address:port`, the IPv6 address in brackets. */
export function endpointKey(endpoint: TnlEndpoint): string {
  return endpoint.address.includes(':')
    ? `[${endpoint.address}]:${endpoint.port}`
    : `${endpoint.address}:${endpoint.port}`;
}

const USAGES: readonly TnlUsage[] = ['ue', 'non-ue', 'both'];

/**
 * One entry of `n2_further_endpoints`: `<IPv4>:<port>` or `[<IPv6>]:<port>`, then optionally
 * `/<usage>` (ue, non-ue, both; both by default) and `/<weight>` (0..255; 1 by default). The endpoint, or
 * what is wrong with the entry.
 */
export function furtherEndpointOf(entry: string): OfferedEndpoint | { error: string } {
  const [where = '', usage = 'both', weight = '1', ...rest] = entry.trim().split('/');
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([0-9.]+)):(\d{1,5})$/.exec(where);
  const address = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (address === undefined || isIP(address) === 0 || !(port >= 1 && port <= 65535))
    return { error: `"${entry}" is not <address>:<port> (an IPv6 address in brackets)` };
  if (!USAGES.includes(usage as TnlUsage))
    return { error: `"${entry}": the usage must be ue, non-ue or both` };
  const factor = /^\d{1,3}$/.test(weight) ? Number(weight) : -1;
  if (factor < 0 || factor > 255 || rest.length > 0)
    return { error: `"${entry}": the weight factor must be an integer in 0..255` };
  return { address, port, usage: usage as TnlUsage, weight: factor };
}

export const carriesUe = (usage: TnlUsage): boolean => usage !== 'non-ue';
export const carriesNonUe = (usage: TnlUsage): boolean => usage !== 'ue';

/** AMF TNL Association To Add List (TS 38.413 9.2.6.7) of the endpoints offered. */
function tnlAssociationToAddList(offered: readonly OfferedEndpoint[]): AMFTNLAssociationToAddList {
  return offered.map((endpoint) => ({
    aMFTNLAssociationAddress: cpTransportLayerInformation(endpoint),
    tNLAssociationUsage: endpoint.usage,
    tNLAddressWeightFactor: endpoint.weight,
  }));
}

/** What AMF Configuration Update Acknowledge reports of the offered endpoints (TS 38.413 8.7.3.2). */
export interface TnlSetupReport {
  /** The endpoints the radio set an association up with (`address:port`). */
  setup: string[];
  /** Those it failed to, each with its cause as `group/value`. */
  failed: { endpoint: string; cause: string }[];
}

export function tnlSetupReport(
  setup: AMFTNLAssociationSetupList | undefined,
  failed: TNLAssociationList | undefined,
): TnlSetupReport {
  const named = (information: CPTransportLayerInformation): string => {
    const endpoint = endpointOf(information);
    return endpoint === undefined ? 'unreadable' : endpointKey(endpoint);
  };
  return {
    setup: (setup ?? []).map((item) => named(item.aMFTNLAssociationAddress)),
    failed: (failed ?? []).map((item) => ({
      endpoint: named(item.tNLAssociationAddress),
      cause: causeText(item.cause),
    })),
  };
}

/**
 * What an AMF Configuration Update tells a radio that was told `told` of the endpoints offered now
 * (TS 38.413 8.7.3.2): the AMF TNL Association To Add, To Remove and To Update Lists, each absent when
 * empty; undefined when the radio knows the endpoints as they are.
 */
export function tnlAssociationChange(
  told: ReadonlyMap<string, OfferedEndpoint>,
  now: readonly OfferedEndpoint[],
): TnlAssociationChange | undefined {
  const current = new Map(now.map((endpoint) => [endpointKey(endpoint), endpoint]));
  const added = now.filter((endpoint) => !told.has(endpointKey(endpoint)));
  const removed = [...told].filter(([key]) => !current.has(key)).map(([, endpoint]) => endpoint);
  const updated = now.filter((endpoint) => {
    const before = told.get(endpointKey(endpoint));
    return before !== undefined && (before.usage !== endpoint.usage || before.weight !== endpoint.weight);
  });
  if (added.length + removed.length + updated.length === 0) return undefined;
  return {
    ...(added.length === 0 ? {} : { toAdd: tnlAssociationToAddList(added) }),
    ...(removed.length === 0
      ? {}
      : {
          toRemove: removed.map((endpoint) => ({
            aMFTNLAssociationAddress: cpTransportLayerInformation(endpoint),
          })),
        }),
    // 9.2.6.7: usage and weight are each optional in an item; both go, so the radio holds them as the AMF does.
    ...(updated.length === 0
      ? {}
      : {
          toUpdate: updated.map((endpoint) => ({
            aMFTNLAssociationAddress: cpTransportLayerInformation(endpoint),
            tNLAssociationUsage: endpoint.usage,
            tNLAddressWeightFactor: endpoint.weight,
          })),
        }),
  };
}

/** The AMF TNL association lists of one AMF Configuration Update (TS 38.413 9.2.6.7). */
export interface TnlAssociationChange {
  toAdd?: AMFTNLAssociationToAddList;
  toRemove?: AMFTNLAssociationToRemoveList;
  toUpdate?: AMFTNLAssociationToUpdateList;
}
