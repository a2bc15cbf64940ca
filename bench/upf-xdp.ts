/**
 * The UPF's XDP datapath against its ceilings, in one run (bench/upf.ts part 4; docs/upf.md "The XDP
 * datapath", docs/performance.md "User plane"). A gNB namespace and a data-network namespace, each on a
 * veth pair to this process's namespace (the core); 64-octet IP packets from the C blaster
 * (bench/upf-plain.c, sendmmsg) for `seconds`, counted where they arrive (the receiving veth's
 * rx_packets), each way, over three paths between the same interfaces:
 *   - veth: the core's kernel routes them (no XDP);
 *   - plain XDP: bench/xdp-plain.bpf.c redirects every IPv4 packet to the other veth (no GTP-U, no
 *     lookup), in the same generic mode the UPF's program gets on veth;
 *   - UPF XDP: G-PDUs uplink, plain packets downlink, through the forwarder with `datapath: 'xdp'`.
 * Needs root, clang and a build with the XDP program; otherwise one line says why.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeUplinkGPdu } from '../src/network/upf/gtpu-codec.ts';
import { upfBpfObject, type UpfAddon } from '../src/network/upf/upf-addon.ts';
import { packageRoot } from '../src/package-root.ts';
import { udpPacket } from '../test/network/upf/ip-packets.ts';
import { startHelper } from './upf-plain.ts';

const ip = (...a: string[]) => execFileSync('ip', a, { encoding: 'utf8' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const number = (n: number) => Math.round(n).toLocaleString('en-US');

/** Why the XDP part cannot run here, or undefined. */
function unavailable(): string | undefined {
  if (!existsSync(upfBpfObject())) return 'built without the XDP program (clang or libbpf-dev missing)';
  try {
    execFileSync('clang', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'needs clang for the plain XDP forwarder';
  }
  return undefined;
}

interface Side {
  namespace: string;
  core: string;
  coreAddress: string;
  peerAddress: string;
}

function pair(namespace: string, core: string, subnet: string): Side {
  ip('netns', 'add', namespace);
  ip('link', 'add', core, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', namespace);
  ip('addr', 'add', `${subnet}.1/24`, 'dev', core);
  ip('link', 'set', core, 'up');
  ip('-n', namespace, 'addr', 'add', `${subnet}.2/24`, 'dev', 'eth0');
  ip('-n', namespace, 'link', 'set', 'eth0', 'up');
  ip('-n', namespace, 'link', 'set', 'lo', 'up');
  execFileSync('sysctl', ['-qw', `net.ipv4.conf.${core}.forwarding=1`]);
  return { namespace, core, coreAddress: `${subnet}.1`, peerAddress: `${subnet}.2` };
}

/** An interface's MAC address, in a namespace or here. */
const mac = (dev: string, namespace?: string): string =>
  (
    JSON.parse(
      ip(...(namespace === undefined ? [] : ['-n', namespace]), '-j', 'link', 'show', 'dev', dev),
    ) as { address: string }[]
  )[0]?.address ?? '';
const rxPackets = (side: Side): number =>
  (
    JSON.parse(ip('-n', side.namespace, '-s', '-j', 'link', 'show', 'eth0')) as {
      stats64: { rx: { packets: number } };
    }[]
  )[0]?.stats64.rx.packets ?? 0;
const octets = (address: string) =>
  address
    .split(':')
    .map((o) => `0x${o}`)
    .join(',');

/** Compiles the plain forwarder towards `to` (its veth's MAC as source, the peer's as destination). */
function plainProgram(to: Side): string {
  const object = join(packageRoot(), '.bench', `xdp-plain-${to.core}.o`);
  execFileSync('clang', [
    '-O2',
    '-target',
    'bpf',
    `-I/usr/include/${execFileSync('cc', ['-print-multiarch'], { encoding: 'utf8' }).trim()}`,
    `-DOUT_IFINDEX=${readFileSync(`/sys/class/net/${to.core}/ifindex`, 'utf8').trim()}`,
    `-DSOURCE_MAC=${octets(mac(to.core))}`,
    `-DDESTINATION_MAC=${octets(mac('eth0', to.namespace))}`,
    '-c',
    join(packageRoot(), 'bench', 'xdp-plain.bpf.c'),
    '-o',
    object,
  ]);
  return object;
}

/**
 * Packets per second arriving at `at` while the blaster runs in `from` for `seconds`, and how many per
 * second the blaster sent over its whole run (when the two are close, the generator is the limit).
 */
async function rate(
  helper: string,
  seconds: number,
  from: Side,
  at: Side,
  to: string,
  port: number,
  payload: Uint8Array,
): Promise<[number, number]> {
  const sink = startHelper(helper, ['sink', at.peerAddress, String(port)], at.namespace);
  await sleep(200);
  const blaster = startHelper(
    helper,
    ['blast', to, String(port), Buffer.from(payload).toString('hex')],
    from.namespace,
  );
  await sleep(300);
  const before = rxPackets(at);
  const started = performance.now();
  await sleep(seconds * 1000);
  const packets = rxPackets(at) - before;
  const elapsed = (performance.now() - started) / 1000;
  const sent = await blaster.stop();
  const total = (performance.now() - started) / 1000 + 0.3;
  await sink.stop();
  return [packets / elapsed, sent.packets / total];
}

export async function xdpThroughput(
  addon: UpfAddon,
  helper: string,
  seconds: number,
  print: (line: string) => void,
): Promise<void> {
  const why = unavailable();
  if (why !== undefined) {
    print(`XDP datapath: skipped (${why})`);
    return;
  }
  const tag = process.pid % 100000;
  const n = process.pid % 250;
  const gnb = pair(`pmnbg${tag}`, `bg${tag}`, `10.234.${n}`);
  const dn = pair(`pmnbd${tag}`, `bd${tag}`, `10.235.${n}`);
  const UE = '10.45.0.2';
  const tun = `bx${tag}`;
  try {
    ip('-n', gnb.namespace, 'route', 'add', `10.235.${n}.0/24`, 'via', gnb.coreAddress);
    ip('-n', dn.namespace, 'route', 'add', `10.234.${n}.0/24`, 'via', dn.coreAddress);
    ip('-n', dn.namespace, 'route', 'add', '10.45.0.0/16', 'via', dn.coreAddress);
    for (const side of [gnb, dn])
      ip('neigh', 'replace', side.peerAddress, 'lladdr', mac('eth0', side.namespace), 'dev', side.core);
    // 64-octet IP packets: 36 octets of UDP payload.
    const data = Buffer.alloc(36);
    const results: Record<string, [number, number][]> = {};

    results.veth = [
      await rate(helper, seconds, gnb, dn, dn.peerAddress, 9, data),
      await rate(helper, seconds, dn, gnb, gnb.peerAddress, 9, data),
    ];

    const plainUp = plainProgram(dn);
    const plainDown = plainProgram(gnb);
    ip('link', 'set', 'dev', gnb.core, 'xdpgeneric', 'obj', plainUp, 'sec', 'xdp');
    ip('link', 'set', 'dev', dn.core, 'xdpgeneric', 'obj', plainDown, 'sec', 'xdp');
    try {
      results.plain = [
        await rate(helper, seconds, gnb, dn, dn.peerAddress, 9, data),
        await rate(helper, seconds, dn, gnb, gnb.peerAddress, 9, data),
      ];
    } finally {
      ip('link', 'set', 'dev', gnb.core, 'xdpgeneric', 'off');
      ip('link', 'set', 'dev', dn.core, 'xdpgeneric', 'off');
    }

    const forwarder = new addon.Forwarder({
      n3Address: gnb.coreAddress,
      tunName: tun,
      maxSessions: 16,
      maxFlows: 131_072,
      datapath: 'xdp',
      bpfObject: upfBpfObject(),
      n6Interface: dn.core,
    });
    try {
      forwarder.addSession(1, 0x1234, UE, null, 0, 0);
      forwarder.setDownlink(1, gnb.peerAddress, 2152, 0x9999, 1);
      const inner = udpPacket(UE, dn.peerAddress, 40000, 9, data);
      results.upf = [
        await rate(helper, seconds, gnb, dn, gnb.coreAddress, 2152, encodeUplinkGPdu(0x1234, inner)),
        await rate(helper, seconds, dn, gnb, UE, 2152, data),
      ];
      const c = forwarder.counters();
      print(
        `UPF XDP counters: uplink ${number(c.uplinkPackets)}, downlink ${number(c.downlinkPackets)}, to the stack ${number(c.xdpToStack)} (${number(c.xdpToStackLimited)} over the budget)`,
      );
    } finally {
      forwarder.close();
    }
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    print('');
    print(`XDP datapath, 64-octet IP packets per second arriving (${seconds} s each; load average ${load}):`);
    print('');
    print(
      '| direction | veth (kernel routing) | plain XDP forwarder | UPF XDP | UPF / plain XDP | UPF / veth |',
    );
    print('| --- | ---: | ---: | ---: | ---: | ---: |');
    for (const [i, direction] of ['uplink', 'downlink'].entries()) {
      const pick = (path: string): [number, number] => results[path]?.[i] ?? [0, 0];
      const [veth, plain, upf] = [pick('veth'), pick('plain'), pick('upf')];
      const cell = ([arrived, sent]: [number, number]) => `${number(arrived)} (${number(sent)} sent)`;
      print(
        `| ${direction} | ${cell(veth)} | ${cell(plain)} | ${cell(upf)} | ${number((100 * upf[0]) / plain[0])}% | ${number((100 * upf[0]) / veth[0])}% |`,
      );
    }
  } finally {
    ip('link', 'del', gnb.core);
    ip('link', 'del', dn.core);
    ip('netns', 'del', gnb.namespace);
    ip('netns', 'del', dn.namespace);
  }
}
