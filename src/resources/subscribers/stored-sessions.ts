import { formatBitrate } from '../../network/common/bitrate-text.ts';
import type { PduSession } from '../../network/network-state.ts';
import type { UeContextRecord } from '../../network/ports/ue-contexts.ts';

/**
 * A UE's PDU sessions as the API shows them, from its stored UE context: what every member of the AMF
 * set reads of a registered UE that no live member holds (its member died, and no member has taken it
 * over yet; docs/decisions.md, 15). Each is `inactive` (network.md 6): the UE's N2 connection and the
 * user plane on its member's UPF died with that member, so the UE is CM-IDLE for the set whatever the
 * record last said. The AMBRs are the stored bit rates in the API's form (`1 Gbps`, `100 Mbps`), which
 * may spell a profile's value differently.
 */
export function storedSessions(record: UeContextRecord): PduSession[] {
  return record.pduSessions.map((session) => ({
    id: session.pduSessionId,
    radioAccessType: '5G',
    status: 'inactive',
    ipType: session.ipType,
    ipv4Address: session.ipv4 ?? '',
    ipv6Prefix: session.ipv6Prefix === null ? '' : `${session.ipv6Prefix}/64`,
    dataNetwork: session.dnn,
    slice: {
      sst: session.sNssai.sst,
      sd: session.sNssai.sd === null ? '' : session.sNssai.sd.toString(16).padStart(6, '0'),
    },
    ambrUplink: formatBitrate(session.ambr.uplinkBps),
    ambrDownlink: formatBitrate(session.ambr.downlinkBps),
  }));
}
