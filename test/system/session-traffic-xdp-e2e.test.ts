/**
 * The whole chain on the UPF's XDP datapath (issue 31 item 4; docs/upf.md "The XDP datapath"): PMN Core
 * with N2 (AMF, SMF and a UPF with `upf_datapath` xdp), a simulated gNB whose user plane sits in a gNB
 * namespace on a veth link to the core (its N3 socket opened there), a UE namespace with the TUN the gNB
 * brings up, and a data network namespace on a second veth link (the UPF's N6 interface). The UE
 * registers and establishes a PDU session over NAS/NGAP; busybox ping and 2 MiB each way over TCP cross
 * the core in the kernel (the N6 TUN carries nothing); an idle UE's downlink is handed to userspace,
 * buffered, pages the device and is answered after its Service Request; at release the flow reports and
 * the usage equal, to the octet, what the gNB carried each way. Root and a build with the XDP program.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { createN2, DEFAULT_N2_SETTINGS } from '../../src/core/n2.wiring.ts';
import { upfBpfObject } from '../../src/network/upf/upf-addon.ts';
import { createUdpTransport } from '../../src/network/transport/udp/udp-transport.ts';
import { SimulatedGnb } from '../../src/simulator/gnb.ts';
import { GnbUes } from '../../src/simulator/ue/gnb-ues.ts';
import { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import { UeSessions } from '../../src/simulator/ue/ue-sessions.ts';
import { createGnbUserPlane, type GnbUserPlane } from '../../src/simulator/user-plane/gnb-user-plane.ts';
import { carrySessions, type SessionTunnels } from '../../src/simulator/user-plane/session-tunnels.ts';
import { gnbConfig, OPERATOR_PLMN } from '../e2e/n2-service.ts';
import { K, OPC, testUeConfig } from '../e2e/registration-service.ts';
import { createVethNamespace, type VethNamespace } from '../helpers/netns.ts';
import { createTestApp, initialize, manualClock, type TestApp } from '../helpers/test-app.ts';
import { until } from '../helpers/until.ts';
import { setNetFeatures } from '../helpers/net-features.ts';
import { txChecksumOff } from '../helpers/tx-checksum.ts';
import {
  flowReports,
  inNamespace,
  nodeIn,
  run,
  serveIn,
  sessionTrafficUnavailable,
  settle,
  usage,
  type Core,
} from './session-traffic-harness.ts';

const skip =
  sessionTrafficUnavailable() ??
  (existsSync(upfBpfObject()) ? undefined : 'built without the XDP program (clang or libbpf-dev missing)');
const id = process.pid % 100000;
const n = process.pid % 250;
const IMSI = '001010000009031';
const MIB = 1 << 20;
/** The profile's pool for this test: routed to the core in the data network, to the TUN in the core. */
const POOL = `10.246.${n}.0/24`;

