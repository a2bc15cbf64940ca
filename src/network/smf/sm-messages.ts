// The 5GSM messages the SMF sends (TS 24.501 8.3), built from a session's parameters.
import {
  PCO_CONTAINER,
  PDU_SESSION_TYPE,
  QOS_FLOW_PARAMETER,
  QOS_RULE_OPERATION,
  type ExtendedProtocolConfigurationOptions,
  type NasMessageOf,
  type ProtocolConfigurationOption,
  type SNssai,
} from '../nas/index.ts';
import { nasBitRate } from './bitrate.ts';
import type { DefaultQosFlow, SessionAmbrBps } from './n2-transfers.ts';
import type { IpType } from './session-authorisation.ts';

/** SSC mode 1 (TS 23.501 5.6.9.2): the only one served. */
const SSC_MODE_1 = 1;
/** Packet filter component type "match-all" (9.11.4.13, Table 9.11.4.13.1). */
const MATCH_ALL = 0x01;
/** Precedence of the default QoS rule: the lowest (evaluated last, TS 23.501 5.7.1.1). */
const DEFAULT_RULE_PRECEDENCE = 255;
/**
 * The interface identifier the SMF gives an IPv6 session (9.11.4.10): the UE's address in its /64 is
 * `<prefix>::1`. (Router advertisements are not sent; the /64 is the session's.)
 */
const IPV6_INTERFACE_IDENTIFIER = Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 1);

const TYPE_CODE: Record<IpType, number> = {
  IPv4: PDU_SESSION_TYPE.ipv4,
  IPv6: PDU_SESSION_TYPE.ipv6,
  IPv4v6: PDU_SESSION_TYPE.ipv4v6,
};

function sessionAmbrIe(ambr: SessionAmbrBps) {
  return { downlink: nasBitRate(ambr.downlinkBps), uplink: nasBitRate(ambr.uplinkBps) };
}

/** The default QoS rule (9.11.4.13): match-all, lowest precedence, QFI of the default QoS flow. */
function defaultQosRule(flow: DefaultQosFlow, operationCode: number) {
  return [
    {
      identifier: 1,
      operationCode,
      defaultRule: true,
      // "Modify without modifying packet filters" carries none (9.11.4.13).
      packetFilters:
        operationCode === QOS_RULE_OPERATION.create
          ? [{ identifier: 1, direction: 3, contents: Uint8Array.of(MATCH_ALL) }]
          : [],
      precedence: DEFAULT_RULE_PRECEDENCE,
      segregation: false,
      qfi: flow.qfi,
    },
  ];
}

/** The default QoS flow's description (9.11.4.12): its 5QI (ARP goes to the radio only, over N2). */
function flowDescription(flow: DefaultQosFlow, operationCode: number) {
  return [
    {
      qfi: flow.qfi,
      operationCode,
      eBit: true,
      parameters: [{ identifier: QOS_FLOW_PARAMETER.fiveQi, contents: Uint8Array.of(flow.fiveQi) }],
    },
  ];
}

/**
 * The configuration the UE asked for in its ePCO (TS 24.008 10.5.6.3: an empty container of an
 * identifier is a request for it), answered from the profile: DNS server of the profile's family and
 * the IPv4 link MTU. Undefined when nothing was asked.
 */
export function answerPco(
  requested: ExtendedProtocolConfigurationOptions | undefined,
  profile: { dns: string; mtu: number },
  ipType: IpType,
): ExtendedProtocolConfigurationOptions | undefined {
  if (requested === undefined) return undefined;
  const asked = new Set(
    requested.options.map((o) =>
      o.kind === 'raw'
        ? o.identifier
        : o.kind === 'dns-server-ipv4'
          ? PCO_CONTAINER.dnsServerIpv4Address
          : o.kind === 'dns-server-ipv6'
            ? PCO_CONTAINER.dnsServerIpv6Address
            : PCO_CONTAINER.ipv4LinkMtu,
    ),
  );
  const options: ProtocolConfigurationOption[] = [];
  const dnsV4 = /^\d+\.\d+\.\d+\.\d+$/.test(profile.dns);
  if (asked.has(PCO_CONTAINER.dnsServerIpv4Address) && dnsV4 && ipType !== 'IPv6')
    options.push({ kind: 'dns-server-ipv4', address: profile.dns });
  if (asked.has(PCO_CONTAINER.ipv4LinkMtu) && profile.mtu > 0 && ipType !== 'IPv6')
    options.push({ kind: 'ipv4-link-mtu', mtu: profile.mtu });
  return options.length === 0 ? undefined : { configurationProtocol: 0, options };
}

interface AcceptInput {
  pduSessionId: number;
  pti: number;
  ipType: IpType;
  typeCause: number | undefined;
  ipv4: string | undefined;
  ambr: SessionAmbrBps;
  flow: DefaultQosFlow;
  sNssai: SNssai;
  dnn: string;
  pco: ExtendedProtocolConfigurationOptions | undefined;
}

/** PDU Session Establishment Accept (8.3.2, 6.4.1.3). */
export function establishmentAccept(input: AcceptInput): NasMessageOf<'pduSessionEstablishmentAccept'> {
  const type = TYPE_CODE[input.ipType];
  return {
    messageType: 'pduSessionEstablishmentAccept',
    pduSessionId: input.pduSessionId,
    pti: input.pti,
    selectedPduSessionType: type,
    selectedSscMode: SSC_MODE_1,
    authorizedQosRules: defaultQosRule(input.flow, QOS_RULE_OPERATION.create),
    sessionAmbr: sessionAmbrIe(input.ambr),
    ...(input.typeCause === undefined ? {} : { fiveGsmCause: input.typeCause }),
    pduAddress: {
      type,
      ...(input.ipv4 === undefined ? {} : { ipv4: input.ipv4 }),
      ...(input.ipType === 'IPv4' ? {} : { ipv6InterfaceIdentifier: IPV6_INTERFACE_IDENTIFIER }),
    },
    sNssai: input.sNssai,
    authorizedQosFlowDescriptions: flowDescription(input.flow, 1),
    ...(input.pco === undefined ? {} : { extendedProtocolConfigurationOptions: input.pco }),
    dnn: input.dnn,
  };
}

export function establishmentReject(
  pduSessionId: number,
  pti: number,
  cause: number,
): NasMessageOf<'pduSessionEstablishmentReject'> {
  return { messageType: 'pduSessionEstablishmentReject', pduSessionId, pti, fiveGsmCause: cause };
}

/**
 * PDU Session Modification Command (8.3.9): the Session-AMBR, the default QoS rule and flow
 * description modified. `pti` 0 when the network started it (6.3.2), the UE's request's when it
 * answers one (6.4.2.3).
 */
export function modificationCommand(
  pduSessionId: number,
  pti: number,
  ambr: SessionAmbrBps,
  flow: DefaultQosFlow,
): NasMessageOf<'pduSessionModificationCommand'> {
  return {
    messageType: 'pduSessionModificationCommand',
    pduSessionId,
    pti,
    sessionAmbr: sessionAmbrIe(ambr),
    authorizedQosRules: defaultQosRule(flow, QOS_RULE_OPERATION.modifyWithoutModifyingPacketFilters),
    authorizedQosFlowDescriptions: flowDescription(flow, 3),
  };
}

/** PDU Session Release Command (8.3.14): `pti` of the UE's request, or 0 when the network releases. */
export function releaseCommand(
  pduSessionId: number,
  pti: number,
  cause: number,
): NasMessageOf<'pduSessionReleaseCommand'> {
  return { messageType: 'pduSessionReleaseCommand', pduSessionId, pti, fiveGsmCause: cause };
}
