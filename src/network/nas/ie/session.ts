// 5GSM value codecs: QoS rules (TS 24.501 9.11.4.13), QoS flow descriptions (9.11.4.12), Session-AMBR
// (9.11.4.14), PDU address (9.11.4.10), DNN (9.11.2.1B), extended protocol configuration options
// (9.11.4.6, coded as TS 24.008 10.5.6.3A), integrity protection maximum data rate (9.11.4.7) and the
// maximum number of supported packet filters (9.11.4.9).
import { copyOf, checkRange, invalid, octets } from '../ie-codec.ts';

/** QoS rule operation codes (9.11.4.13, bits 8-6 of the rule's fourth octet). */
export const QOS_RULE_OPERATION = {
  create: 1,
  delete: 2,
  modifyAndAddPacketFilters: 3,
  modifyAndReplaceAllPacketFilters: 4,
  modifyAndDeletePacketFilters: 5,
  modifyWithoutModifyingPacketFilters: 6,
} as const;

/** Packet filter direction (bits 6-5). */
export const PACKET_FILTER_DIRECTION = { downlink: 1, uplink: 2, bidirectional: 3 } as const;

export interface PacketFilter {
  identifier: number;
  /** Absent for "modify existing QoS rule and delete packet filters", which lists identifiers only. */
  direction?: number;
  /** The packet filter components (Table 9.11.4.13.1), as received. */
  contents?: Uint8Array;
}

export interface QosRule {
  identifier: number;
  operationCode: number;
  /** Default QoS rule (DQR bit). */
  defaultRule: boolean;
  packetFilters: PacketFilter[];
  /** Absent when the rule is deleted (its length then covers the fourth octet only). */
  precedence?: number;
  segregation?: boolean;
  qfi?: number;
}

function decodePacketFilters(
  rule: Uint8Array,
  count: number,
  identifiersOnly: boolean,
): [PacketFilter[], number] {
  const filters: PacketFilter[] = [];
  let offset = 1;
  for (let i = 0; i < count; i++) {
    if (offset >= rule.length) invalid('packet filter list runs past the QoS rule');
    const head = rule[offset] ?? 0;
    if (identifiersOnly) {
      filters.push({ identifier: head & 0xf });
      offset += 1;
      continue;
    }
    const length = rule[offset + 1];
    if (length === undefined || offset + 2 + length > rule.length)
      invalid('packet filter runs past the QoS rule');
    filters.push({
      identifier: head & 0xf,
      direction: (head >> 4) & 0x3,
      contents: copyOf(rule, offset + 2, offset + 2 + length),
    });
    offset += 2 + length;
  }
  return [filters, offset];
}

function decodeQosRule(identifier: number, rule: Uint8Array): QosRule {
  if (rule.length < 1) invalid('empty QoS rule');
  const head = rule[0] ?? 0;
  const operationCode = head >> 5;
  const identifiersOnly = operationCode === QOS_RULE_OPERATION.modifyAndDeletePacketFilters;
  const [packetFilters, offset] = decodePacketFilters(rule, head & 0xf, identifiersOnly);
  const decoded: QosRule = { identifier, operationCode, defaultRule: (head & 0x10) !== 0, packetFilters };
  const rest = rule.length - offset;
  if (rest > 2) invalid('QoS rule longer than its fields');
  if (rest >= 1) decoded.precedence = rule[offset] ?? 0;
  if (rest === 2) {
    const last = rule[offset + 1] ?? 0;
    decoded.segregation = (last & 0x40) !== 0;
    decoded.qfi = last & 0x3f;
  }
  return decoded;
}

function encodeQosRule(rule: QosRule): number[] {
  const body = [
    (checkRange(rule.operationCode, 0, 7) << 5) |
      (rule.defaultRule ? 0x10 : 0) |
      checkRange(rule.packetFilters.length, 0, 15),
  ];
  for (const filter of rule.packetFilters) {
    const identifier = checkRange(filter.identifier, 0, 15);
    if (filter.contents === undefined) body.push(identifier);
    else
      body.push(
        ((filter.direction ?? 0) << 4) | identifier,
        checkRange(filter.contents.length, 0, 255),
        ...filter.contents,
      );
  }
  if (rule.precedence !== undefined) body.push(checkRange(rule.precedence, 0, 255));
  if (rule.qfi !== undefined) body.push((rule.segregation ? 0x40 : 0) | checkRange(rule.qfi, 0, 63));
  checkRange(body.length, 0, 0xffff);
  return [checkRange(rule.identifier, 0, 255), body.length >> 8, body.length & 0xff, ...body];
}