describe('a simulated UE registers and carries traffic through the UPF\u2019s XDP datapath', { skip }, () => {
  const clock = manualClock(Date.now());
  let t: TestApp;
  let token: string;
  let n2: ReturnType<typeof createN2>;
  let ranClose: () => Promise<void>;
  let gnbNs: VethNamespace;
  let dnNs: VethNamespace;
  let gnbUp: GnbUserPlane;
  let tunnels: SessionTunnels;
  let ue: SimulatedUe;
  let ues: GnbUes;
  let sessions: UeSessions;
  const ueNamespace = `pmnxeu${id}`;
  const n6Tun = `pmnxen${id}`;

  const core = () => ({ t, token, clock }) as unknown as Core;
  const upf = () => {
    const u = n2.upf();
    assert.ok(u !== undefined);
    return u;
  };
  /** Packets the N6 TUN carried: the userspace forwarder's path. */
  const tunPackets = () =>
    ['rx', 'tx'].map((d) => Number(readFileSync(`/sys/class/net/${n6Tun}/statistics/${d}_packets`, 'utf8')));

  before(async () => {
    gnbNs = await createVethNamespace('q', 244);
    dnNs = await createVethNamespace('r', 245);
    await run('ip', ['netns', 'add', ueNamespace]);
    await run('ip', ['-n', ueNamespace, 'link', 'set', 'lo', 'up']);
    // N3 carries the UE's 1,500-octet packets with 44 octets of outer headers.
    await run('ip', ['link', 'set', gnbNs.hostInterface, 'mtu', '1600']);
    await run('ip', ['-n', gnbNs.name, 'link', 'set', gnbNs.peerInterface, 'mtu', '1600']);
    for (const ns of [gnbNs, dnNs]) {
      await run('sysctl', ['-qw', `net.ipv4.conf.${ns.hostInterface}.forwarding=1`]);
      const { stdout } = await run('ip', ['-n', ns.name, '-j', 'link', 'show', ns.peerInterface]);
      const mac = (JSON.parse(stdout) as { address: string }[])[0]?.address ?? '';
      await run('ip', ['neigh', 'replace', ns.peerAddress, 'lladdr', mac, 'dev', ns.hostInterface]);
    }
    await run('ip', ['-n', dnNs.name, 'route', 'add', POOL, 'via', dnNs.hostAddress]);
    await txChecksumOff(dnNs.name, dnNs.peerInterface);
    // The gNB's user plane sends a TCP segment's pieces with UDP GSO; a veth passes such a datagram
    // unsegmented, which the program hands to the stack: segmented before the link, as a wire carries them.
    await setNetFeatures(gnbNs.name, gnbNs.peerInterface, { 'tx-udp-segmentation': false });

    t = await createTestApp({ clock, timers: clock });
    token = await initialize(t);
    const profile = await t.request({ method: 'GET', url: '/api/v1/profiles/default', token });
    const body = profile.json<{ result: Record<string, unknown> }>().result;
    delete body.name;
    const changed = await t.request({
      method: 'PUT',
      url: '/api/v1/profiles/default',
      token,
      payload: { ...body, 'ue-ip-pool': POOL },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    n2 = createN2(
      t.core,
      { ...DEFAULT_N2_SETTINGS, transport: 'udp', addresses: ['127.0.0.1'], port: 0, udpPort: 0 },
      {
        upf: {
          settings: {
            n3Address: gnbNs.hostAddress,
            n3Port: 2152,
            tunName: n6Tun,
            maxSessions: 16,
            maxFlows: 4096,
            errorIndicationsPerSecond: 20,
            datapath: 'xdp',
            n6Interface: dnNs.hostInterface,
          },
        },
        clock,
      },
    );
    await n2.start();
    // What the program hands to the stack (an idle UE's downlink) reaches the forwarder by the TUN.
    // IPv4 only: no link-local address, so the kernel sends none of IPv6's own chatter (router
    // solicitations, MLD reports) into the TUN while the test counts what it carries.
    await run('sysctl', ['-qw', `net.ipv6.conf.${n6Tun}.addr_gen_mode=1`]);
    await run('sysctl', ['-qw', `net.ipv6.conf.${n6Tun}.router_solicitations=0`]);
    await run('ip', ['link', 'set', n6Tun, 'up']);
    await run('ip', ['route', 'add', POOL, 'dev', n6Tun]);
    await run('sysctl', ['-qw', `net.ipv4.conf.${n6Tun}.forwarding=1`]);

    const endpoint = n2.endpoint();
    assert.ok(endpoint?.local[0]);
    const ran = await createUdpTransport({
      addresses: ['127.0.0.1'],
      udpPort: 0,
      peerUdpPort: endpoint.udpPort ?? 0,
    });
    ranClose = () => ran.transport.close();
    const gnb = new SimulatedGnb({
      config: gnbConfig(1, { name: 'gnb-x' }),
      transport: ran.transport,
      amf: [endpoint.local[0]],
    });
    ues = new GnbUes(
      gnb,
      { plmn: OPERATOR_PLMN, nrCellIdentity: 0x4002, tac: 1 },
      { n3Address: gnbNs.peerAddress },
    );
    await gnb.connect();
    assert.equal((await gnb.ngSetup()).outcome, 'accepted');
    gnbUp = createGnbUserPlane({ n3Address: gnbNs.peerAddress, n3Namespace: gnbNs.name });
    const response = await t.request({
      method: 'POST',
      url: '/api/v1/subscribers',
      token,
      payload: { imsi: IMSI, key: K, opc: OPC, sequenceNumber: '000000000000', profile_name: 'default' },
    });
    assert.equal(response.statusCode, 201, response.body);
    ue = new SimulatedUe({
      config: testUeConfig(IMSI),
      radio: ues,
    });
    sessions = new UeSessions(ue);
    tunnels = carrySessions({
      events: ues.sessions,
      userPlane: gnbUp,
      ueOf: (s) => s.ue,
      addresses: (s) => {
        const ipv4 = s.ue === ue ? sessions.get(s.pduSessionId)?.ipv4 : undefined;
        return ipv4 === undefined ? undefined : { ueIpv4: ipv4 };
      },
      tun: (s) => ({
        namespace: ueNamespace,
        mtu: (s.ue === ue ? sessions.get(s.pduSessionId)?.mtu : undefined) ?? 1500,
      }),
    });
  });

  after(async () => {
    tunnels?.stop();
    gnbUp?.close();
    await n2?.stop();
    await ranClose?.();
    await t?.close();
    await run('ip', ['netns', 'del', ueNamespace]).catch(() => undefined);
    await gnbNs?.remove();
    await dnNs?.remove();
  });

  it('runs the XDP datapath on the gNB link and the data network link', () => {
    assert.equal(upf().datapath.kind, 'xdp', upf().datapath.reason);
    assert.match(upf().datapath.reason, new RegExp(`N3 ${gnbNs.hostInterface} .*N6 ${dnNs.hostInterface}`));
  });

  it('registers, establishes a session, pings and moves 2 MiB each way over TCP in the kernel', async () => {
    assert.equal((await ue.register('suci')).outcome, 'accepted');
    const established = await sessions.establish({ type: 'IPv4', dnn: 'internet' });
    assert.equal(established.outcome, 'accepted', JSON.stringify(established));
    await tunnels.settled();
    assert.ok(tunnels.tunnel(ue, 1) !== undefined);
    const tunBefore = tunPackets();
    const before = upf().counters();
    const out = await inNamespace(
      ueNamespace,
      'busybox',
      'ping',
      '-A',
      '-c',
      '3',
      '-W',
      '2',
      dnNs.peerAddress,
    );
    assert.match(out, /3 packets transmitted, 3 packets received/);
    const server = await serveIn(
      dnNs.name,
      `const s = require('net').createServer((c) => { let n = 0; c.on('data', (d) => { n += d.length;
         if (n >= ${2 * MIB}) c.end(Buffer.alloc(${2 * MIB}, 7)); }); });
       s.listen(5001, '${dnNs.peerAddress}', () => console.log('listening'));`,
    );
    try {
      const client = await nodeIn<{ received: number }>(
        ueNamespace,
        `const c = require('net').connect(5001, '${dnNs.peerAddress}', () => c.write(Buffer.alloc(${2 * MIB}, 3)));
         let n = 0; c.on('data', (d) => { n += d.length; });
         c.on('end', () => { console.log(JSON.stringify({ received: n })); c.end(); });`,
      );
      assert.equal(client.received, 2 * MIB);
    } finally {
      server.stop();
    }
    const c = upf().counters();
    assert.ok(c.uplinkBytes - before.uplinkBytes > 2 * MIB, JSON.stringify(c));
    assert.ok(c.downlinkBytes - before.downlinkBytes > 2 * MIB, JSON.stringify(c));
    assert.equal(c.xdpToStack, before.xdpToStack, 'nothing handed to userspace');
    assert.deepEqual(tunPackets(), tunBefore, 'the N6 TUN carried nothing');
  });

  it('an idle UE: a ping from the data network is buffered by userspace, pages, and is answered', async () => {
    const ueIp = tunnels.tunnel(ue, 1)?.session.ueIpv4;
    assert.ok(ueIp !== undefined);
    const released = ue.next((e) => (e.type === 'released' ? true : undefined));
    assert.ok(ues.requestRelease(ue));
    await released;
    await settle(
      () => tunnels.tunnel(ue, 1),
      (tunnel) => tunnel === undefined,
      'TUN gone',
    );
    // The SMF has made the UPF's session inactive (downlink to userspace) once the API says so.
    const status = async () => {
      const response = await t.request({ method: 'GET', url: `/api/v1/subscribers/${IMSI}`, token });
      return response.json<{ result: { sessions: { status: string }[] } }>().result.sessions[0]?.status;
    };
    await until('the session inactive', async () => (await status()) === 'inactive');
    const before = upf().counters();
    const paged = ue.next((e) => (e.type === 'paged' ? e.outcome : undefined));
    const ping = inNamespace(dnNs.name, 'busybox', 'ping', '-c', '1', '-W', '8', ueIp);
    await settle(
      () => upf().counters().downlinkBuffered,
      (b) => b === before.downlinkBuffered + 1,
      'echo request buffered',
    );
    clock.advance(100); // the downlink data notice is polled on the core's clock
    assert.deepEqual(await paged, { outcome: 'accepted' });
    assert.match(await ping, /1 packets transmitted, 1 packets received/);
    assert.equal(upf().counters().downlinkBufferFlushed, before.downlinkBufferFlushed + 1);
    await tunnels.settled();
  });

  it('at release, the flow reports and the usage equal what the gNB carried, to the octet', async () => {
    const tunnel = tunnels.tunnel(ue, 1);
    assert.ok(tunnel !== undefined);
    const carried = gnbUp.counters();
    const releasedSession = sessions.next((e) => (e.type === 'released' ? e : undefined));
    const profile = await t.request({ method: 'GET', url: '/api/v1/profiles/default', token });
    const body = profile.json<{ result: Record<string, unknown> }>().result;
    delete body.name;
    const changed = await t.request({
      method: 'PUT',
      url: '/api/v1/profiles/default',
      token,
      payload: { ...body, 'ue-ip-pool': `10.247.${n}.0/24` },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.equal((await releasedSession).cause, 39);
    let flows = await flowReports(core(), IMSI);
    const sum = (direction: string) =>
      flows.filter((f) => f.direction === direction).reduce((total, f) => total + f.bytes, 0);
    // The records pipeline writes in batches: the reports are waited for until they count what was carried.
    await until(
      'flow reports counting what the gNB carried',
      async () => {
        flows = await flowReports(core(), IMSI);
        return sum('uplink') === carried.uplinkBytes && sum('downlink') === carried.downlinkBytes;
      },
      () => `carried ${JSON.stringify(carried)}, reported ${JSON.stringify(flows)}`,
      { everyMs: 20 },
    );
    assert.equal(sum('uplink'), carried.uplinkBytes);
    assert.equal(sum('downlink'), carried.downlinkBytes);
    assert.deepEqual(await usage(core(), IMSI), {
      uplink_bytes: carried.uplinkBytes,
      downlink_bytes: carried.downlinkBytes,
      total_bytes: carried.uplinkBytes + carried.downlinkBytes,
    });
    assert.deepEqual(
      flows
        .filter((f) => f.protocol === 1)
        .map((f) => [f.direction, f.action, f.packets])
        .sort(),
      [
        ['downlink', 'allow', 4],
        ['uplink', 'allow', 4],
      ],
    );
  });
});
