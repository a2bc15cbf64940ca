import { storedSnssai } from '../common/stored-snssai.ts';
import type { StoredPduSession } from '../ports/ue-contexts.ts';
import type { SNssai } from '../nas/index.ts';
import type { DefaultQosFlow, SessionAmbrBps } from './n2-transfers.ts';
import type { IpType } from './session-authorisation.ts';
import type { SessionState } from './smf.ts';

/** What of an SM context outlives the process (`StoredPduSession`); timers and UPF handles do not. */
interface SessionFacts {
  readonly pduSessionId: number;
  readonly state: SessionState;
  readonly dnn: string;
  readonly sNssai: SNssai;
  readonly ipType: IpType;
  readonly resources: {
    readonly ipv4: string | undefined;
    readonly ipv6Prefix: string | undefined;
    readonly uplinkTeid: number;
  };
  readonly ambr: SessionAmbrBps;
  readonly flow: DefaultQosFlow;
}

/**
 * One PDU session as the UE context record holds it (ports/ue-contexts.ts): plain JSON values. Read
 * from the session as it is (a spread copy of it cost V8's slow paths at every UE context write).
 */
export function storedPduSession(s: SessionFacts): StoredPduSession {
  const { ipv4, ipv6Prefix, uplinkTeid } = s.resources;
  const downlink = s.state.kind === 'active' ? s.state.downlink : undefined;
  return {
    pduSessionId: s.pduSessionId,
    sNssai: storedSnssai(s.sNssai),
    dnn: s.dnn,
    ipType: s.ipType,
    ipv4: ipv4 ?? null,
    ipv6Prefix: ipv6Prefix ?? null,
    qos: { qfi: s.flow.qfi, fiveQi: s.flow.fiveQi, arp: s.flow.arp },
    ambr: { uplinkBps: s.ambr.uplinkBps, downlinkBps: s.ambr.downlinkBps },
    tunnel: {
      uplinkTeid,
      downlink:
        downlink === undefined ? null : { gnbAddress: downlink.gnbAddress, teid: downlink.remoteTeid },
    },
    userPlane: s.state.kind,
  };
}
