import { NGAP_PORT } from '../../transport/n2-transport.ts';
import { SCTP_UDP_PORT } from '../../transport/udp/udp-link.ts';
import { DEFAULT_AMF_IDENTITY, type AmfIdentity } from '../context/amf-identity.ts';
import type { AmfLimits, AmfTimerSettings } from '../amf-settings.ts';
import type { AmfSetTiming } from '../set/amf-set-membership.ts';
import type { N2TransportSetting } from './n2-transport-choice.ts';
import type { OfferedEndpoint } from './tnl-associations.ts';

/** The N2 settings of the process (config.ts, docs/n2.md): transport, listen addresses and ports, AMF identity. */
export interface N2Settings {
  transport: N2TransportSetting;
  /** Local addresses the AMF listens on for radios (several: a multi-homed SCTP endpoint). */
  addresses: string[];
  /** SCTP port, 38412 (TS 38.412 7); 0 for a free one (tests). */
  port: number;
  /** UDP encapsulation port of the `udp` transport, 9899 (RFC 6951); 0 for a free one (tests). */
  udpPort: number;
  amf: AmfIdentity;
  /**
   * `n2_allowed_peers`: addresses and CIDR networks that may open an N2 association, beside the API's
   * list (docs/n2.md); empty or absent admits every peer.
   */
  allowedPeers?: string[];
  /**
   * `n2_further_endpoints`: endpoints the AMF also listens on and offers each radio for further TNL
   * associations after NG Setup (docs/n2.md, "Several TNL associations from one radio").
   */
  furtherEndpoints?: OfferedEndpoint[];
  /** The AMF's NAS timers where configured (docs/registration.md); the rest keep their defaults. */
  amfTimers?: Partial<AmfTimerSettings>;
  /** The AMF's limits where configured (`amf_max_ue_contexts`, docs/registration.md). */
  amfLimits?: Partial<AmfLimits>;
  /** The AMF set's heartbeat and lease where configured (docs/operations.md, "AMF set"). */
  amfSet?: Partial<AmfSetTiming>;
  /** `amf_drain_timeout_seconds`: how long a drain waits for its last connected UE (set/member-drain.ts). */
  amfDrainTimeoutMs?: number;
}

export const DEFAULT_N2_SETTINGS: N2Settings = {
  transport: 'auto',
  addresses: ['127.0.0.1'],
  port: NGAP_PORT,
  udpPort: SCTP_UDP_PORT,
  amf: DEFAULT_AMF_IDENTITY,
};
