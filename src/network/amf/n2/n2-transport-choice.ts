import type { Clock, Timers } from '../../../clock.ts';
import { KernelTransport } from '../../transport/kernel/kernel-transport.ts';
import {
  kernelSctpSupport,
  loadNativeAddon,
  rawSocketSupport,
  type NativeAddon,
  type Support,
} from '../../transport/native/native-addon.ts';
import type { N2Transport } from '../../transport/n2-transport.ts';
import { createRawTransport } from '../../transport/raw/raw-transport.ts';
import type { SctpParameters } from '../../transport/sctp/sctp-config.ts';
import { createUdpTransport } from '../../transport/udp/udp-transport.ts';

/** The `n2_transport` setting: one of the three, or `auto` (kernel, else raw), or `off`. */
export type N2TransportSetting = 'auto' | 'kernel' | 'raw' | 'udp' | 'off';
export const N2_TRANSPORT_SETTINGS: readonly N2TransportSetting[] = ['auto', 'kernel', 'raw', 'udp', 'off'];

export type N2TransportKind = 'kernel' | 'raw' | 'udp';

/** What the host offers, asked once at start (injected in tests). */
export interface HostSupport {
  addon(): { ok: true; addon: NativeAddon } | { ok: false; error: Error };
  kernel(addon: NativeAddon): Support;
  raw(addon: NativeAddon): Support;
}

export const HOST_SUPPORT: HostSupport = {
  addon: () => loadNativeAddon(),
  kernel: kernelSctpSupport,
  raw: (addon) => rawSocketSupport(addon, 4),
};

type TransportChoice =
  { use: N2TransportKind; addon: NativeAddon | undefined; why: string } | { use: 'none'; why: string };

/**
 * Which transport a setting means on this host (network.md section 1). `auto`: the kernel's SCTP where
 * the kernel has it, else the userland stack over raw sockets where they can be opened, else none, and
 * the service runs without N2 (said in its start line). An explicit `kernel` or `raw` that the host
 * cannot give is a start error (thrown), since the operator asked for it; `udp` needs nothing.
 */
export function chooseN2Transport(
  setting: N2TransportSetting,
  host: HostSupport = HOST_SUPPORT,
): TransportChoice {
  if (setting === 'off') return { use: 'none', why: 'N2 is off (n2_transport: off)' };
  if (setting === 'udp')
    return { use: 'udp', addon: undefined, why: 'SCTP over UDP (RFC 6951), as configured' };
  const loaded = host.addon();
  if (!loaded.ok) {
    if (setting === 'auto')
      return {
        use: 'none',
        why: `no N2: ${loaded.error.message}; set n2_transport to udp to run without it`,
      };
    throw new Error(`n2_transport ${setting}: ${loaded.error.message}`);
  }
  const { addon } = loaded;
  const kernel = setting === 'raw' ? undefined : host.kernel(addon);
  if (kernel?.available === true) return { use: 'kernel', addon, why: "the host kernel's SCTP" };
  if (setting === 'kernel' && kernel?.available === false)
    throw new Error(`n2_transport kernel: the host kernel has no SCTP (${kernel.reason})`);
  const raw = host.raw(addon);
  if (raw.available) {
    return {
      use: 'raw',
      addon,
      why:
        setting === 'raw'
          ? 'userland SCTP over raw IP, as configured'
          : 'userland SCTP over raw IP (the kernel has no SCTP)',
    };
  }
  if (setting === 'raw') throw new Error(`n2_transport raw: ${raw.reason} (raw sockets need CAP_NET_RAW)`);
  return {
    use: 'none',
    why:
      `no N2: the kernel has no SCTP and raw sockets cannot be opened (${raw.reason}); ` +
      'grant CAP_NET_RAW, or set n2_transport to udp',
  };
}

interface OpenedTransport {
  transport: N2Transport;
  kind: N2TransportKind;
  /** The local UDP encapsulation port of the `udp` transport (the one peers send to). */
  udpPort?: number;
}

/** Opens the chosen transport on the listen addresses. */
export async function openN2Transport(
  choice: Exclude<TransportChoice, { use: 'none' }>,
  options: {
    addresses: readonly string[];
    udpPort: number;
    clock?: Clock;
    timers?: Timers;
    /** RFC 9260 protocol parameters of the userland stack (`raw`, `udp`): RTO, Path.Max.Retrans, ... */
    sctp?: Partial<SctpParameters>;
  },
): Promise<OpenedTransport> {
  const time = {
    ...(options.sctp === undefined ? {} : { params: options.sctp }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.timers === undefined ? {} : { timers: options.timers }),
  };
  switch (choice.use) {
    case 'kernel':
      return { kind: 'kernel', transport: new KernelTransport({ addon: requireAddon(choice.addon) }) };
    case 'raw': {
      const { transport } = createRawTransport({
        addon: requireAddon(choice.addon),
        addresses: options.addresses,
        ...time,
      });
      return { kind: 'raw', transport };
    }
    case 'udp': {
      const { transport, link } = await createUdpTransport({
        addresses: options.addresses,
        udpPort: options.udpPort,
        ...time,
      });
      return { kind: 'udp', transport, udpPort: link.port };
    }
  }
}

function requireAddon(addon: NativeAddon | undefined): NativeAddon {
  if (addon === undefined) throw new Error('the native addon is needed for this transport');
  return addon;
}
