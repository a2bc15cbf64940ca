// What the SMF's procedures share (docs/sessions.md): the ports to the AMF and the UPF, the session
// table, the leases and the timers. Each procedure takes only the parts it uses (Pick<SmfContext, ...>).
import type { Logger } from 'pino';
import type { Timers } from '../../clock.ts';
import type { NetworkEventEmitter } from '../events/network-events.ts';
import type { AddressLeases } from '../ports/address-leases.ts';
import type { ConfigurationEvents } from '../ports/configuration-events.ts';
import type { SubscriptionDataPort } from '../ports/subscription-data.ts';
import type { TunnelEndpointIds } from '../ports/tunnel-endpoints.ts';
import type { SmfAmfPort } from './ports/amf.ts';
import type { UserPlane } from './ports/user-plane.ts';
import type { SessionTable } from './session-table.ts';

export interface SmfOptions {
  subscriptionData: SubscriptionDataPort;
  configurationEvents: ConfigurationEvents;
  /** Sessions established, modified and released, as the API shows them (network state subscribes). */
  events: NetworkEventEmitter;
  /** The UPF; undefined when it could not start: every establishment is then refused with #26. */
  userPlane: UserPlane | undefined;
  amf: SmfAmfPort;
  logger: Logger;
  /** T3591 and T3592 (TS 24.501 Table 10.3.2). */
  timers: Timers;
  /** The UE addresses' and the UPF's TEIDs' leases; in this process's memory unless given. */
  addressLeases?: AddressLeases;
  teids?: TunnelEndpointIds;
  /** T3591 and T3592 in ms (16 s each, Table 10.3.2) and their retransmissions (4: 6.3.2.5, 6.3.3.5). */
  timing?: Partial<SmfTiming>;
}

interface SmfTiming {
  t3591Ms: number;
  t3592Ms: number;
  retransmissions: number;
}

export const DEFAULT_SMF_TIMING: SmfTiming = { t3591Ms: 16_000, t3592Ms: 16_000, retransmissions: 4 };

/** The SMF's shared parts, built once by `createSmf`. */
export interface SmfContext {
  readonly subscriptionData: SubscriptionDataPort;
  readonly events: NetworkEventEmitter;
  readonly userPlane: UserPlane | undefined;
  readonly amf: SmfAmfPort;
  readonly logger: Logger;
  readonly timers: Timers;
  readonly timing: SmfTiming;
  readonly table: SessionTable;
  readonly addresses: AddressLeases;
  readonly teids: TunnelEndpointIds;
}
