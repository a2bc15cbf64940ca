import { spawn } from 'node:child_process';
import { isIPv4, isIPv6 } from 'node:net';

/**
 * A UE's TUN device inside a network namespace, as the UE's own IP stack sees its PDU session: the
 * session's address on it and routes through it. The gNB user plane creates the device (and keeps
 * its file descriptor); this moves it into the namespace and configures it with iproute2, which
 * needs CAP_NET_ADMIN.
 */
export interface UeTunConfiguration {
  /** The namespace to move the device into (`ip netns add <name>` made it). */
  namespace: string;
  ueIpv4?: string;
  /** The UE's IPv6 address inside the session's /64. */
  ueIpv6?: string;
  /** Link MTU (TS 24.501 9.11.4.28 / the profile's MTU), default 1500. */
  mtu?: number;
  /** Prefixes routed through the TUN: by default the default routes of the session's families. */
  routes?: readonly string[];
}

/** Runs `ip` with `args` and `input` on stdin; resolves with its stdout, or its stderr when it failed. */
function ipRun(args: readonly string[], input?: string): Promise<{ error?: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn('ip', args, { stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      if (stdout.length < 4096) stdout += chunk;
    });
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      if (stderr.length < 4096) stderr += chunk;
    });
    child.on('error', (error) => resolve({ error: error.message, stdout }));
    child.on('close', (code) =>
      resolve(code === 0 ? { stdout } : { error: stderr.trim() || `ip exited with ${code}`, stdout }),
    );
    // ip may exit before it read everything (an error in the first line): EPIPE is then its answer.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input);
  });
}

/** Runs `ip`; resolves with its stderr when it failed. */
async function ip(args: readonly string[], input?: string): Promise<string | undefined> {
  return (await ipRun(args, input)).error;
}

/** How long the kernel may take to make an added IPv6 address local (below), at most. */
const LOCAL_ROUTE_WAIT_MS = 20_000;
/** The pause between looks: from 2 ms, doubling, at most 100 ms (each look runs `ip`). */
const FIRST_POLL_MS = 2;
const MAX_POLL_MS = 100;

/**
 * Waits until the IPv6 address is local in the namespace. Linux installs an IPv6 address's local
 * route from its DAD work item, after `ip addr add` has returned, even with `nodad`: until then a
 * packet to the address meets only the /64's prefix route and is dropped as not ours (InAddrErrors).
 * IPv4 addresses are local when `ip addr add` returns.
 */
export async function untilLocal(namespace: string, address: string): Promise<string | undefined> {
  const deadline = Date.now() + LOCAL_ROUTE_WAIT_MS;
  for (let pause = FIRST_POLL_MS; ; pause = Math.min(MAX_POLL_MS, pause * 2)) {
    const shown = await ipRun(['-n', namespace, '-6', 'route', 'show', 'table', 'local', `${address}/128`]);
    if (shown.error !== undefined) return shown.error;
    if (shown.stdout.trim() !== '') return undefined;
    if (Date.now() > deadline) return `${address} did not become local within ${LOCAL_ROUTE_WAIT_MS} ms`;
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/** The `ip -batch` lines that configure the device inside its namespace. */
export function ueTunCommands(tunName: string, configuration: UeTunConfiguration): string[] {
  const { ueIpv4, ueIpv6 } = configuration;
  const routes = configuration.routes ?? [
    ...(ueIpv4 === undefined ? [] : ['default']),
    ...(ueIpv6 === undefined ? [] : ['::/0']),
  ];
  return [
    // No link-local address: the kernel would otherwise send Router Solicitations from fe80::/64,
    // which the UPF rightly drops as spoofed (a UE learns its interface identifier from the SMF,
    // TS 23.501 5.8.2.2.2, not by SLAAC on the TUN).
    `link set dev ${tunName} addrgenmode none`,
    `link set dev ${tunName} mtu ${configuration.mtu ?? 1500} up`,
    ...(ueIpv4 === undefined ? [] : [`addr add ${ueIpv4}/32 dev ${tunName}`]),
    ...(ueIpv6 === undefined ? [] : [`addr add ${ueIpv6}/64 dev ${tunName} nodad`]),
    ...routes.map((prefix) => `route replace ${prefix} dev ${tunName}`),
  ];
}

/** Moves the device into the namespace and configures it; an error message when that failed. */
export async function configureUeTun(
  tunName: string,
  configuration: UeTunConfiguration,
): Promise<string | undefined> {
  const { ueIpv4, ueIpv6, mtu } = configuration;
  if (ueIpv4 !== undefined && !isIPv4(ueIpv4)) return `not an IPv4 address: ${ueIpv4}`;
  if (ueIpv6 !== undefined && !isIPv6(ueIpv6)) return `not an IPv6 address: ${ueIpv6}`;
  if (mtu !== undefined && !(Number.isSafeInteger(mtu) && mtu >= 576 && mtu <= 65535))
    return `MTU out of range: ${mtu}`;
  const bad = configuration.routes?.find((prefix) => !/^[0-9a-fA-F:./]+$|^default$/.test(prefix));
  if (bad !== undefined) return `not a prefix: ${bad}`;
  const moved = await ip(['link', 'set', 'dev', tunName, 'netns', configuration.namespace]);
  if (moved !== undefined) return `moving ${tunName} into ${configuration.namespace}: ${moved}`;
  const configured = await ip(
    ['-n', configuration.namespace, '-batch', '-'],
    ueTunCommands(tunName, configuration).join('\n') + '\n',
  );
  if (configured !== undefined) return `configuring ${tunName}: ${configured}`;
  return ueIpv6 === undefined ? undefined : await untilLocal(configuration.namespace, ueIpv6);
}
