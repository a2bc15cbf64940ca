/**
 * A UE's traffic end to end: a TUN device in the UE's namespace -> the simulated gNB's user plane
 * (GTP-U with the UL PDU Session Container) -> PMN Core's UPF -> its N6 TUN in the data-network
 * namespace, whose kernel answers, and back. busybox ping and a TCP transfer of 4 MiB each way; then the
 * flow reports (direction, action, protocol, ports, bytes: network.md 7) and the usage, read through the
 * API, against what the gNB carried. Needs root (namespaces, TUN).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTeidAllocator } from '../../src/network/working-state/teid-allocator.ts';
import type { UeTunnel } from '../../src/simulator/user-plane/gnb-user-plane.ts';
import { tunExists } from '../helpers/netns.ts';
import {
  DN,
  flowReports,
  N3,
  nodeIn,
  inNamespace,
  serveIn,
  sessionTrafficUnavailable,
  settle,
  startCore,
  usage,
  type Core,
} from './session-traffic-harness.ts';

const skip = sessionTrafficUnavailable();
const MIB = 1 << 20;

describe('UE traffic through the simulated gNB and the UPF', { skip }, () => {
  let core: Core;
  const teids = createTeidAllocator();
  const imsi = '001010000007001';
  let tunnel: UeTunnel;
  let namespace: string;
  let upfSession: number;

  before(async () => {
    core = await startCore('s');
    namespace = await core.ueNamespace();
    const uplinkTeid = teids.allocate() ?? 0;
    const downlinkTeid = teids.allocate() ?? 0;
    const established = core.upf.establishSession({
      imsi,
      ueIpv4: '10.45.0.2',
      uplinkTeid,
      ambr: { uplinkBps: 0, downlinkBps: 0 },
    });
    assert.ok(established.ok);
    upfSession = established.value.id;
    assert.ok(
      core.upf.updateDownlink(upfSession, { gnbAddress: core.gnb.n3Address, remoteTeid: downlinkTeid }).ok,
    );
    const up = await core.gnb.bringUp(
      { pduSessionId: 1, ueIpv4: '10.45.0.2', qfi: 1, upfAddress: N3, uplinkTeid, downlinkTeid },
      { namespace },
    );
    assert.ok(up.ok, JSON.stringify(up));
    tunnel = up.value;
  });

  after(async () => {
    await core?.close();
  });

  it('pings the data network from the UE namespace', async () => {
    const out = await inNamespace(namespace, 'busybox', 'ping', '-A', '-c', '3', '-W', '2', DN);
    assert.match(out, /3 packets transmitted, 3 packets received/);
    const c = tunnel.counters();
    assert.deepEqual([c?.uplinkPackets, c?.downlinkPackets], [3, 3]);
    assert.deepEqual([c?.uplinkBytes, c?.downlinkBytes], [3 * 84, 3 * 84]);
  });

  it('transfers 4 MiB over TCP to the data network and 4 MiB back, content checked, in 64 KiB TUN reads', async () => {
    const gnbBefore = core.gnb.counters();
    const upfBefore = core.upf.counters();
    // Each side checks what it received against the other's pattern: a piece cut or checksummed wrong
    // by the forwarders (native/upf/tun-gso.c) is dropped by the receiving kernel or corrupts this.
    const pattern = (seed: number) =>
      `((n, s) => { const b = Buffer.alloc(n); for (let i = 0; i < n; i++) b[i] = (i * 131 + s) & 255; return b; })(${4 * MIB}, ${seed})`;
    const server = await serveIn(
      core.dnNamespace,
      `const net = require('net');
       const expected = ${pattern(3)};
       const s = net.createServer((c) => { const got = []; let n = 0; c.on('data', (d) => { got.push(d); n += d.length;
         if (n >= ${4 * MIB}) { c.end(Buffer.concat(got).equals(expected) ? ${pattern(7)} : Buffer.alloc(0)); } }); });
       s.listen(5001, '${DN}', () => console.log('listening'));`,
    );
    try {
      const client = await nodeIn<{ received: number; same: boolean }>(
        namespace,
        `const c = require('net').connect(5001, '${DN}', () => c.write(${pattern(3)}));
         const got = []; c.on('data', (d) => got.push(d));
         c.on('end', () => { const all = Buffer.concat(got);
           console.log(JSON.stringify({ received: all.length, same: all.equals(${pattern(7)}) })); c.end(); });`,
      );
      assert.deepEqual(client, { received: 4 * MIB, same: true });
    } finally {
      server.stop();
    }
    // The UE's and the data network's TCP stacks handed over segments larger than a packet (TSO on
    // both TUNs), which the gNB and the UPF cut into packets.
    assert.ok(core.gnb.counters().uplinkSegmented > gnbBefore.uplinkSegmented, 'uplink TUN reads cut');
    assert.ok(core.upf.counters().downlinkSegmented > upfBefore.downlinkSegmented, 'N6 TUN reads cut');
    // The UPF and the gNB joined the pieces again into segments for the receiving stacks (tun-gro.h).
    assert.ok(core.upf.counters().uplinkJoined > upfBefore.uplinkJoined, 'N6 TUN writes joined');
    assert.ok(core.gnb.counters().downlinkJoined > gnbBefore.downlinkJoined, 'UE TUN writes joined');
  });

  it('writes flow reports exactly as network.md 7 says, and usage that adds up to what passed', async () => {
    const carried = tunnel.counters();
    assert.ok(carried !== undefined);
    core.clock.advance(1000); // the forwarder's counters drained into open flows
    await settle(
      () => core.upf.counters().openFlows,
      (n) => n >= 4,
      'open flows',
    );
    core.clock.advance(31_000); // 30 s without packets: reported; usage at the 30 s mark
    const flows = await flowReports(core, imsi);
    const ue = tunnel.session.ueIpv4;
    const strip = (f: (typeof flows)[number]) => [
      f.direction,
      f.action,
      f.protocol,
      f.source_ip,
      f.source_port,
      f.destination_ip,
      f.destination_port,
    ];
    const tcpUp = flows.find((f) => f.protocol === 6 && f.direction === 'uplink');
    const port = tcpUp?.source_port ?? 0;
    assert.deepEqual(flows.map(strip).sort(), [
      ['downlink', 'allow', 1, DN, 0, ue, 0],
      ['downlink', 'allow', 6, DN, 5001, ue, port],
      ['uplink', 'allow', 1, ue, 0, DN, 0],
      ['uplink', 'allow', 6, ue, port, DN, 5001],
    ]);
    assert.ok(port >= 1024, `ephemeral port ${port}`);
    // ICMP: three echoes of 84 octets each way (busybox's default 56 data octets).
    const icmp = flows.filter((f) => f.protocol === 1).map((f) => [f.direction, f.packets, f.bytes]);
    assert.deepEqual(icmp.sort(), [
      ['downlink', 3, 252],
      ['uplink', 3, 252],
    ]);
    // TCP: at least the 4 MiB of payload each way, in packets of at most the MTU.
    for (const f of flows.filter((f) => f.protocol === 6)) {
      assert.ok(f.bytes > 4 * MIB && f.bytes <= f.packets * 1500, JSON.stringify(f));
    }
    // Usage and flows count the same packets; the UPF saw at most what the gNB sent and sent at least
    // what the gNB received (loopback may lose a datagram under load, never invent one).
    const sum = (direction: string) =>
      flows.filter((f) => f.direction === direction).reduce((total, f) => total + f.bytes, 0);
    const used = await usage(core, imsi);
    assert.deepEqual(used, {
      uplink_bytes: sum('uplink'),
      downlink_bytes: sum('downlink'),
      total_bytes: sum('uplink') + sum('downlink'),
    });
    assert.ok(sum('uplink') <= carried.uplinkBytes);
    assert.ok(sum('downlink') >= carried.downlinkBytes);
    assert.equal(core.upf.counters().uplinkBytes, sum('uplink'));
  });

  it('removes the TUN device with the session, and the UPF answers its TEID with an Error Indication', async () => {
    assert.ok(await tunExists(namespace, tunnel.tunName));
    tunnel.release();
    assert.equal(tunnel.released, true);
    assert.equal(tunnel.counters(), undefined);
    assert.equal(await tunExists(namespace, tunnel.tunName), false);
    assert.equal(core.gnb.tunnels, 0);
    // A G-PDU arriving for the released downlink TEID: counted and answered (TS 29.281 7.3.1).
    const before = core.gnb.counters();
    await inNamespace(
      core.dnNamespace,
      'busybox',
      'ping',
      '-c',
      '1',
      '-W',
      '1',
      tunnel.session.ueIpv4 ?? '',
    ).catch(() => undefined);
    const after = await settle(
      () => core.gnb.counters(),
      (c) => c.dropUnknownTeid > before.dropUnknownTeid,
      'unknown TEID',
    );
    assert.ok(after.errorIndicationsSent > before.errorIndicationsSent);
    await settle(
      () => core.upf.counters().errorIndicationsReceived,
      (n) => n > 0,
      'Error Indication at the UPF',
    );
    assert.ok(core.upf.release(upfSession).ok);
  });
});
