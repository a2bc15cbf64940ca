import type { TunnelEndpointIds } from '../ports/tunnel-endpoints.ts';
import { createTeidAllocator, type TeidAllocator } from './teid-allocator.ts';

/**
 * The UPF's TEIDs held in this process's memory: they end with it, as the UPF's rules do. `allocator`
 * is the UPF's own TEID space (`Upf.teids`), which its forwarding TEIDs share; a new one without a UPF.
 */
export function createMemoryTunnelEndpointIds(
  allocator: TeidAllocator = createTeidAllocator(),
): TunnelEndpointIds {
  return {
    allocate: async () => allocator.allocate(),
    release: async (teid) => allocator.release(teid),
    get held() {
      return allocator.inUse;
    },
  };
}
