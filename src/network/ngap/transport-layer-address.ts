import { isIPv4, isIPv6 } from 'node:net';
import { NGAP_PORT } from '../transport/n2-transport.ts';
import { CPTransportLayerInformationExtIEs } from './generated/single-ies.ts';
import type { CPTransportLayerInformation, TransportLayerAddress } from './generated/types.ts';

/** An NG-C transport endpoint: IP address and SCTP port. */
export interface TnlEndpoint {
  address: string;
  port: number;
}

/** An IPv4 or IPv6 address as Transport Layer Address (TS 38.413 9.3.2.4, TS 38.414 5.1). */
export function transportLayerAddress(address: string): TransportLayerAddress {
  if (isIPv4(address)) return { bytes: Uint8Array.from(address.split('.').map(Number)), length: 32 };
  if (isIPv6(address)) {
    const [head = '', tail] = address.split('::');
    const h = head === '' ? [] : head.split(':');
    const t = tail === undefined || tail === '' ? [] : tail.split(':');
    const groups = [...h, ...Array<string>(tail === undefined ? 0 : 8 - h.length - t.length).fill('0'), ...t];
    return {
      bytes: Uint8Array.from(groups.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff])),
      length: 128,
    };
  }
  throw new RangeError(`not an IP address: ${address}`);
}

/**
 * The IP address a Transport Layer Address carries: TS 38.414 5.1, an IPv4 (32 bits), IPv6 (128) or
 * both (160) address, the IPv4 one used then; undefined for any other length.
 */
export function addressOfTransportLayerAddress(tla: {
  bytes: Uint8Array;
  length: number;
}): string | undefined {
  if (tla.length === 32 || tla.length === 160) return Array.from(tla.bytes.subarray(0, 4)).join('.');
  if (tla.length === 128) {
    const groups: string[] = [];
    for (let i = 0; i < 16; i += 2)
      groups.push((((tla.bytes[i] ?? 0) << 8) | (tla.bytes[i + 1] ?? 0)).toString(16));
    return groups.join(':');
  }
  return undefined;
}

/**
 * CP Transport Layer Information (TS 38.413 9.3.2.6): the address alone on the NGAP port 38412 (TS 38.412
 * 7), else the address and port (Endpoint IP Address and Port, the choice extension).
 */
export function cpTransportLayerInformation(endpoint: TnlEndpoint): CPTransportLayerInformation {
  const endpointIPAddress = transportLayerAddress(endpoint.address);
  if (endpoint.port === NGAP_PORT) return { choice: 'endpointIPAddress', value: endpointIPAddress };
  return {
    choice: 'choice-Extensions',
    value: CPTransportLayerInformationExtIEs.endpointIpAddressAndPort({
      endpointIPAddress,
      portNumber: Uint8Array.of(endpoint.port >> 8, endpoint.port & 0xff),
    }),
  };
}

/** The endpoint CP Transport Layer Information names; undefined for an address or port that does not read. */
export function endpointOf(information: CPTransportLayerInformation): TnlEndpoint | undefined {
  if (information.choice === 'endpointIPAddress') {
    const address = addressOfTransportLayerAddress(information.value);
    return address === undefined ? undefined : { address, port: NGAP_PORT };
  }
  const field = information.value;
  if (field.name !== 'EndpointIPAddressAndPort') return undefined;
  const { endpointIPAddress, portNumber } = field.value;
  const address = addressOfTransportLayerAddress(endpointIPAddress);
  if (address === undefined || portNumber.length !== 2) return undefined;
  return { address, port: ((portNumber[0] ?? 0) << 8) | (portNumber[1] ?? 0) };
}
