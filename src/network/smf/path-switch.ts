// The SMF's N2 SM information of an Xn handover (TS 38.413 9.3.4.8-9.3.4.10, TS 23.502 4.9.1.2.2): the
// target gNB's new downlink tunnel read from Path Switch Request Transfer, and the containers the AMF
// returns per session in Path Switch Request Acknowledge or Failure.
import { decodeComplete, encodeComplete } from '../asn1/complete.ts';
import {
  decodePathSwitchRequestTransfer,
  encodePathSwitchRequestAcknowledgeTransfer,
  encodePathSwitchRequestUnsuccessfulTransfer,
} from '../ngap/generated/codec.ts';
import type { Cause } from '../ngap/generated/types.ts';
import { tunnelOf, type TunnelEndpoint } from './n2-transfers.ts';

const ALIGNED = true;

/** One session of Path Switch Request: its id and its transfer container. */
export interface PathSwitchItem {
  pduSessionId: number;
  transfer: Uint8Array;
}

/** The SMF's answer: per session, the container for the Switched or the Released list. */
export interface PathSwitchOutcome {
  switched: PathSwitchItem[];
  released: PathSwitchItem[];
}

/**
 * The target gNB's downlink tunnel from Path Switch Request Transfer (9.3.4.8), or why there is none;
 * never throws (the container comes from the radio).
 */
export function readPathSwitchRequestTransfer(
  bytes: Uint8Array,
): { ok: true; downlink: TunnelEndpoint } | { ok: false; error: string } {
  const decoded = decodeComplete(bytes, ALIGNED, decodePathSwitchRequestTransfer);
  if (!decoded.ok) return decoded;
  const downlink = tunnelOf(decoded.value.dLNGUUPTNLInformation);
  return downlink === undefined ? { ok: false, error: 'no usable GTP tunnel' } : { ok: true, downlink };
}

/**
 * Path Switch Request Acknowledge Transfer (9.3.4.9) with no IE: the UL NG-U UP TNL Information is
 * sent only when the uplink tunnel changes (TS 23.502 4.9.1.2.2 step 2), and the UPF keeps its N3
 * address and the session's uplink TEID across the switch.
 */
export function pathSwitchAcknowledgeTransfer(): Uint8Array {
  return encodeComplete({}, ALIGNED, encodePathSwitchRequestAcknowledgeTransfer);
}

/** Path Switch Request Unsuccessful Transfer (9.3.4.10): why the session was not switched. */
export function pathSwitchUnsuccessfulTransfer(cause: Cause): Uint8Array {
  return encodeComplete({ cause }, ALIGNED, encodePathSwitchRequestUnsuccessfulTransfer);
}
