import type { Clock } from '../clock.ts';
import type { Plmn } from './radio-id.ts';

/** One S-NSSAI a radio supports in a tracking area; `sd` is absent when the slice has none. */
export interface Snssai {
  sst: number;
  sd?: string;
}

/** A tracking area a radio serves and the slices it supports there, in the API's own spelling. */
export interface SupportedTai {
  tai: { plmnID: Plmn; tac: string };
  snssais: Snssai[];
}

/** One TNL association of a radio (TS 23.502 4.2.7.1): where it comes from, and what it carries. */
export interface RadioAssociation {
  /** `IP:port` (`[IPv6]:port`) of the radio's end. */
  address: string;
  /** TNL Association Usage (TS 38.413 9.3.2.9); the NG Setup association carries both. */
  usage: 'ue' | 'non-ue' | 'both';
}

/** A RAN node connected now. Times are Unix ms. */
export interface Radio {
  /** `<mcc>:<mnc>:<node id in hex>` (see radio-id.ts). */
  id: string;
  /** The node's own name (RANNodeName), or its id when it sends none. */
  name: string;
  /** Where the node's association comes from, `IP:port` (`[IPv6]:port`): the one of its non-UE signalling. */
  address: string;
  /** `gNB`, `ng-eNB`, ... */
  ranNodeType: string;
  supportedTais: SupportedTai[];
  /**
   * Every TNL association of the node, the NG Setup one first (docs/n2.md, "Several TNL associations
   * from one radio"). Absent in the radios an AMF set member of an earlier release wrote.
   */
  associations?: RadioAssociation[];
  connectedAt: number;
  lastSeenAt: number;
}

export interface RadioConnection {
  id: string;
  name?: string;
  address: string;
  ranNodeType: string;
  supportedTais: SupportedTai[];
}

export type RadioChanges = Partial<Pick<RadioConnection, 'name' | 'address' | 'supportedTais'>> & {
  associations?: RadioAssociation[];
};

/**
 * The radios connected now, part of the network state (network-state.ts, their only writer): held in
 * memory, since a restart ends every association and radios connect again. Connections, changes (a RAN
 * configuration update, or any message, which refreshes `lastSeenAt`) and disconnections come from the
 * network side; the API reads. A node that connects again under the same id replaces its earlier entry.
 */
export function createRadioRegistry(deps: { clock: Clock }) {
  const { clock } = deps;
  const radios = new Map<string, Radio>();

  return {
    get: (id: string): Radio | undefined => radios.get(id),

    connected(connection: RadioConnection): Radio {
      const now = clock.now();
      const radio: Radio = {
        id: connection.id,
        name: connection.name || connection.id,
        address: connection.address,
        ranNodeType: connection.ranNodeType,
        supportedTais: structuredClone(connection.supportedTais),
        associations: [{ address: connection.address, usage: 'both' }],
        connectedAt: now,
        lastSeenAt: now,
      };
      radios.set(radio.id, radio);
      return radio;
    },

    /** Applies changes and marks the radio seen now; false when no radio with that id is connected. */
    updated(id: string, changes: RadioChanges = {}): boolean {
      const radio = radios.get(id);
      if (!radio) return false;
      if (changes.name !== undefined) radio.name = changes.name || radio.id;
      if (changes.address !== undefined) radio.address = changes.address;
      if (changes.supportedTais !== undefined) radio.supportedTais = structuredClone(changes.supportedTais);
      if (changes.associations !== undefined) radio.associations = structuredClone(changes.associations);
      radio.lastSeenAt = clock.now();
      return true;
    },

    /** The radio that was connected under that id, or undefined. */
    disconnected(id: string): Radio | undefined {
      const radio = radios.get(id);
      if (radio) radios.delete(id);
      return radio;
    },

    count(): number {
      return radios.size;
    },

    /** Every connected radio, by name and then id. */
    list(): Radio[] {
      return [...radios.values()].sort(byNameThenId);
    },

    /**
     * The radio with this name (the first by id if two share it), or else with this id: a radio that
     * sent no name is named by its id anyway.
     */
    find(nameOrId: string): Radio | undefined {
      const named = [...radios.values()].filter((radio) => radio.name === nameOrId);
      named.sort((a, b) => compare(a.id, b.id));
      return named[0] ?? radios.get(nameOrId);
    },
  };
}

/** The order radios are listed in: by name, then by id (two radios may share a name). */
export function byNameThenId(a: Radio, b: Radio): number {
  return compare(a.name, b.name) || compare(a.id, b.id);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
