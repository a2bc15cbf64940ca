/**
 * Issue 34's goal: no downlink packet lost over an N2 handover with indirect data forwarding. PMN Core
 * with N2 (AMF, SMF and UPF as main.ts wires them, udp transport), two simulated gNBs with user planes
 * of their own (N3 on two loopback addresses) and one UE whose TUN devices, one per gNB, live in one
 * namespace. A sequence-numbered UDP stream runs from the data network to the UE while the UE is handed
 * over by N2 without a direct path between the gNBs (TS 23.502 4.9.1.3): the source forwards what it
 * still gets to the UPF's forwarding tunnel, then the End Marker; the target delivers the forwarded
 * packets before the new path's (TS 38.300 9.2.3.3.1). The UE gets every packet once, in order; tshark
 * decodes every NGAP PDU the service sent. Root.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { createN2 } from '../../src/core/n2.wiring.ts';
import type { NgapExchange } from '../../src/simulator/gnb.ts';
import { SimulatedGnb } from '../../src/simulator/gnb.ts';
import { N2Handover } from '../../src/simulator/gnb-handover-n2.ts';
import { GnbUes } from '../../src/simulator/ue/gnb-ues.ts';
import { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import { UeSessions } from '../../src/simulator/ue/ue-sessions.ts';
import { createGnbUserPlane, type GnbUserPlane } from '../../src/simulator/user-plane/gnb-user-plane.ts';
import { carrySessions, type SessionTunnels } from '../../src/simulator/user-plane/session-tunnels.ts';
import { createUdpTransport } from '../../src/network/transport/udp/udp-transport.ts';
import { createTestApp, initialize, manualClock, type TestApp } from '../helpers/test-app.ts';
import { assertTsharkAgrees, gnbConfig, OPERATOR_PLMN } from '../e2e/n2-service.ts';
import { K, OPC, testUeConfig } from '../e2e/registration-service.ts';
import {
  GNB_N3,
  N3,
  run,
  serveIn,
  sessionTrafficUnavailable,
  startN2WithUpf,
} from './session-traffic-harness.ts';

const skip = sessionTrafficUnavailable();
const id = process.pid % 100000;
const IMSI = '001010000009041';
/** The second gNB's N3 address: the harness's gNB address + 1, on the same loopback /8. */
const GNB2_N3 = GNB_N3.replace(/\.2$/, '.3');
const PORT = 40_000;
/** Packets in the stream, one every 2 ms: long enough for the handover to happen inside it. */
const PACKETS = 2_000;

