import type { LocationServices } from '../../network/lmf/location-services.ts';

/**
 * Where the network offers its location services to positioning (network.md section 8): the N2 side
 * registers the AMF's (fresh serving cells and the LMF's methods) when it starts and withdraws them when
 * it stops (core/n2.wiring.ts); the locator asks for them at each request. Positioning owns the port,
 * so it never finds the network through network state.
 */
export interface LocationServicesPort {
  /** The network's services from now on; `undefined` withdraws them. */
  provide(services: LocationServices | undefined): void;
  /** The services offered now; undefined while N2 does not run. */
  current(): LocationServices | undefined;
}

export function createLocationServicesPort(): LocationServicesPort {
  let offered: LocationServices | undefined;
  return {
    provide: (services) => void (offered = services),
    current: () => offered,
  };
}
