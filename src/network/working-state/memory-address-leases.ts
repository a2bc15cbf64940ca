import type { AddressLeases } from '../ports/address-leases.ts';
import { createAddressPools } from './address-pools.ts';

/**
 * The address leases of one process, held in its memory: they end with it, as the UPF rules that use
 * them do, so after a restart every address is free and no session holds one. A shared store
 * implements the same port for several cores over one set of pools.
 */
export function createMemoryAddressLeases(): AddressLeases {
  const pools = createAddressPools();
  return {
    lease: async (family, cidr) => pools.allocate(family, cidr),
    hold: async (family, cidr, address) => pools.hold(family, cidr, address),
    release: async (address) => pools.release(address),
    // Nothing is handed over between processes' memories: a takeover holds what it keeps.
    forgo: async () => false,
    get held() {
      return pools.size;
    },
  };
}
