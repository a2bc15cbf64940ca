/**
 * What the UPF refuses of a UE's real traffic (network.md 7): the session AMBR both ways (counts compared
 * with what the simulated gNB carried and the bucket's bound, never absolute speed), a spoofed source
 * address from the UE's own IP stack dropped and reported as `drop`, and a released session: traffic
 * stops, the TUN device is gone, its flow reports and usage are written at once. Needs root.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { tunExists } from '../helpers/netns.ts';
import { createTeidAllocator } from '../../src/network/working-state/teid-allocator.ts';
import type { Ambr } from '../../src/network/upf/ports/session-control.ts';
import {
  DN,
  flowReports,
  inNamespace,
  N3,
  nodeIn,
  run,
  sessionTrafficUnavailable,
  settle,
  startCore,
  usage,
  type Core,
} from './session-traffic-harness.ts';

const skip = sessionTrafficUnavailable();

/** A Node script that sends `count` datagrams of `size` octets to `to`:`port`, from `from` if given. */
const udpBurst = (to: string, port: number, count: number, size: number, from?: string) =>
  `const s = require('dgram').createSocket('udp4'); let n = 0;
   const next = () => n++ < ${count} ? s.send(Buffer.alloc(${size}), ${port}, '${to}', next)
     : (console.log(JSON.stringify({ port: s.address().port })), process.exit(0));
   s.bind({ port: 0${from === undefined ? '' : `, address: '${from}'`} }, next);`;