export const qosRules = octets<QosRule[]>(
  (value) => {
    const rules: QosRule[] = [];
    let offset = 0;
    while (offset < value.length) {
      if (offset + 3 > value.length) invalid('QoS rule header runs past the IE');
      const length = ((value[offset + 1] ?? 0) << 8) | (value[offset + 2] ?? 0);
      if (offset + 3 + length > value.length) invalid('QoS rule runs past the IE');
      rules.push(decodeQosRule(value[offset] ?? 0, value.subarray(offset + 3, offset + 3 + length)));
      offset += 3 + length;
    }
    return rules;
  },
  (rules) => Uint8Array.from(rules.flatMap(encodeQosRule)),
);

/** QoS flow description parameter identifiers (9.11.4.12). */
export const QOS_FLOW_PARAMETER = {
  fiveQi: 0x01,
  gfbrUplink: 0x02,
  gfbrDownlink: 0x03,
  mfbrUplink: 0x04,
  mfbrDownlink: 0x05,
  averagingWindow: 0x06,
  epsBearerIdentity: 0x07,
} as const;

export interface QosFlowDescription {
  qfi: number;
  /** 1 create, 2 delete, 3 modify. */
  operationCode: number;
  /** E bit: parameters list replaces (create) or extends (modify) the stored one. */
  eBit: boolean;
  parameters: { identifier: number; contents: Uint8Array }[];
}

export const qosFlowDescriptions = octets<QosFlowDescription[]>(
  (value) => {
    const flows: QosFlowDescription[] = [];
    let offset = 0;
    while (offset < value.length) {
      if (offset + 3 > value.length) invalid('QoS flow description runs past the IE');
      const qfi = (value[offset] ?? 0) & 0x3f;
      const operationCode = (value[offset + 1] ?? 0) >> 5;
      const third = value[offset + 2] ?? 0;
      const parameters: QosFlowDescription['parameters'] = [];
      offset += 3;
      for (let i = 0; i < (third & 0x3f); i++) {
        const length = value[offset + 1];
        if (length === undefined || offset + 2 + length > value.length)
          invalid('QoS flow parameter runs past the IE');
        parameters.push({
          identifier: value[offset] ?? 0,
          contents: copyOf(value, offset + 2, offset + 2 + length),
        });
        offset += 2 + length;
      }
      flows.push({ qfi, operationCode, eBit: (third & 0x40) !== 0, parameters });
    }
    return flows;
  },
  (flows) =>
    Uint8Array.from(
      flows.flatMap((flow) => [
        checkRange(flow.qfi, 0, 63),
        checkRange(flow.operationCode, 0, 7) << 5,
        (flow.eBit ? 0x40 : 0) | checkRange(flow.parameters.length, 0, 63),
        ...flow.parameters.flatMap((p) => [
          checkRange(p.identifier, 0, 255),
          checkRange(p.contents.length, 0, 255),
          ...p.contents,
        ]),
      ]),
    ),
);

export interface BitRate {
  /** Unit code of 9.11.4.14: 1 = 1 kbps, 2 = 4 kbps, ... each step x4 within a decade, 6 = 1 Mbps. */
  unit: number;
  value: number;
}

export interface SessionAmbr {
  downlink: BitRate;
  uplink: BitRate;
}

export const sessionAmbr = octets<SessionAmbr>(
  (value) => {
    if (value.length !== 6) invalid('Session-AMBR is 6 octets');
    const rate = (o: number): BitRate => ({
      unit: value[o] ?? 0,
      value: ((value[o + 1] ?? 0) << 8) | (value[o + 2] ?? 0),
    });
    return { downlink: rate(0), uplink: rate(3) };
  },
  ({ downlink, uplink }) => {
    const rate = (r: BitRate): number[] => [
      checkRange(r.unit, 0, 255),
      checkRange(r.value, 0, 0xffff) >> 8,
      r.value & 0xff,
    ];
    return Uint8Array.from([...rate(downlink), ...rate(uplink)]);
  },
);

