/**
 * The cost of the UPF's host routes (docs/upf.md "Routes to the devices"; docs/performance.md "User
 * plane"): 10,000 sessions established (rules and downlink tunnel) and released through createUpf on
 * the TUN datapath, with host routes off and on, taking turns over the rounds; CPU of this process per
 * session (the route is one rtnetlink request and its acknowledgement, in this thread). The routes go
 * to a table of their own (4242), which no lookup uses, on a TUN of this process's namespace. Needs root
 * (or CAP_NET_ADMIN); one line and no figures without.
 *
 *   npx tsx bench/upf-host-routes.ts [--sessions N] [--rounds N]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { systemClock, systemTimers } from '../src/clock.ts';
import { loadUpfAddon } from '../src/network/upf/upf-addon.ts';
import { DEFAULT_UPF_SETTINGS } from '../src/network/upf/upf-settings.ts';
import { createUpf } from '../src/network/upf/upf.ts';

const print = (line: string): void => void process.stdout.write(`${line}\n`);
const { values: args } = parseArgs({
  options: { sessions: { type: 'string', default: '10000' }, rounds: { type: 'string', default: '3' } },
});
const count = Number(args.sessions);
const rounds = Number(args.rounds);

const capabilities = /CapEff:\s*([0-9a-f]+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
const load = loadUpfAddon();
if ((BigInt(`0x${capabilities ?? '0'}`) & (1n << 12n)) === 0n) {
  print('upf-host-routes: skipped: needs root or CAP_NET_ADMIN (a TUN device, routes)');
} else if (!load.ok) {
  print(`upf-host-routes: skipped: ${load.error.message}`);
} else {
  const us = (usage: NodeJS.CpuUsage): number => usage.user + usage.system;
  /** Establishes and releases `count` sessions; CPU per session of each, in µs. */
  const measure = (hostRoutes: 'on' | 'off'): { establish: number; release: number; failures: number } => {
    const upf = createUpf({
      settings: {
        ...DEFAULT_UPF_SETTINGS,
        n3Address: '127.0.0.1',
        n3Port: 0,
        tunName: `pmnhr${process.pid % 100000}`,
        datapath: 'tun',
        maxSessions: count * 2,
        maxFlows: 1024,
        hostRoutes,
        routeTable: 4242,
      },
      records: {
        recordFlowReports: () => true,
        recordUsage: () => true,
        whenWritable: () => Promise.resolve(),
      },
      clock: systemClock,
      timers: systemTimers,
    });
    upf.start();
    const ambr = { uplinkBps: 100e6, downlinkBps: 200e6 };
    const ids: number[] = [];
    let cpu = process.cpuUsage();
    for (let i = 0; i < count; i++) {
      const s = upf.establishSession({
        imsi: `00101${String(i).padStart(10, '0')}`,
        ueIpv4: `10.45.${i >> 8}.${i & 0xff}`,
        uplinkTeid: i + 1,
        ambr,
      });
      if (!s.ok) throw new Error(`session ${i}: ${s.error}`);
      upf.updateDownlink(s.value.id, { gnbAddress: '127.0.0.2', remoteTeid: i + 1 });
      ids.push(s.value.id);
    }
    const establish = us(process.cpuUsage(cpu)) / count;
    cpu = process.cpuUsage();
    for (const id of ids) upf.release(id);
    const release = us(process.cpuUsage(cpu)) / count;
    const failures = upf.counters().hostRouteFailures;
    void upf.stop();
    return { establish, release, failures };
  };
  print(`| round | host routes | establish CPU per session | release CPU per session | route failures |`);
  print('| ---: | --- | ---: | ---: | ---: |');
  for (let round = 1; round <= rounds; round++)
    for (const choice of round % 2 === 1 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      const m = measure(choice);
      print(
        `| ${round} | ${choice} | ${m.establish.toFixed(1)} µs | ${m.release.toFixed(1)} µs | ${m.failures} |`,
      );
    }
}
