import type { Clock, Timers } from '../../../clock.ts';
import type { NativeAddon } from '../native/native-addon.ts';
import { SctpEndpoint } from '../sctp/endpoint.ts';
import type { SctpLimits, SctpParameters } from '../sctp/sctp-config.ts';
import { RawLink } from './raw-link.ts';

interface RawTransportOptions {
  addon: NativeAddon;
  /** Local addresses (default `0.0.0.0`): the endpoint receives SCTP sent to them. */
  addresses?: readonly string[];
  mtu?: number;
  receiveBufferSize?: number;
  onError?: (error: Error) => void;
  params?: Partial<SctpParameters>;
  limits?: Partial<SctpLimits>;
  clock?: Clock;
  timers?: Timers;
}

/**
 * The `raw` N2 transport: the userland SCTP stack over raw IP sockets of protocol 132. Needs
 * CAP_NET_RAW; one per network namespace; not on a host whose kernel has SCTP loaded.
 */
export function createRawTransport(options: RawTransportOptions): { transport: SctpEndpoint; link: RawLink } {
  const link = RawLink.open({
    addon: options.addon,
    addresses: options.addresses ?? ['0.0.0.0'],
    ...(options.mtu === undefined ? {} : { mtu: options.mtu }),
    ...(options.receiveBufferSize === undefined ? {} : { receiveBufferSize: options.receiveBufferSize }),
    ...(options.onError === undefined ? {} : { onError: options.onError }),
  });
  const transport = new SctpEndpoint({
    kind: 'raw',
    link,
    peerLinkPort: 0,
    crc32c: options.addon.crc32c,
    ...(options.params === undefined ? {} : { params: options.params }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.timers === undefined ? {} : { timers: options.timers }),
  });
  return { transport, link };
}