/** Bits per second of a Session-AMBR rate; 0 for the "not used" unit and reserved units. */
export function bitRateBps(rate: BitRate): number {
  if (rate.unit < 1 || rate.unit > 25) return 0;
  const step = rate.unit - 1;
  return rate.value * 1000 ** (Math.floor(step / 5) + 1) * 4 ** (step % 5);
}

/** PDU session type values (9.11.4.11), also the PDU address type. */
export const PDU_SESSION_TYPE = { ipv4: 1, ipv6: 2, ipv4v6: 3, unstructured: 4, ethernet: 5 } as const;

export interface PduAddress {
  type: number;
  ipv4?: string;
  ipv6InterfaceIdentifier?: Uint8Array;
  /** Present when SI6LLA is set (Release 16). */
  smfIpv6LinkLocalAddress?: Uint8Array;
}

const IID = 8;
const IPV6 = 16;

export const pduAddress = octets<PduAddress>(
  (value) => {
    if (value.length < 1) invalid('empty PDU address');
    const head = value[0] ?? 0;
    const type = head & 0x7;
    const si6lla = (head & 0x08) !== 0;
    const addressLength = type === PDU_SESSION_TYPE.ipv4 ? 4 : type === PDU_SESSION_TYPE.ipv6 ? IID : IID + 4;
    if (type < 1 || type > 3) invalid(`PDU address type ${type}`);
    if (value.length !== 1 + addressLength + (si6lla ? IPV6 : 0))
      invalid('PDU address length does not fit its type');
    const address: PduAddress = { type };
    if (type !== PDU_SESSION_TYPE.ipv4) address.ipv6InterfaceIdentifier = copyOf(value, 1, 1 + IID);
    if (type !== PDU_SESSION_TYPE.ipv6)
      address.ipv4 = Array.from(value.subarray(addressLength - 3, addressLength + 1)).join('.');
    if (si6lla) address.smfIpv6LinkLocalAddress = copyOf(value, 1 + addressLength);
    return address;
  },
  (address) => {
    const out = [checkRange(address.type, 1, 3) | (address.smfIpv6LinkLocalAddress ? 0x08 : 0)];
    if (address.type !== PDU_SESSION_TYPE.ipv4)
      out.push(...(address.ipv6InterfaceIdentifier ?? new Uint8Array(IID)));
    if (address.type !== PDU_SESSION_TYPE.ipv6) out.push(...ipv4Octets(address.ipv4 ?? '0.0.0.0'));
    if (address.smfIpv6LinkLocalAddress) out.push(...address.smfIpv6LinkLocalAddress);
    return Uint8Array.from(out);
  },
);

function ipv4Octets(address: string): number[] {
  const parts = address.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255))
    throw new RangeError(`not an IPv4 address: ${address}`);
  return parts;
}

/** DNN: labels each preceded by its length (TS 23.003 9.1), shown dot-separated. */
export const dnn = octets<string>(
  (value) => {
    const labels: string[] = [];
    let offset = 0;
    while (offset < value.length) {
      const length = value[offset] ?? 0;
      if (length === 0 || offset + 1 + length > value.length) invalid('DNN label length');
      const label = Buffer.from(value.subarray(offset + 1, offset + 1 + length)).toString('latin1');
      if (label.includes('.')) invalid('DNN label contains a dot');
      labels.push(label);
      offset += 1 + length;
    }
    return labels.join('.');
  },
  (name) =>
    Buffer.concat(
      name.split('.').flatMap((label) => {
        const octets = Buffer.from(label, 'latin1');
        return [Uint8Array.of(checkRange(octets.length, 1, 63)), octets];
      }),
    ),
);

/** Container identifiers of TS 24.008 10.5.6.3 used for DNS and MTU. */
export const PCO_CONTAINER = {
  dnsServerIpv6Address: 0x0003,
  ipAddressAllocationViaNas: 0x000a,
  dnsServerIpv4Address: 0x000d,
  ipv4LinkMtu: 0x0010,
} as const;

/**
 * One option: the DNS and MTU containers the network sends are structured (a request for them, sent
 * by the UE with no contents, stays raw), every other one is kept as its identifier and contents.
 */
