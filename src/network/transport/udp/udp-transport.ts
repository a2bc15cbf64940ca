import type { Clock, Timers } from '../../../clock.ts';
import { loadNativeAddon } from '../native/native-addon.ts';
import { SctpEndpoint } from '../sctp/endpoint.ts';
import type { SctpLimits, SctpParameters } from '../sctp/sctp-config.ts';
import { SCTP_UDP_PORT, UdpLink } from './udp-link.ts';

interface UdpTransportOptions {
  /** Local addresses to bind (default `0.0.0.0`). */
  addresses?: readonly string[];
  /** Local UDP encapsulation port (default 9899; 0 for an ephemeral one). */
  udpPort?: number;
  /** The UDP port of peers this side connects to (default 9899). */
  peerUdpPort?: number;
  mtu?: number;
  params?: Partial<SctpParameters>;
  limits?: Partial<SctpLimits>;
  clock?: Clock;
  timers?: Timers;
}

/** The `udp` N2 transport: the userland SCTP stack over UDP encapsulation (RFC 6951). */
export async function createUdpTransport(
  options: UdpTransportOptions = {},
): Promise<{ transport: SctpEndpoint; link: UdpLink }> {
  // The udp transport needs no privilege and no addon; where the addon is built, its UDP sockets
  // (batched system calls) and CRC32c are faster.
  const addon = loadNativeAddon();
  const link = await UdpLink.open({
    addresses: options.addresses ?? ['0.0.0.0'],
    port: options.udpPort ?? SCTP_UDP_PORT,
    ...(options.mtu === undefined ? {} : { mtu: options.mtu }),
    ...(addon.ok ? { addon: addon.addon } : {}),
  });
  const transport = new SctpEndpoint({
    kind: 'udp',
    link,
    peerLinkPort: options.peerUdpPort ?? SCTP_UDP_PORT,
    ...(addon.ok ? { crc32c: addon.addon.crc32c } : {}),
    ...(options.params === undefined ? {} : { params: options.params }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.timers === undefined ? {} : { timers: options.timers }),
  });
  return { transport, link };
}
