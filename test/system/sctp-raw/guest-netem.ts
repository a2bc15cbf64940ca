/**
 * Runs inside the qemu guest: tc netem on the guest's eth0 for the SCTP packets of one host port, in
 * both directions (egress through a prio band, ingress redirected through ifb0), so that one
 * association crosses a lossy, reordering link and the others do not. The host kernel has no
 * sch_netem; the guest's has (scripts/qemu-sctp/build-guest.sh loads it with ip and tc).
 */
import { execFileSync } from 'node:child_process';

const tc = (...args: string[]) => execFileSync('/usr/sbin/tc', args, { encoding: 'utf8' });
const SCTP = ['match', 'ip', 'protocol', '132', '0xff'];

/** Impairs SCTP packets to and from `hostPort` with `netem` (e.g. loss 5% reorder 25% delay 5ms). */
export function impairHostPort(hostPort: number, netem: readonly string[]): void {
  const port = String(hostPort);
  tc('qdisc', 'add', 'dev', 'eth0', 'root', 'handle', '1:', 'prio');
  tc('qdisc', 'add', 'dev', 'eth0', 'parent', '1:3', 'handle', '30:', 'netem', ...netem);
  tc(
    'filter',
    'add',
    'dev',
    'eth0',
    'parent',
    '1:',
    'protocol',
    'ip',
    'u32',
    ...SCTP,
    'match',
    'ip',
    'dport',
    port,
    '0xffff',
    'flowid',
    '1:3',
  );
  execFileSync('/usr/sbin/ip', ['link', 'set', 'ifb0', 'up']);
  tc('qdisc', 'add', 'dev', 'ifb0', 'root', 'netem', ...netem);
  tc('qdisc', 'add', 'dev', 'eth0', 'handle', 'ffff:', 'ingress');
  tc(
    'filter',
    'add',
    'dev',
    'eth0',
    'parent',
    'ffff:',
    'protocol',
    'ip',
    'u32',
    ...SCTP,
    'match',
    'ip',
    'sport',
    port,
    '0xffff',
    'action',
    'mirred',
    'egress',
    'redirect',
    'dev',
    'ifb0',
  );
}

export interface NetemCounters {
  /** The qdisc as tc shows it (its parameters). */
  qdisc: string;
  packets: number;
  dropped: number;
}

/** What the netem qdiscs let through and dropped, towards the host (eth0) and from it (ifb0). */
export function netemCounters(): { towardsHost: NetemCounters; fromHost: NetemCounters } {
  return { towardsHost: counters('eth0'), fromHost: counters('ifb0') };
}

function counters(dev: string): NetemCounters {
  const lines = tc('-s', 'qdisc', 'show', 'dev', dev).split('\n');
  const at = lines.findIndex((l) => l.startsWith('qdisc netem'));
  const stats = /Sent \d+ bytes (\d+) pkt \(dropped (\d+)/.exec(lines[at + 1] ?? '');
  if (at < 0 || stats === null) throw new Error(`no netem statistics on ${dev}: ${lines.join(' | ')}`);
  return { qdisc: (lines[at] ?? '').trim(), packets: Number(stats[1]), dropped: Number(stats[2]) };
}
