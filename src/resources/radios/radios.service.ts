import { NotFoundError } from '../../errors.ts';
import type { NetworkState } from '../../network/network-state.ts';
import type { Radio } from '../../network/radio-registry.ts';

/** Reads of the radios connected now, from the network state. */
export function createRadiosService(deps: { state: Pick<NetworkState, 'radios' | 'findRadio'> }) {
  const { state } = deps;

  return {
    list(limit: number, offset: number): { items: Radio[]; total: number } {
      const all = state.radios();
      return { items: all.slice(offset, offset + limit), total: all.length };
    },

    get(name: string): Radio {
      const radio = state.findRadio(name);
      if (!radio) throw new NotFoundError(`radio ${name} is not connected`);
      return radio;
    },
  };
}

export type RadiosService = ReturnType<typeof createRadiosService>;
