import { createMemoryAddressLeases } from '../../../src/network/working-state/memory-address-leases.ts';
import { createMemoryTunnelEndpointIds } from '../../../src/network/working-state/memory-tunnel-endpoints.ts';
import { createMemoryUeContextStore } from '../../../src/network/working-state/memory-ue-contexts.ts';
import { createTeidAllocator } from '../../../src/network/working-state/teid-allocator.ts';
import { addressLeasesContract } from './address-leases.contract.ts';
import { tunnelEndpointIdsContract } from './tunnel-endpoints.contract.ts';
import { ueContextStoreContract } from './ue-context-store.contract.ts';

// The in-memory working state against the contracts every implementation of its ports keeps.
ueContextStoreContract('in memory', async () => createMemoryUeContextStore());
addressLeasesContract('in memory', async () => createMemoryAddressLeases());
tunnelEndpointIdsContract('in memory', async (limit) =>
  createMemoryTunnelEndpointIds(createTeidAllocator({ limit })),
);
