/**
 * Downlink follows the device (issue 33 item 5; docs/upf.md "Routes to the devices"): two member-like
 * UPF hosts A and B, each in a namespace with PMN Core's UPF (test/system/n6-member.ts) and bird2, and a
 * router namespace R whose bird2 learns the members' host routes over eBGP. A session installed on A
 * makes R route the UE's address to A; the session taken over by B (B installs, A releases) makes R
 * route it to B; UDP from R reaches the UE's gNB tunnel on the member that serves it. B killed (-9):
 * its TUN goes with the process and the routes with it, and R forgets the address. Root and bird2
 * (`.ci/run` installs Debian's bird2); skipped with the reason otherwise.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { loadUpfAddon } from '../../src/network/upf/upf-addon.ts';
import { namespacesUnavailable } from '../helpers/netns.ts';

const run = promisify(execFile);

function birdUnavailable(): string | undefined {
  try {
    execFileSync('bird', ['--version'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'bird2 is not installed (apt-get install bird2; .ci/run installs it)';
  }
}

const upfAddon = loadUpfAddon();
const skip =
  namespacesUnavailable() ??
  (!upfAddon.ok
    ? upfAddon.error.message
    : upfAddon.addon.HostRoutes === undefined
      ? 'no HostRoutes in the addon'
      : undefined) ??
  birdUnavailable();

const id = process.pid % 100000;
const ns = { r: `pmnrtr${id}`, a: `pmnmba${id}`, b: `pmnmbb${id}` };
// The two links R-A and R-B: 10.<octet>.<n>.0/30 with R at .1 and the member at .2.
const n = process.pid % 250;
const link = { a: { r: `10.77.${n}.1`, m: `10.77.${n}.2` }, b: { r: `10.78.${n}.1`, m: `10.78.${n}.2` } };
const UE = `10.45.${n}.2`;
const UE_V6 = `fd45:0:${n.toString(16)}::`;
const PROTOCOL = 200;

const sh = (namespace: string, ...command: string[]) => run('ip', ['netns', 'exec', namespace, ...command]);

/** bird2 configurations: each member learns its UPF's routes (protocol 200) and exports them by eBGP. */
const memberBird = (self: string, peer: string, as: number) => `
router id ${self};
protocol device { scan time 1; }
protocol kernel {
  ipv4 { import where krt_source = ${PROTOCOL}; export none; };
  learn;
  scan time 1;
}
protocol bgp uplink {
  local ${self} as ${as};
  neighbor ${peer} as 65000;
  connect retry time 1;
  hold time 3;
  ipv4 { import none; export all; };
}
`;
const routerBird = `
router id ${link.a.r};
protocol device { scan time 1; }
protocol kernel { ipv4 { import none; export all; }; }
protocol bgp a { local ${link.a.r} as 65000; neighbor ${link.a.m} as 65001; connect retry time 1; hold time 3; ipv4 { import all; export none; }; }
protocol bgp b { local ${link.b.r} as 65000; neighbor ${link.b.m} as 65002; connect retry time 1; hold time 3; ipv4 { import all; export none; }; }
`;

interface Member {
  process: ChildProcess;
  /** Every JSON line the member printed. */
  lines: { op: string; [key: string]: unknown }[];
  send(command: object): Promise<{ op: string; [key: string]: unknown }>;
}

function startMember(namespace: string): Promise<Member> {
  const child = spawn(
    'ip',
    ['netns', 'exec', namespace, process.execPath, '--import', 'tsx', 'test/system/n6-member.ts'],
    { stdio: ['pipe', 'pipe', 'inherit'], cwd: process.cwd() },
  );
  const lines: Member['lines'] = [];
  const waiting: ((line: Member['lines'][number]) => void)[] = [];
  let partial = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    partial += chunk;
    for (let end = partial.indexOf('\n'); end >= 0; end = partial.indexOf('\n')) {
      const line = JSON.parse(partial.slice(0, end)) as Member['lines'][number];
      partial = partial.slice(end + 1);
      lines.push(line);
      if (line.op !== 'downlink') waiting.shift()?.(line);
    }
  });
  const next = () => new Promise<Member['lines'][number]>((resolve) => waiting.push(resolve));
  const member: Member = {
    process: child,
    lines,
    send(command) {
      const answer = next();
      child.stdin.write(`${JSON.stringify(command)}\n`);
      return answer;
    },
  };
  return next().then((ready) => {
    assert.deepEqual(ready, { op: 'ready', failures: 0 });
    return member;
  });
}

