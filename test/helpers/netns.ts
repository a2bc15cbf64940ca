import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import {
  kernelSctpSupport,
  loadNativeAddon,
  rawSocketSupport,
} from '../../src/network/transport/native/native-addon.ts';
import { untilLocal } from '../../src/simulator/user-plane/ue-tun.ts';

/**
 * A network namespace linked to this process's namespace by a veth pair: the system tests put a peer
 * (usrsctp, the simulator) in it, so that raw sockets on either side see only the other side's
 * packets. Names and subnet depend on the process id, so files run at the same time never collide.
 */
const run = promisify(execFile);

export interface VethNamespace {
  /** The namespace's name (`ip netns exec <name> ...`). */
  readonly name: string;
  /** The veth end in this process's namespace. */
  readonly hostInterface: string;
  /** The veth end inside the namespace. */
  readonly peerInterface: string;
  readonly hostAddress: string;
  readonly peerAddress: string;
  /** `ip` arguments that run `command` inside the namespace: spawn('ip', namespace.exec(...)). */
  exec(...command: string[]): string[];
  /**
   * Adds a `tc netem` qdisc with these arguments on both veth ends (each impairs what it sends);
   * false when the kernel has no sch_netem (this project's build machines).
   */
  netem(...args: string[]): Promise<boolean>;
  /** Deletes the namespace and with it the pair (idempotent). */
  remove(): Promise<void>;
}

/**
 * Creates the namespace and the pair, addresses `10.<octet>.<n>.1/24` here and `.2` there (n from the
 * process id), both ends and the namespace's loopback up. `tag` (one letter) tells tests apart in
 * interface names; `octet` their subnets.
 */
export async function createVethNamespace(tag: string, octet: number): Promise<VethNamespace> {
  const id = process.pid % 100000;
  const n = process.pid % 250;
  const name = `pmn${tag}n${id}`;
  const hostInterface = `pmn${tag}h${id}`;
  const peerInterface = 'eth0';
  const hostAddress = `10.${octet}.${n}.1`;
  const peerAddress = `10.${octet}.${n}.2`;
  const remove = async () => {
    await run('ip', ['link', 'del', hostInterface]).catch(() => undefined);
    await run('ip', ['netns', 'del', name]).catch(() => undefined);
  };
  try {
    await run('ip', ['netns', 'add', name]);
    await run('ip', [
      'link',
      'add',
      hostInterface,
      'type',
      'veth',
      'peer',
      'name',
      peerInterface,
      'netns',
      name,
    ]);
    await run('ip', ['addr', 'add', `${hostAddress}/24`, 'dev', hostInterface]);
    await run('ip', ['link', 'set', hostInterface, 'up']);
    await run('ip', ['-n', name, 'addr', 'add', `${peerAddress}/24`, 'dev', peerInterface]);
    await run('ip', ['-n', name, 'link', 'set', peerInterface, 'up']);
    await run('ip', ['-n', name, 'link', 'set', 'lo', 'up']);
  } catch (error) {
    await remove();
    throw error;
  }
  return {
    name,
    hostInterface,
    peerInterface,
    hostAddress,
    peerAddress,
    exec: (...command) => ['netns', 'exec', name, ...command],
    async netem(...args) {
      try {
        await run('tc', ['qdisc', 'add', 'dev', hostInterface, 'root', 'netem', ...args]);
        await run('tc', ['-n', name, 'qdisc', 'add', 'dev', peerInterface, 'root', 'netem', ...args]);
        return true;
      } catch {
        await run('tc', ['qdisc', 'del', 'dev', hostInterface, 'root']).catch(() => undefined);
        return false;
      }
    },
    remove,
  };
}

/** The data network behind a UPF's N6: its address, and the UE pool routed back through the TUN. */
export interface DataNetworkAddresses {
  ipv4: string;
  uePool: string;
  ipv6?: { address: string; uePool: string };
}

/**
 * Moves a UPF's N6 TUN into the data network's namespace (the forwarder keeps its descriptor) and
 * addresses it there: no IPv6 link-local address (no Router Solicitation or MLD chatter into the
 * forwarder), the data network's address, routes to the UE pools through the TUN, loopback up.
 */
export async function placeN6(tun: string, namespace: string, dn: DataNetworkAddresses): Promise<void> {
  const commands = [
    ['link', 'set', tun, 'netns', namespace],
    ['-n', namespace, 'link', 'set', tun, 'addrgenmode', 'none'],
    ['-n', namespace, 'addr', 'add', `${dn.ipv4}/32`, 'dev', tun],
    ['-n', namespace, 'link', 'set', tun, 'up'],
    ['-n', namespace, 'link', 'set', 'lo', 'up'],
    ['-n', namespace, 'route', 'add', dn.uePool, 'dev', tun],
    ...(dn.ipv6 === undefined
      ? []
      : [
          ['-n', namespace, '-6', 'addr', 'add', `${dn.ipv6.address}/128`, 'dev', tun, 'nodad'],
          ['-n', namespace, '-6', 'route', 'add', dn.ipv6.uePool, 'dev', tun],
        ]),
  ];
  for (const args of commands) await run('ip', args);
  // As for a simulated UE's TUN: the IPv6 address is local only once the kernel's DAD work item ran.
  const notLocal = dn.ipv6 === undefined ? undefined : await untilLocal(namespace, dn.ipv6.address);
  if (notLocal !== undefined) throw new Error(`placing N6 in ${namespace}: ${notLocal}`);
}

/** Why namespaces cannot be made here (not root), or undefined. */
export function namespacesUnavailable(): string | undefined {
  return process.getuid?.() === 0 ? undefined : 'network namespaces need root';
}

/**
 * Why our `raw` stack cannot face a peer in a namespace here, or undefined: it needs the addon, root,
 * CAP_NET_RAW, and a host kernel without SCTP (which would answer the peer's packets itself).
 */
export function rawPeerInNamespaceUnavailable(): string | undefined {
  const load = loadNativeAddon();
  if (!load.ok) return load.error.message;
  return (
    namespacesUnavailable() ??
    (!rawSocketSupport(load.addon, 4).available
      ? 'raw sockets need CAP_NET_RAW'
      : kernelSctpSupport(load.addon).available
        ? 'the host kernel has SCTP: it, not our stack, would answer the peer'
        : undefined)
  );
}

/** Whether a device of that name exists in the namespace. */
export async function tunExists(namespace: string, tunName: string): Promise<boolean> {
  return run('ip', ['-n', namespace, 'link', 'show', 'dev', tunName]).then(
    () => true,
    () => false,
  );
}