export type ProtocolConfigurationOption =
  | { kind: 'dns-server-ipv4'; address: string }
  | { kind: 'dns-server-ipv6'; address: Uint8Array }
  | { kind: 'ipv4-link-mtu'; mtu: number }
  | { kind: 'raw'; identifier: number; contents: Uint8Array };

export interface ExtendedProtocolConfigurationOptions {
  /** Bits 3-1 of the first octet: 0 for PPP with IP PDP (the only value defined). */
  configurationProtocol: number;
  options: ProtocolConfigurationOption[];
}

function decodeOption(identifier: number, contents: Uint8Array): ProtocolConfigurationOption {
  if (identifier === PCO_CONTAINER.dnsServerIpv4Address && contents.length === 4)
    return { kind: 'dns-server-ipv4', address: Array.from(contents).join('.') };
  if (identifier === PCO_CONTAINER.dnsServerIpv6Address && contents.length === IPV6)
    return { kind: 'dns-server-ipv6', address: copyOf(contents) };
  if (identifier === PCO_CONTAINER.ipv4LinkMtu && contents.length === 2)
    return { kind: 'ipv4-link-mtu', mtu: ((contents[0] ?? 0) << 8) | (contents[1] ?? 0) };
  return { kind: 'raw', identifier, contents: copyOf(contents) };
}

function encodeOption(option: ProtocolConfigurationOption): number[] {
  const [identifier, contents]: [number, ArrayLike<number>] =
    option.kind === 'dns-server-ipv4'
      ? [PCO_CONTAINER.dnsServerIpv4Address, ipv4Octets(option.address)]
      : option.kind === 'dns-server-ipv6'
        ? [PCO_CONTAINER.dnsServerIpv6Address, option.address]
        : option.kind === 'ipv4-link-mtu'
          ? [PCO_CONTAINER.ipv4LinkMtu, [checkRange(option.mtu, 0, 0xffff) >> 8, option.mtu & 0xff]]
          : [option.identifier, option.contents];
  return [
    checkRange(identifier, 0, 0xffff) >> 8,
    identifier & 0xff,
    checkRange(contents.length, 0, 255),
    ...Array.from(contents),
  ];
}

export const extendedProtocolConfigurationOptions = octets<ExtendedProtocolConfigurationOptions>(
  (value) => {
    if (value.length < 1) invalid('empty protocol configuration options');
    const options: ProtocolConfigurationOption[] = [];
    let offset = 1;
    while (offset < value.length) {
      const length = value[offset + 2];
      if (length === undefined || offset + 3 + length > value.length)
        invalid('configuration option runs past the IE');
      const identifier = ((value[offset] ?? 0) << 8) | (value[offset + 1] ?? 0);
      options.push(decodeOption(identifier, value.subarray(offset + 3, offset + 3 + length)));
      offset += 3 + length;
    }
    return { configurationProtocol: (value[0] ?? 0) & 0x7, options };
  },
  // Bit 8 of the first octet is the extension bit, always 1.
  (v) =>
    Uint8Array.from([0x80 | checkRange(v.configurationProtocol, 0, 7), ...v.options.flatMap(encodeOption)]),
);

export interface IntegrityProtectionMaximumDataRate {
  /** 0 = 64 kbps, 1 = NULL, 0xff = full data rate. */
  uplink: number;
  downlink: number;
}

export const integrityProtectionMaximumDataRate = octets<IntegrityProtectionMaximumDataRate>(
  (value) =>
    value.length === 2
      ? { uplink: value[0] ?? 0, downlink: value[1] ?? 0 }
      : invalid('integrity protection maximum data rate is 2 octets'),
  (v) => Uint8Array.of(checkRange(v.uplink, 0, 255), checkRange(v.downlink, 0, 255)),
);

/** An 11-bit count: octet 1 and bits 8-6 of octet 2. */
export const maximumNumberOfSupportedPacketFilters = octets<number>(
  (value) =>
    value.length === 2
      ? ((value[0] ?? 0) << 3) | ((value[1] ?? 0) >> 5)
      : invalid('maximum number of supported packet filters is 2 octets'),
  (count) => Uint8Array.of(checkRange(count, 0, 0x7ff) >> 3, (count & 0x7) << 5),
);
