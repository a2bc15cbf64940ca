/**
 * The whole chain: PMN Core with N2 (AMF, SMF and UPF as main.ts wires them, udp transport) and a simulated
 * gNB and UE. The UE registers and establishes a PDU session over NAS/NGAP; the gNB's PDU session events
 * bring its TUN device up in the UE's namespace (carrySessions); busybox ping and a TCP transfer go UE ->
 * gNB -> GTP-U -> UPF -> N6 -> the data-network namespace and back; the API shows the session (address,
 * DNN, slice, AMBR). When the UE is idle, a ping from the data network is buffered by the UPF, pages the
 * device, and is answered after its Service Request brought the user plane back (TS 23.502 4.2.3.3,
 * TS 23.501 5.8.3.2). A change of the profile's address pool releases the session (network.md 6): traffic
 * stops, the TUN is gone, and the flow reports (direction, action, protocol, ports, bytes) and usage are
 * written at release and read through the API. Root.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { createN2 } from '../../src/core/n2.wiring.ts';
import { SimulatedGnb } from '../../src/simulator/gnb.ts';
import { GnbUes } from '../../src/simulator/ue/gnb-ues.ts';
import { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import { UeSessions } from '../../src/simulator/ue/ue-sessions.ts';
import { createGnbUserPlane, type GnbUserPlane } from '../../src/simulator/user-plane/gnb-user-plane.ts';
import { carrySessions, type SessionTunnels } from '../../src/simulator/user-plane/session-tunnels.ts';
import { tunExists } from '../helpers/netns.ts';
import { createUdpTransport } from '../../src/network/transport/udp/udp-transport.ts';
import { createTestApp, initialize, manualClock, type TestApp } from '../helpers/test-app.ts';
import { until } from '../helpers/until.ts';
import { gnbConfig, OPERATOR_PLMN } from '../e2e/n2-service.ts';
import { K, OPC, testUeConfig } from '../e2e/registration-service.ts';
import {
  DN,
  flowReports,
  GNB_N3,
  inNamespace,
  nodeIn,
  run,
  serveIn,
  sessionTrafficUnavailable,
  settle,
  startN2WithUpf,
  usage,
  type Core,
} from './session-traffic-harness.ts';

const skip = sessionTrafficUnavailable();
const id = process.pid % 100000;
const IMSI = '001010000009001';
const MIB = 1 << 20;

describe(
  'a simulated UE registers, establishes a session and carries traffic through PMN Core',
  { skip },
  () => {
    const clock = manualClock(Date.now());
    let t: TestApp;
    let token: string;
    let n2: ReturnType<typeof createN2>;
    let ranClose: () => Promise<void>;
    let gnbUp: GnbUserPlane;
    let tunnels: SessionTunnels;
    let ue: SimulatedUe;
    let ues: GnbUes;
    let sessions: UeSessions;
    const dnNamespace = `pmnedn${id}`;
    const ueNamespace = `pmneue${id}`;
    const n6 = `pmnen${id}`;

    /** What flowReports/usage need of the harness's Core. */
    const core = () => ({ t, token, clock }) as unknown as Core;

    before(async () => {
      for (const ns of [dnNamespace, ueNamespace]) await run('ip', ['netns', 'add', ns]);
      t = await createTestApp({ clock, timers: clock });
      token = await initialize(t);
      n2 = await startN2WithUpf(t, clock, n6, dnNamespace);
      await run('ip', ['-n', ueNamespace, 'link', 'set', 'lo', 'up']);
      const endpoint = n2.endpoint();
      assert.ok(endpoint?.local[0]);
      const ran = await createUdpTransport({
        addresses: ['127.0.0.1'],
        udpPort: 0,
        peerUdpPort: endpoint.udpPort ?? 0,
      });
      ranClose = () => ran.transport.close();
      const gnb = new SimulatedGnb({
        config: gnbConfig(1, { name: 'gnb-1' }),
        transport: ran.transport,
        amf: [endpoint.local[0]],
      });
      ues = new GnbUes(gnb, { plmn: OPERATOR_PLMN, nrCellIdentity: 0x4001, tac: 1 }, { n3Address: GNB_N3 });
      await gnb.connect();
      assert.equal((await gnb.ngSetup()).outcome, 'accepted');
      gnbUp = createGnbUserPlane({ n3Address: GNB_N3 });
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
      for (const ns of [dnNamespace, ueNamespace])
        await run('ip', ['netns', 'del', ns]).catch(() => undefined);
    });

    it('registers, establishes a session, and its TUN comes up with the session address', async () => {
      assert.equal((await ue.register('suci')).outcome, 'accepted');
      const established = await sessions.establish({ type: 'IPv4', dnn: 'internet' });
      assert.equal(established.outcome, 'accepted', JSON.stringify(established));
      await tunnels.settled();
      const tunnel = tunnels.tunnel(ue, 1);
      assert.ok(tunnel !== undefined);
      assert.equal(tunnel.session.ueIpv4, established.outcome === 'accepted' ? established.session.ipv4 : '');
      assert.match(
        await inNamespace(ueNamespace, 'ip', '-4', 'addr', 'show', 'dev', tunnel.tunName),
        /10\.45\.0\.\d+\/32/,
      );
    });

    it('pings the data network and transfers 2 MiB each way over TCP', async () => {
      const out = await inNamespace(ueNamespace, 'busybox', 'ping', '-A', '-c', '3', '-W', '2', DN);
      assert.match(out, /3 packets transmitted, 3 packets received/);
      const server = await serveIn(
        dnNamespace,
        `const s = require('net').createServer((c) => { let n = 0; c.on('data', (d) => { n += d.length;
         if (n >= ${2 * MIB}) c.end(Buffer.alloc(${2 * MIB}, 7)); }); });
       s.listen(5001, '${DN}', () => console.log('listening'));`,
      );
      try {
        const client = await nodeIn<{ received: number }>(
          ueNamespace,
          `const c = require('net').connect(5001, '${DN}', () => c.write(Buffer.alloc(${2 * MIB}, 3)));
         let n = 0; c.on('data', (d) => { n += d.length; });
         c.on('end', () => { console.log(JSON.stringify({ received: n })); c.end(); });`,
        );
        assert.equal(client.received, 2 * MIB);
      } finally {
        server.stop();
      }
    });

    it('shows the session through the API: address, data network, slice, AMBR', async () => {
      const response = await t.request({ method: 'GET', url: `/api/v1/subscribers/${IMSI}`, token });
      assert.equal(response.statusCode, 200, response.body);
      const detail = response.json<{ result: { sessions: Record<string, unknown>[] } }>().result;
      const tunnel = tunnels.tunnel(ue, 1);
      assert.equal(detail.sessions.length, 1);
      const s = detail.sessions[0] ?? {};
      assert.deepEqual(
        [s.id, s.status, s.ip_type, s.ipv4_address, s.data_network],
        [1, 'active', 'IPv4', tunnel?.session.ueIpv4, 'internet'],
      );
      assert.equal((s.slice as { sst: number }).sst, 1);
      assert.equal(typeof s.ambr_uplink, 'string');
      assert.equal(typeof s.ambr_downlink, 'string');
    });

    it('an idle UE: the first ping from the data network is buffered, pages the device, and is answered after its Service Request', async () => {
      const ueIp = tunnels.tunnel(ue, 1)?.session.ueIpv4;
      assert.ok(ueIp !== undefined);
      const status = async () => {
        const response = await t.request({ method: 'GET', url: `/api/v1/subscribers/${IMSI}`, token });
        return response.json<{ result: { sessions: { status: string }[] } }>().result.sessions[0]?.status;
      };
      // The gNB releases the UE's connection (user inactivity): the session goes inactive, its TUN away.
      const released = ue.next((e) => (e.type === 'released' ? true : undefined));
      assert.ok(ues.requestRelease(ue));
      await released;
      await settle(
        () => tunnels.tunnel(ue, 1),
        (tunnel) => tunnel === undefined,
        'TUN gone',
      );
      await until('the session inactive', async () => (await status()) === 'inactive');
      const upf = n2.upf();
      assert.ok(upf !== undefined);
      const before = upf.counters();

      const paged = ue.next((e) => (e.type === 'paged' ? e.outcome : undefined));
      const ping = inNamespace(dnNamespace, 'busybox', 'ping', '-c', '1', '-W', '8', ueIp);
      await settle(
        () => upf.counters().downlinkBuffered,
        (n) => n === before.downlinkBuffered + 1,
        'echo request buffered',
      );
      clock.advance(100); // the UPF's downlink data notice is polled on the core's clock
      assert.deepEqual(await paged, { outcome: 'accepted' });
      assert.match(await ping, /1 packets transmitted, 1 packets received/);
      assert.equal(upf.counters().downlinkBufferFlushed, before.downlinkBufferFlushed + 1);
      assert.equal(await status(), 'active');
      await tunnels.settled();
      assert.ok(tunnels.tunnel(ue, 1) !== undefined);
    });

    it('releases the session when the profile’s pool changes: traffic stops, TUN gone, reports at release', async () => {
      const tunnel = tunnels.tunnel(ue, 1);
      assert.ok(tunnel !== undefined);
      await inNamespace(ueNamespace, 'busybox', 'ping', '-A', '-c', '1', '-W', '2', DN);
      const released = sessions.next((e) => (e.type === 'released' ? e : undefined));
      const profile = await t.request({ method: 'GET', url: '/api/v1/profiles/default', token });
      const body = profile.json<{ result: Record<string, unknown> }>().result;
      delete body.name; // the path names it
      const changed = await t.request({
        method: 'PUT',
        url: '/api/v1/profiles/default',
        token,
        payload: { ...body, 'ue-ip-pool': '10.46.0.0/16' },
      });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.equal((await released).cause, 39);
      await settle(
        () => tunnel.released,
        (r) => r,
        'tunnel released',
      );
      assert.equal(await tunExists(ueNamespace, tunnel.tunName), false);
      await assert.rejects(inNamespace(ueNamespace, 'busybox', 'ping', '-c', '1', '-W', '1', DN));
      // Its flows are written at release, without waiting 30 s: what passed, each way, exactly.
      const ueIp = tunnel.session.ueIpv4;
      // The records pipeline writes in batches: waited for, 20 s of wall time at most.
      let flows = await flowReports(core(), IMSI);
      await until(
        'the four flows reported',
        async () => (flows = await flowReports(core(), IMSI)).length >= 4,
        () => JSON.stringify(flows),
        { everyMs: 20 },
      );
      const icmp = flows.filter((f) => f.protocol === 1);
      assert.deepEqual(
        icmp.map((f) => [f.direction, f.action, f.source_ip, f.destination_ip, f.packets, f.bytes]).sort(),
        [
          // Four echoes from the UE, one to it while it was idle (ICMP flows have no ports: one each way).
          ['downlink', 'allow', DN, ueIp, 5, 5 * 84],
          ['uplink', 'allow', ueIp, DN, 5, 5 * 84],
        ],
      );
      const tcp = flows.filter((f) => f.protocol === 6);
      const port = tcp.find((f) => f.direction === 'uplink')?.source_port;
      assert.deepEqual(tcp.map((f) => [f.direction, f.action, f.source_port, f.destination_port]).sort(), [
        ['downlink', 'allow', 5001, port],
        ['uplink', 'allow', port, 5001],
      ]);
      for (const f of tcp) assert.ok(f.bytes > 2 * MIB && f.bytes <= f.packets * 1500, JSON.stringify(f));
      assert.equal(flows.length, 4);
      const sum = (direction: string) =>
        flows.filter((f) => f.direction === direction).reduce((total, f) => total + f.bytes, 0);
      assert.deepEqual(await usage(core(), IMSI), {
        uplink_bytes: sum('uplink'),
        downlink_bytes: sum('downlink'),
        total_bytes: sum('uplink') + sum('downlink'),
      });
    });
  },
);
