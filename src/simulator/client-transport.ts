import { KernelTransport } from '../network/transport/kernel/kernel-transport.ts';
import type { N2Transport } from '../network/transport/n2-transport.ts';
import {
  kernelSctpSupport,
  loadNativeAddon,
  rawSocketSupport,
} from '../network/transport/native/native-addon.ts';
import { createRawTransport } from '../network/transport/raw/raw-transport.ts';
import type { SctpParameters } from '../network/transport/sctp/sctp-config.ts';
import { createUdpTransport } from '../network/transport/udp/udp-transport.ts';

export type ClientTransportKind = 'udp' | 'raw' | 'kernel';

interface ClientTransportOptions {
  /** The local address the simulator's SCTP uses (`raw` receives on it, `udp` binds it). */
  localAddress: string;
  /** The AMF's UDP encapsulation port (RFC 6951; `udp` only). */
  peerUdpPort: number;
  /** SCTP parameters of the userland stack (`udp`, `raw`), e.g. fewer INIT retransmissions. */
  params?: Partial<SctpParameters>;
}

/**
 * The RAN side's end of a transport, shared by every simulated node: one UDP socket (`udp`), one raw
 * socket per namespace (`raw`), or a kernel SCTP socket per association (`kernel`). Throws, saying why,
 * when the host cannot give that transport.
 */
export async function openClientTransport(
  kind: ClientTransportKind,
  options: ClientTransportOptions,
): Promise<N2Transport> {
  switch (kind) {
    case 'udp': {
      const { transport } = await createUdpTransport({
        addresses: [options.localAddress],
        udpPort: 0,
        peerUdpPort: options.peerUdpPort,
        ...(options.params === undefined ? {} : { params: options.params }),
      });
      return transport;
    }
    case 'raw': {
      const addon = nativeAddon();
      const support = rawSocketSupport(addon, options.localAddress.includes(':') ? 6 : 4);
      if (!support.available) throw new Error(support.reason);
      return createRawTransport({
        addon,
        addresses: [options.localAddress],
        ...(options.params === undefined ? {} : { params: options.params }),
      }).transport;
    }
    case 'kernel': {
      const addon = nativeAddon();
      const support = kernelSctpSupport(addon);
      if (!support.available) throw new Error(support.reason);
      return new KernelTransport({ addon });
    }
  }
}

function nativeAddon() {
  const load = loadNativeAddon();
  if (!load.ok) throw load.error;
  return load.addon;
}