describe('a downlink stream over an N2 handover with indirect data forwarding', { skip }, () => {
  const clock = manualClock(Date.now());
  let t: TestApp;
  let n2: ReturnType<typeof createN2>;
  const closes: (() => Promise<void> | void)[] = [];
  const received: NgapExchange[] = [];
  let ue: SimulatedUe;
  let sessions: UeSessions;
  const nodes: { handover: N2Handover; tunnels: SessionTunnels; userPlane: GnbUserPlane }[] = [];
  const dnNamespace = `pmnfdn${id}`;
  const ueNamespace = `pmnfue${id}`;
  const n6 = `pmnfn${id}`;

  before(async () => {
    for (const ns of [dnNamespace, ueNamespace]) await run('ip', ['netns', 'add', ns]);
    await run('ip', ['-n', ueNamespace, 'link', 'set', 'lo', 'up']);
    // Both gNBs' TUNs carry the UE's address; the downlink may come in on either, whatever the route.
    for (const scope of ['all', 'default'])
      await run('ip', ['netns', 'exec', ueNamespace, 'sysctl', '-qw', `net.ipv4.conf.${scope}.rp_filter=0`]);
    t = await createTestApp({ clock, timers: clock });
    const token = await initialize(t);
    n2 = await startN2WithUpf(t, clock, n6, dnNamespace);
    const endpoint = n2.endpoint();
    assert.ok(endpoint?.local[0]);
    const response = await t.request({
      method: 'POST',
      url: '/api/v1/subscribers',
      token,
      payload: { imsi: IMSI, key: K, opc: OPC, sequenceNumber: '000000000000', profile_name: 'default' },
    });
    assert.equal(response.statusCode, 201, response.body);
    for (const [i, n3Address] of [GNB_N3, GNB2_N3].entries()) {
      const ran = await createUdpTransport({
        addresses: ['127.0.0.1'],
        udpPort: 0,
        peerUdpPort: endpoint.udpPort ?? 0,
      });
      closes.push(() => ran.transport.close());
      const gnb: SimulatedGnb = new SimulatedGnb({
        config: gnbConfig(i + 1, { name: `gnb-f${i}` }),
        transport: ran.transport,
        amf: [endpoint.local[0]],
      });
      gnb.on((event) => {
        if (event.type === 'received') received.push(event.exchange);
      });
      const ues = new GnbUes(gnb, { plmn: OPERATOR_PLMN, nrCellIdentity: 0x4101 + i, tac: 1 }, { n3Address });
      await gnb.connect();
      assert.equal((await gnb.ngSetup()).outcome, 'accepted');
      const userPlane = createGnbUserPlane({ n3Address });
      if (i === 0)
        ue = new SimulatedUe({
          config: testUeConfig(IMSI),
          radio: ues,
        });
      if (i === 0) sessions = new UeSessions(ue);
      const tunnels = carrySessions({
        events: ues.sessions,
        userPlane,
        ueOf: (s) => s.ue,
        addresses: (s) => {
          const ipv4 = s.ue === ue ? sessions.get(s.pduSessionId)?.ipv4 : undefined;
          return ipv4 === undefined ? undefined : { ueIpv4: ipv4 };
        },
        tun: () => ({ namespace: ueNamespace }),
      });
      const handover = new N2Handover(gnb, ues, { pci: i + 1, arfcnDl: 632628 });
      handover.userPlane = tunnels;
      nodes.push({ handover, tunnels, userPlane });
    }
  });

  after(async () => {
    for (const node of nodes) {
      node.tunnels.stop();
      node.userPlane.close();
    }
    await n2?.stop();
    for (const close of closes) await close();
    await t?.close();
    for (const ns of [dnNamespace, ueNamespace]) await run('ip', ['netns', 'del', ns]).catch(() => undefined);
  });

  type Node = (typeof nodes)[number];

  /**
   * Streams PACKETS sequence-numbered datagrams from the data network to the UE while it is handed over
   * from `from` to `to`; the sequence numbers the UE got, in arrival order, and the handover's outcome.
   */
  async function streamOverHandover(from: Node, to: Node, ueIpv4: string, directForwarding: boolean) {
    // The UE's receiver: every sequence number in arrival order, once the stream ended (its last
    // packet, or nothing for a while after the first).
    const receiver = await serveIn(
      ueNamespace,
      `const s = require('dgram').createSocket('udp4'); const seen = [];
       let idle; const done = () => { process.stdout.write(JSON.stringify(seen)); process.exit(0); };
       s.on('message', (m) => { seen.push(m.readUInt32BE(0)); clearTimeout(idle);
         if (m.readUInt32BE(0) === ${PACKETS - 1}) done(); idle = setTimeout(done, 3000); });
       s.bind(${PORT}, '${ueIpv4}', () => process.stdout.write('ready\\n'));`,
    );
    const sender = await serveIn(
      dnNamespace,
      `const s = require('dgram').createSocket('udp4'); let n = 0; process.stdout.write('sending\\n');
       const tick = () => { const b = Buffer.alloc(64); b.writeUInt32BE(n); s.send(b, ${PORT}, '${ueIpv4}');
         if (++n < ${PACKETS}) setTimeout(tick, 2); else setTimeout(() => process.exit(0), 100); };
       tick();`,
    );
    // The handover starts while the stream runs.
    const outcome = await from.handover.handOver(ue, to.handover, { directForwarding });
    await sender.output;
    const seen = JSON.parse((await receiver.output).replace(/^ready\n/, '')) as number[];
    return { outcome, seen };
  }

  const assertAllInOrder = (seen: readonly number[]) => {
    const missing = PACKETS - new Set(seen).size;
    assert.equal(missing, 0, `${missing} packets lost`);
    assert.equal(seen.length, PACKETS, `${seen.length - PACKETS} duplicated`);
    assert.deepEqual(
      seen,
      Array.from({ length: PACKETS }, (_, i) => i),
    );
  };

  it('delivers every packet once and in order while the UE is handed over with indirect forwarding, then back with direct', async () => {
    const [a, b] = nodes;
    assert.ok(a !== undefined && b !== undefined);
    assert.equal((await ue.register('suci')).outcome, 'accepted');
    const established = await sessions.establish({ type: 'IPv4', dnn: 'internet' });
    assert.ok(established.outcome === 'accepted', JSON.stringify(established));
    const ueIpv4 = established.session.ipv4;
    assert.ok(ueIpv4 !== undefined);
    await a.tunnels.settled();
    assert.ok(a.tunnels.tunnel(ue, 1) !== undefined);

    // A to B, no direct path between them: the source forwards through the UPF.
    const indirect = await streamOverHandover(a, b, ueIpv4, false);
    assert.equal(indirect.outcome.outcome, 'handed-over', JSON.stringify(indirect.outcome));
    assert.ok(indirect.outcome.outcome === 'handed-over');
    // The Command named the UPF's forwarding tunnel, not the target's own.
    assert.equal(indirect.outcome.command.forwarding.length, 1);
    assert.equal(indirect.outcome.command.forwarding[0]?.tunnel.address, N3);
    assert.equal(indirect.outcome.offered.length, 1);
    assertAllInOrder(indirect.seen);
    // The forwarding path was taken: the End Marker the source passed on reached the target through
    // the UPF (how many packets went that way depends on the stream's timing, so it is only reported).
    const markersAtB = b.userPlane.counters().endMarkersReceived;
    assert.ok(markersAtB > 0, `${a.userPlane.counters().downlinkForwarded} forwarded`);

    // Back to A over a direct path: the source forwards to the target's own forwarding tunnel.
    const markersAtA = a.userPlane.counters().endMarkersReceived;
    const direct = await streamOverHandover(b, a, ueIpv4, true);
    assert.equal(direct.outcome.outcome, 'handed-over', JSON.stringify(direct.outcome));
    assert.ok(direct.outcome.outcome === 'handed-over');
    assert.deepEqual(
      direct.outcome.command.forwarding.map((f) => f.tunnel),
      direct.outcome.offered.map((o) => o.tunnel),
    );
    assertAllInOrder(direct.seen);
    // The End Marker the UPF sent B at the switch reached A through the forwarding tunnel.
    assert.ok(a.userPlane.counters().endMarkersReceived > markersAtA);
    await assertTsharkAgrees(received);
  });
});
