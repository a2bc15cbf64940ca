import { NotFoundError } from '../../errors.ts';
import type { NetworkState } from '../../network/network-state.ts';
import { byNameThenId, type Radio } from '../../network/radio-registry.ts';

/** A radio and the AMF set member it is connected to (undefined: this process, which is no member). */
interface SetRadio extends Radio {
  amf: string | undefined;
}

/** The radios of the other live members of the AMF set, as each wrote them at its last heartbeat. */
export interface PeerRadios {
  amf: string;
  radios: Radio[];
}

/**
 * Reads of the radios connected now: this process's from the network state, and those of the other
 * live members of its AMF set (docs/decisions.md, 15), so that every member's API lists the whole set's.
 * A radio connected to several members is listed once, as the first of them sees it: this process,
 * then the others by AMF Pointer.
 */
export function createRadiosService(deps: {
  state: Pick<NetworkState, 'radios' | 'findRadio'>;
  /** Without it, only this process's radios. */
  set?: { self(): string | undefined; peers(): Promise<PeerRadios[]> };
}) {
  const { state, set } = deps;

  async function all(): Promise<SetRadio[]> {
    const self = set?.self();
    const own: SetRadio[] = state.radios().map((radio) => ({ ...radio, amf: self }));
    if (set === undefined) return own;
    const seen = new Set(own.map((radio) => radio.id));
    const theirs: SetRadio[] = [];
    for (const peer of await set.peers()) {
      for (const radio of peer.radios) {
        if (seen.has(radio.id)) continue;
        seen.add(radio.id);
        theirs.push({ ...radio, amf: peer.amf });
      }
    }
    return theirs.length === 0 ? own : [...own, ...theirs].sort(byNameThenId);
  }

  return {
    async list(limit: number, offset: number): Promise<{ items: SetRadio[]; total: number }> {
      const listed = await all();
      return { items: listed.slice(offset, offset + limit), total: listed.length };
    },

    /** By name (the first by id if two share it), or else by id, as the network state finds them. */
    async get(name: string): Promise<SetRadio> {
      const local = state.findRadio(name);
      if (local !== undefined) return { ...local, amf: set?.self() };
      const listed = await all();
      const found = listed.find((radio) => radio.name === name) ?? listed.find((radio) => radio.id === name);
      if (found === undefined) throw new NotFoundError(`radio ${name} is not connected`);
      return found;
    },
  };
}

export type RadiosService = ReturnType<typeof createRadiosService>;
