import { NotFoundError } from '../../errors.ts';
import type { Radio, RadioRegistry } from '../../network/radio-registry.ts';

/** Reads of the radios connected now, from the network state. */
export function createRadiosService(deps: { registry: RadioRegistry }) {
  const { registry } = deps;

  return {
    list(limit: number, offset: number): { items: Radio[]; total: number } {
      const all = registry.list();
      return { items: all.slice(offset, offset + limit), total: all.length };
    },

    get(name: string): Radio {
      const radio = registry.find(name);
      if (!radio) throw new NotFoundError(`radio ${name} is not connected`);
      return radio;
    },
  };
}

export type RadiosService = ReturnType<typeof createRadiosService>;