/** Waits (polling, no time asserted) until `check` holds; the deadline only ends a test that hangs. */
async function until(what: string, check: () => Promise<boolean>, deadlineMs = 60_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > end) assert.fail(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** R's route to the UE's address: the next hop, or undefined when it has none. */
async function routerNextHop(): Promise<string | undefined> {
  const { stdout } = await run('ip', ['-n', ns.r, '-j', 'route', 'show', `${UE}/32`]);
  const routes = JSON.parse(stdout || '[]') as { gateway?: string }[];
  return routes[0]?.gateway;
}

/** Sends UDP datagrams from R to the UE's address until `member` reports one with `text` at its gNB. */
async function reachesFromRouter(member: Member, text: string): Promise<void> {
  await until(`"${text}" from R reaches the gNB behind the member`, async () => {
    await sh(ns.r, 'bash', '-c', `echo -n ${text} > /dev/udp/${UE}/9999`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    return member.lines.some((line) => line.op === 'downlink' && line.payload === text);
  });
}

const memberRoutes = async (namespace: string, family: '-4' | '-6'): Promise<string> =>
  (await run('ip', ['-n', namespace, family, 'route', 'show', 'proto', String(PROTOCOL)])).stdout.trim();

describe('N6 host routes learned by bird2 between namespaces', { skip }, () => {
  const dir = skip === undefined ? mkdtempSync(join(tmpdir(), 'pmn-bird-')) : '';
  const birds: ChildProcess[] = [];
  const members: Member[] = [];

  const startBird = (namespace: string, name: string, config: string): void => {
    const file = join(dir, `${name}.conf`);
    writeFileSync(file, config);
    execFileSync('bird', ['-p', '-c', file]); // a configuration bird2 refuses fails here, not by a timeout
    birds.push(
      spawn('ip', ['netns', 'exec', namespace, 'bird', '-f', '-c', file, '-s', join(dir, `${name}.ctl`)], {
        stdio: 'ignore',
      }),
    );
  };

  before(async () => {
    for (const name of Object.values(ns)) await run('ip', ['netns', 'add', name]);
    for (const [member, addresses] of [
      ['a', link.a],
      ['b', link.b],
    ] as const) {
      const here = `pmnv${member}r${id}`;
      await run('ip', [
        'link',
        'add',
        here,
        'netns',
        ns.r,
        'type',
        'veth',
        'peer',
        'name',
        'eth0',
        'netns',
        ns[member],
      ]);
      await run('ip', ['-n', ns.r, 'addr', 'add', `${addresses.r}/30`, 'dev', here]);
      await run('ip', ['-n', ns.r, 'link', 'set', here, 'up']);
      await run('ip', ['-n', ns[member], 'addr', 'add', `${addresses.m}/30`, 'dev', 'eth0']);
      await run('ip', ['-n', ns[member], 'link', 'set', 'eth0', 'up']);
      await run('ip', ['-n', ns[member], 'link', 'set', 'lo', 'up']);
      // The member routes between its link and the TUN, as a UPF host does (docs/upf.md "Operator setup").
      await sh(ns[member], 'sysctl', '-q', '-w', 'net.ipv4.ip_forward=1');
    }
    // A: a persistent TUN left by an earlier run with one of its routes on it; B: none (the UPF creates
    // its TUN, which goes with the process).
    await run('ip', ['-n', ns.a, 'tuntap', 'add', 'dev', 'pmn-n6', 'mode', 'tun']);
    await run('ip', ['-n', ns.a, 'link', 'set', 'pmn-n6', 'up']);
    await run('ip', [
      '-n',
      ns.a,
      'route',
      'add',
      '10.45.250.9/32',
      'dev',
      'pmn-n6',
      'proto',
      String(PROTOCOL),
    ]);
    await run('ip', ['-n', ns.a, 'route', 'add', '10.45.250.10/32', 'dev', 'pmn-n6', 'proto', 'static']);
    startBird(ns.r, 'router', routerBird);
    startBird(ns.a, 'a', memberBird(link.a.m, link.a.r, 65001));
    startBird(ns.b, 'b', memberBird(link.b.m, link.b.r, 65002));
    members.push(await startMember(ns.a), await startMember(ns.b));
  });

  after(async () => {
    for (const member of members) member.process.kill('SIGKILL');
    for (const bird of birds) bird.kill('SIGTERM');
    await Promise.all(
      [...members.map((m) => m.process), ...birds].map((p) =>
        p.exitCode !== null || p.signalCode !== null
          ? Promise.resolve()
          : new Promise((resolve) => p.once('exit', resolve)),
      ),
    );
    for (const name of Object.values(ns)) await run('ip', ['netns', 'del', name]).catch(() => undefined);
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('removes at start the routes of its protocol a previous run left on its TUN, and no other', async () => {
    assert.equal(await memberRoutes(ns.a, '-4'), '');
    assert.match(
      (await run('ip', ['-n', ns.a, 'route', 'show', 'proto', 'static'])).stdout,
      /10\.45\.250\.10 dev pmn-n6/,
    );
  });

  it('routes the address to the member serving the session, and to the next one when it is taken over', async () => {
    const [a, b] = members as [Member, Member];
    const onA = await a.send({ op: 'establish', ueIpv4: UE, ueIpv6Prefix: UE_V6, teid: 0x100 });
    assert.equal(onA.op, 'established');
    // On A's N6 side: the /32 and the /64, on the TUN, with the protocol bird2 learns.
    assert.equal(await memberRoutes(ns.a, '-4'), `${UE} dev pmn-n6 scope link`);
    assert.match(await memberRoutes(ns.a, '-6'), new RegExp(`^${UE_V6}/64 dev pmn-n6 `));
    await until('R routes the address to A', async () => (await routerNextHop()) === link.a.m);
    await reachesFromRouter(a, 'to-A');

    // The takeover: B installs the session (its own TEID), then A releases its copy.
    const onB = await b.send({ op: 'establish', ueIpv4: UE, teid: 0x200 });
    assert.equal(onB.op, 'established');
    assert.deepEqual(await a.send({ op: 'release', id: onA.id }), { op: 'released' });
    assert.equal(await memberRoutes(ns.a, '-4'), '');
    assert.equal(await memberRoutes(ns.a, '-6'), '');
    await until('R routes the address to B', async () => (await routerNextHop()) === link.b.m);
    await reachesFromRouter(b, 'to-B');
    assert.ok(b.lines.every((line) => line.op !== 'downlink' || line.teid === 0x200));
    assert.ok(a.lines.every((line) => line.payload !== 'to-B'));
  });

  it('loses the routes with the process: B killed, its TUN and routes are gone and R forgets the address', async () => {
    const b = members[1] as Member;
    // Run alone, B serves no session yet: it takes one here.
    if ((await memberRoutes(ns.b, '-4')) === '')
      assert.equal((await b.send({ op: 'establish', ueIpv4: UE, teid: 0x200 })).op, 'established');
    assert.notEqual(await memberRoutes(ns.b, '-4'), '');
    await until('R routes the address to B', async () => (await routerNextHop()) === link.b.m);
    b.process.kill('SIGKILL');
    await new Promise((resolve) => b.process.once('exit', resolve));
    await until("B's TUN is gone", async () =>
      run('ip', ['-n', ns.b, 'link', 'show', 'pmn-n6']).then(
        () => false,
        () => true,
      ),
    );
    assert.equal(await memberRoutes(ns.b, '-4'), '');
    await until('R has no route to the address', async () => (await routerNextHop()) === undefined);
  });
});