describe('UE traffic the UPF polices, refuses and ends', { skip }, () => {
  let core: Core;
  const teids = createTeidAllocator();
  let counter = 0;

  /** A session installed in the UPF as the SMF does, and its TUN in a namespace of its own. */
  async function session(ambr: Ambr) {
    counter += 1;
    const imsi = `00101000000${String(8000 + counter)}`;
    const ueIpv4 = `10.45.1.${counter + 1}`;
    const uplinkTeid = teids.allocate() ?? 0;
    const downlinkTeid = teids.allocate() ?? 0;
    const established = core.upf.establishSession({ imsi, ueIpv4, uplinkTeid, ambr });
    assert.ok(established.ok);
    const id = established.value.id;
    assert.ok(core.upf.updateDownlink(id, { gnbAddress: core.gnb.n3Address, remoteTeid: downlinkTeid }).ok);
    const namespace = await core.ueNamespace();
    const up = await core.gnb.bringUp(
      { pduSessionId: 1, ueIpv4, qfi: 1, upfAddress: N3, uplinkTeid, downlinkTeid },
      { namespace },
    );
    assert.ok(up.ok, JSON.stringify(up));
    return { id, imsi, ueIpv4, namespace, tunnel: up.value };
  }

  before(async () => {
    core = await startCore('p');
  });

  after(async () => {
    await core?.close();
  });

  it('polices the uplink AMBR: the UPF passes at most the bucket plus the rate of what the gNB carried', async () => {
    const s = await session({ uplinkBps: 1_000_000, downlinkBps: 0 });
    const before = core.upf.counters();
    const start = process.hrtime.bigint();
    const { port } = await nodeIn<{ port: number }>(s.namespace, udpBurst(DN, 9, 300, 972));
    const carried = await settle(
      () => s.tunnel.counters(),
      (c) => (c?.uplinkPackets ?? 0) >= 300,
      'uplink carried by the gNB',
    );
    const c = await settle(
      () => core.upf.counters(),
      (c) => c.uplinkPackets + c.dropUplinkAmbr >= before.uplinkPackets + before.dropUplinkAmbr + 300,
      'UPF',
    );
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const passed = c.uplinkBytes - before.uplinkBytes;
    // 1,000 octets per IP packet; the bucket holds 16 KiB (50 ms of 1 Mbit/s is less) and refills at 125,000 B/s.
    assert.equal(carried?.uplinkBytes, 300 * 1000);
    assert.ok(passed >= 16_000, `passed ${passed}`);
    assert.ok(passed <= 16_384 + 125_000 * seconds + 1000, `passed ${passed} in ${seconds} s`);
    assert.ok(c.dropUplinkAmbr - before.dropUplinkAmbr > 0);
    // Reported: the datagrams that passed as `allow`, the rest of the same flow as `drop`.
    core.clock.advance(1000);
    core.clock.advance(31_000);
    const udp = (await flowReports(core, s.imsi)).filter(
      (f) => f.protocol === 17 && f.direction === 'uplink',
    );
    assert.deepEqual(
      udp
        .map((f) => [f.action, f.source_ip, f.source_port, f.destination_ip, f.destination_port, f.packets])
        .sort(),
      [
        ['allow', s.ueIpv4, port, DN, 9, passed / 1000],
        ['drop', s.ueIpv4, port, DN, 9, 300 - passed / 1000],
      ],
    );
  });

  it('polices the downlink AMBR: the UE receives what the UPF passed, no more', async () => {
    const s = await session({ uplinkBps: 0, downlinkBps: 1_000_000 });
    const before = core.upf.counters();
    const start = process.hrtime.bigint();
    await nodeIn(core.dnNamespace, udpBurst(s.ueIpv4, 9, 300, 972));
    const c = await settle(
      () => core.upf.counters(),
      (c) => c.downlinkPackets + c.dropDownlinkAmbr >= before.downlinkPackets + before.dropDownlinkAmbr + 300,
      'UPF',
    );
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const passed = c.downlinkBytes - before.downlinkBytes;
    assert.ok(passed >= 16_000, `passed ${passed}`);
    assert.ok(passed <= 16_384 + 125_000 * seconds + 1000, `passed ${passed} in ${seconds} s`);
    // What reached the UE's TUN is what the UPF passed (its kernel answers port unreachable uplink).
    await settle(
      () => s.tunnel.counters()?.downlinkBytes,
      (n) => n === passed,
      'downlink at the gNB',
    );
  });

  it('drops a spoofed source address from the UE and reports it as drop', async () => {
    const s = await session({ uplinkBps: 0, downlinkBps: 0 });
    // The UE's stack holds a second address the session does not have, and sends from it.
    await run('ip', ['-n', s.namespace, 'addr', 'add', '10.45.9.9/32', 'dev', s.tunnel.tunName]);
    const before = core.upf.counters();
    const { port } = await nodeIn<{ port: number }>(s.namespace, udpBurst(DN, 7, 3, 100, '10.45.9.9'));
    await settle(
      () => core.upf.counters().dropSpoofed,
      (n) => n === before.dropSpoofed + 3,
      'spoofed',
    );
    assert.equal(core.upf.counters().uplinkPackets, before.uplinkPackets);
    assert.equal(
      s.tunnel.counters()?.uplinkPackets,
      3,
      'the gNB carried them: the UPF is the one that checks',
    );
    core.clock.advance(1000);
    core.clock.advance(31_000);
    const flows = await flowReports(core, s.imsi);
    assert.deepEqual(
      flows.map((f) => [
        f.direction,
        f.action,
        f.protocol,
        f.source_ip,
        f.source_port,
        f.destination_port,
        f.packets,
        f.bytes,
      ]),
      [['uplink', 'drop', 17, '10.45.9.9', port, 7, 3, 3 * 128]],
    );
    assert.equal(await usage(core, s.imsi), undefined, 'dropped packets are not usage');
  });

  it('ends a released session: traffic stops, the TUN is gone, flow reports and usage are written at once', async () => {
    const s = await session({ uplinkBps: 0, downlinkBps: 0 });
    const out = await inNamespace(s.namespace, 'busybox', 'ping', '-A', '-c', '2', '-W', '2', DN);
    assert.match(out, /2 packets received/);
    // What the SMF does when a policy change releases the session (TS 23.502 4.3.4.2): the UPF's rules
    // go (reports and usage written), the gNB releases its resources and the UE's TUN disappears.
    assert.ok(core.upf.release(s.id).ok);
    s.tunnel.release();
    assert.equal(await tunExists(s.namespace, s.tunnel.tunName), false);
    await assert.rejects(inNamespace(s.namespace, 'busybox', 'ping', '-c', '1', '-W', '1', DN));
    const flows = await flowReports(core, s.imsi);
    assert.deepEqual(flows.map((f) => [f.direction, f.action, f.protocol, f.packets, f.bytes]).sort(), [
      ['downlink', 'allow', 1, 2, 168],
      ['uplink', 'allow', 1, 2, 168],
    ]);
    assert.deepEqual(await usage(core, s.imsi), { uplink_bytes: 168, downlink_bytes: 168, total_bytes: 336 });
  });
});
