/**
 * The simulated gNB's user plane against a plain UDP socket playing the UPF (no core): what it puts on
 * N3 for a UE's packets (TS 29.281 G-PDU with the UL PDU Session Container of TS 38.415 5.5.2.2, checked
 * by tshark), demultiplexing the downlink of many UEs by TEID into their own TUN devices (each UE's
 * kernel answers an ICMP echo), IPv4 and IPv6, Echo, End Marker, Error Indication for an unknown TEID,
 * its bounds, and a fixed-seed fuzz of what may arrive on N3. Needs root (namespaces, TUN).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ipv6Text } from '../../src/network/common/ipv6-text.ts';
import {
  decodeErrorIndication,
  decodeGtpu,
  encodeEchoRequest,
  encodeGtpu,
  GtpuMessageType,
  pduSessionContainer,
  readPduSessionContainer,
  type GtpuMessage,
} from '../helpers/gtpu-codec.ts';
import {
  createGnbUserPlane,
  firstAddressOf,
  type GnbUserPlane,
  type UeTunnel,
} from '../../src/simulator/user-plane/gnb-user-plane.ts';
import { loadGnbUserPlaneAddon } from '../../src/simulator/user-plane/gnb-user-plane-addon.ts';
import { ueTunCommands } from '../../src/simulator/user-plane/ue-tun.ts';
import { namespacesUnavailable, tunExists } from '../helpers/netns.ts';
import { EXPERT_WARNING, tsharkFields, worstSeverity } from '../helpers/tshark.ts';
import { icmpEcho, icmpv6Echo, readIpv4 } from '../network/upf/ip-packets.ts';
import { until as waitUntil } from '../helpers/until.ts';

const run = promisify(execFile);
const load = loadGnbUserPlaneAddon();
const skip = namespacesUnavailable() ?? (load.ok ? undefined : load.error.message);

const id = process.pid % 100000;
const x = 50 + (process.pid % 150);
const y = Math.floor(process.pid / 150) % 250;
const UPF = `127.${x}.${y}.5`;
const GNB = `127.${x}.${y}.6`;
const DN = '10.99.0.1';
const DN_6 = '2001:db8:99::1';

/** Deterministic PRNG for the fuzz (mulberry32). */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Received {
  bytes: Buffer;
  message: GtpuMessage;
}

describe('simulated gNB user plane against a UDP socket playing the UPF', { skip }, () => {
  let gnb: GnbUserPlane;
  let upf: dgram.Socket;
  const all: Received[] = [];
  const waiters: { match: (r: Received) => boolean; resolve: (r: Received) => void }[] = [];
  const namespaces: string[] = [];
  let teid = 0x100;
  /** The forwarding tunnel a handover source is told of (downlink G-PDUs, DL PDU Session Container). */
  const FORWARD_TEID = 0x7e0001;

  const next = (match: (r: Received) => boolean, what: string): Promise<Received> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no ${what} within 20 s: ${JSON.stringify(gnb.counters())}`)),
        20_000,
      );
      waiters.push({
        match,
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
      });
    });
  const send = (bytes: Uint8Array) => upf.send(bytes, gnb.n3Port, GNB);
  const downlink = (tunnel: UeTunnel, packet: Uint8Array) =>
    send(
      encodeGtpu({
        type: GtpuMessageType.gPdu,
        teid: tunnel.session.downlinkTeid,
        extensions: [pduSessionContainer(0, tunnel.session.qfi)],
        payload: packet,
      }),
    );
  const errorIndicationFor = (teid: number) => (r: Received) => {
    if (r.message.type !== GtpuMessageType.errorIndication) return false;
    const ies = decodeErrorIndication(r.message.payload);
    return ies.ok && ies.teid === teid;
  };
  const uplinkOf = (tunnel: UeTunnel) => (r: Received) =>
    r.message.type === GtpuMessageType.gPdu && r.message.teid === tunnel.session.uplinkTeid;

  async function ue(options: { ueIpv4?: string; ueIpv6Prefix?: string; qfi?: number } = {}) {
    // Name and TEIDs taken before the first await, so that UEs may come up concurrently.
    const namespace = `pmnsu${namespaces.length}x${id}`;
    namespaces.push(namespace);
    teid += 2;
    const uplinkTeid = teid;
    await run('ip', ['netns', 'add', namespace]);
    const up = await gnb.bringUp(
      {
        pduSessionId: 1,
        ...options,
        qfi: options.qfi ?? 1,
        upfAddress: UPF,
        uplinkTeid,
        downlinkTeid: uplinkTeid + 1,
      },
      { namespace },
    );
    assert.ok(up.ok, JSON.stringify(up));
    return up.value;
  }

  before(async () => {
    upf = dgram.createSocket('udp4');
    upf.on('message', (bytes) => {
      const decoded = decodeGtpu(bytes);
      assert.ok(decoded.ok, `the gNB sent an undecodable datagram: ${bytes.toString('hex')}`);
      const r = { bytes, message: decoded.message };
      all.push(r);
      for (const waiter of [...waiters]) {
        if (waiter.match(r)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(r);
        }
      }
    });
    await new Promise<void>((resolve) => upf.bind(2152, UPF, resolve));
    gnb = createGnbUserPlane({ n3Address: GNB, n3Port: 0, maxSessions: 24, errorIndicationsPerSecond: 20 });
  });

  after(async () => {
    gnb?.close();
    upf?.close();
    for (const namespace of namespaces) await run('ip', ['netns', 'del', namespace]).catch(() => undefined);
  });

  it('carries a UE packet as a G-PDU with the uplink TEID and an UL PDU Session Container with the QFI', async () => {
    const t = await ue({ ueIpv4: '10.45.0.2', qfi: 5 });
    const sent = next(uplinkOf(t), 'uplink G-PDU');
    const script = `require('dgram').createSocket('udp4').send('hello', 9, '${DN}', () => process.exit(0))`;
    await run('ip', ['netns', 'exec', t.namespace, process.execPath, '-e', script]);
    const { message } = await sent;
    assert.deepEqual(readPduSessionContainer(message), { pduType: 1, qfi: 5 });
    const ip = readIpv4(message.payload);
    assert.deepEqual([ip.source, ip.destination, ip.protocol], ['10.45.0.2', DN, 17]);
    assert.equal(ip.payload.subarray(8).toString(), 'hello');
    assert.deepEqual(t.counters(), {
      uplinkPackets: 1,
      uplinkBytes: message.payload.length,
      downlinkPackets: 0,
      downlinkBytes: 0,
      endMarkersReceived: 0,
    });
  });

  it('delivers the downlink of many UEs by TEID, each into its own TUN (each kernel answers its echo)', async () => {
    const before = gnb.tunnels;
    const tunnels = await Promise.all(
      Array.from({ length: 16 }, (_, i) => ue({ ueIpv4: `10.45.1.${i + 2}` })),
    );
    assert.equal(gnb.tunnels, before + 16);
    const replies = tunnels.map((t) => next(uplinkOf(t), `echo reply of ${t.session.ueIpv4}`));
    tunnels.forEach((t, i) => downlink(t, icmpEcho(DN, t.session.ueIpv4 ?? '', 0x77, i)));
    const answered = await Promise.all(replies);
    answered.forEach(({ message }, i) => {
      const ip = readIpv4(message.payload);
      assert.deepEqual(
        [ip.source, ip.destination, ip.payload[0], ip.payload.readUInt16BE(6)],
        [tunnels[i]?.session.ueIpv4, DN, 0, i],
      );
    });
    for (const t of tunnels) assert.equal(t.counters()?.downlinkPackets, 1);
  });

  it('gives an IPv6 session its address in the /64, usable once brought up, and no link-local chatter (no RS, no MLD)', async () => {
    // Sessions in turn, each answered at once: the kernel makes an IPv6 address local after `ip addr
    // add` returns, and a bring-up that did not wait for it lost the first downlink now and then.
    for (let n = 0; n < 20; n++) {
      const address = `2001:db8:45:${(0x70 + n).toString(16)}::1`;
      const t = await ue({ ueIpv6Prefix: address.slice(0, -1) });
      assert.equal(t.ueIpv6, address);
      const reply = next(uplinkOf(t), `ICMPv6 echo reply of ${address}`);
      downlink(t, icmpv6Echo(DN_6, address, 9, n));
      const packet = Buffer.from((await reply).message.payload);
      assert.deepEqual(
        [ipv6Text(packet, 8), ipv6Text(packet, 24), packet[6], packet[40]],
        [address, DN_6, 58, 129],
      );
      // Everything this session sent is that reply.
      assert.equal(all.filter(uplinkOf(t)).length, 1);
      assert.equal(t.counters()?.uplinkPackets, 1);
      t.release();
      await waitFor(() => t.released);
    }
  });

  it('answers Echo Request, counts an End Marker without writing it, and drops a T-PDU that is not IP', async () => {
    const t = await ue({ ueIpv4: '10.45.2.2' });
    const response = next((r) => r.message.type === GtpuMessageType.echoResponse, 'echo response');
    send(encodeEchoRequest(0x1234));
    const { message } = await response;
    assert.deepEqual([message.teid, message.sequence, [...message.payload]], [0, 0x1234, [14, 0]]);
    const before = gnb.counters();
    send(encodeGtpu({ type: GtpuMessageType.endMarker, teid: t.session.downlinkTeid }));
    downlink(t, Uint8Array.of(0x10, 1, 2, 3));
    await waitFor(() => gnb.counters().n3Received === before.n3Received + 2);
    assert.equal(t.counters()?.endMarkersReceived, 1);
    assert.equal(t.counters()?.downlinkPackets, 0);
    assert.equal(gnb.counters().dropMalformed, before.dropMalformed + 1);
  });

  it('as a handover source, forwards the downlink and then the End Marker to the forwarding tunnel, and keeps the tunnel until that End Marker', async () => {
    const t = await ue({ ueIpv4: '10.45.3.2' });
    assert.equal(t.forwardTo({ address: UPF, teid: FORWARD_TEID }), undefined);
    const forwardedTo = (r: Received) => r.message.teid === FORWARD_TEID;
    const first = next((r) => forwardedTo(r) && r.message.type === GtpuMessageType.gPdu, 'forwarded G-PDU');
    const packets = [1, 2, 3].map((n) => icmpEcho(DN, '10.45.3.2', 0x78, n));
    downlink(t, packets[0] ?? Uint8Array.of());
    await first;
    // Released by the core (UE Context Release) while forwarding: the tunnel stays until its End Marker.
    t.release();
    assert.equal(t.released, false);
    downlink(t, packets[1] ?? Uint8Array.of());
    downlink(t, packets[2] ?? Uint8Array.of());
    const marker = next((r) => forwardedTo(r) && r.message.type === GtpuMessageType.endMarker, 'End Marker');
    await waitFor(() => all.filter(forwardedTo).length === 3);
    send(encodeGtpu({ type: GtpuMessageType.endMarker, teid: t.session.downlinkTeid }));
    await marker;
    const forwarded = all.filter(forwardedTo);
    assert.deepEqual(
      forwarded.map((r) => r.message.type),
      [GtpuMessageType.gPdu, GtpuMessageType.gPdu, GtpuMessageType.gPdu, GtpuMessageType.endMarker],
    );
    forwarded.slice(0, 3).forEach((r, i) => {
      assert.deepEqual(Buffer.from(r.message.payload), Buffer.from(packets[i] ?? []));
      assert.deepEqual(readPduSessionContainer(r.message), { pduType: 0, qfi: t.session.qfi });
    });
    // Nothing reached the UE, so its kernel answered nothing.
    assert.equal(all.filter(uplinkOf(t)).length, 0);
    await waitFor(() => t.released);
  });

  it("as a handover target, delivers forwarded packets before the new path's, switching at the forwarded End Marker", async () => {
    const t = await ue({ ueIpv4: '10.45.4.2' });
    const FORWARDED_TEID = 0x7e0002;
    assert.equal(t.expectForwarded(FORWARDED_TEID), undefined);
    const echo = (n: number) => icmpEcho(DN, '10.45.4.2', 0x79, n);
    const forwarded = (packet: Uint8Array) =>
      send(
        encodeGtpu({
          type: GtpuMessageType.gPdu,
          teid: FORWARDED_TEID,
          extensions: [pduSessionContainer(0, t.session.qfi)],
          payload: packet,
        }),
      );
    const sequenceOf = (r: Received) => readIpv4(r.message.payload).payload.readUInt16BE(6);
    // The new path's first (the UPF switched), then what the source forwarded, then its End Marker.
    downlink(t, echo(3));
    downlink(t, echo(4));
    forwarded(echo(1));
    forwarded(echo(2));
    await waitFor(() => all.filter(uplinkOf(t)).length === 2);
    assert.deepEqual(all.filter(uplinkOf(t)).map(sequenceOf), [1, 2]);
    send(encodeGtpu({ type: GtpuMessageType.endMarker, teid: FORWARDED_TEID }));
    await waitFor(() => all.filter(uplinkOf(t)).length === 4);
    downlink(t, echo(5));
    await waitFor(() => all.filter(uplinkOf(t)).length === 5);
    assert.deepEqual(all.filter(uplinkOf(t)).map(sequenceOf), [1, 2, 3, 4, 5]);
    // The forwarding TEID is no longer the session's once forwarding ended.
    const unknown = gnb.counters().dropUnknownTeid;
    const indication = next(errorIndicationFor(FORWARDED_TEID), 'error indication of the forwarding TEID');
    forwarded(echo(6));
    await indication;
    assert.equal(gnb.counters().dropUnknownTeid, unknown + 1);
    t.release();
  });

  it('answers a G-PDU for an unknown TEID with an Error Indication, at most its rate', async () => {
    // Matched by its TEID: an earlier test's Error Indication may still be on its way.
    const indication = next(errorIndicationFor(0xdead), 'error indication');
    const before = gnb.counters();
    send(encodeGtpu({ type: GtpuMessageType.gPdu, teid: 0xdead, payload: icmpEcho(DN, '10.45.0.9', 1, 1) }));
    const ies = decodeErrorIndication((await indication).message.payload);
    assert.ok(ies.ok);
    assert.equal(ies.teid, 0xdead);
    assert.deepEqual([...ies.peerAddress], GNB.split('.').map(Number));
    for (let i = 0; i < 50; i++) send(encodeGtpu({ type: GtpuMessageType.gPdu, teid: 0xbeef00 + i }));
    await waitFor(() => gnb.counters().dropUnknownTeid === before.dropUnknownTeid + 51);
    const c = gnb.counters();
    assert.ok(c.errorIndicationsSent - before.errorIndicationsSent <= 21, JSON.stringify(c));
    assert.ok(c.errorIndicationsSuppressed - before.errorIndicationsSuppressed >= 30);
  });

  it('refuses a downlink TEID in use and more tunnels than its table holds; a refused TUN is gone', async () => {
    const t = await ue({ ueIpv4: '10.45.3.2' });
    const namespace = namespaces[0] ?? '';
    const again = await gnb.bringUp(
      { ...t.session, ueIpv4: '10.45.3.3', uplinkTeid: 1 },
      { namespace, tunName: `pmnsd${id}`, routes: [] },
    );
    assert.deepEqual(again.ok ? undefined : again.error, 'in-use');
    assert.equal(await tunExists(namespace, `pmnsd${id}`), false);
    const results = [];
    for (let i = gnb.tunnels; i <= 24; i++) {
      teid += 2;
      results.push(
        await gnb.bringUp(
          {
            pduSessionId: 2,
            ueIpv4: `10.45.4.${i}`,
            qfi: 1,
            upfAddress: UPF,
            uplinkTeid: teid,
            downlinkTeid: teid + 1,
          },
          { namespace, routes: [] },
        ),
      );
    }
    assert.deepEqual(
      results.map((r) => (r.ok ? 'ok' : r.error)),
      [...Array<string>(results.length - 1).fill('ok'), 'table-full'],
    );
    for (const r of results) if (r.ok) r.value.release();
  });

  it('survives malformed and random datagrams on N3 (fixed-seed fuzz), counting them, and still answers', async () => {
    const t = await ue({ ueIpv4: '10.45.5.2' });
    const random = prng(38415);
    const bytes = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(random() * 256));
    const before = gnb.counters();
    const cases: Uint8Array[] = [
      new Uint8Array(),
      Uint8Array.of(0x30),
      Uint8Array.of(0x30, 255, 0, 200, 0, 0, 0, 1),
      Uint8Array.of(0x34, 255, 0, 8, 0, 0, 0, 1, 0, 0, 0, 0x85, 0, 0, 0, 0),
      Uint8Array.of(0x34, 255, 0, 8, 0, 0, 0, 1, 0, 0, 0, 0xe0, 1, 0, 0, 0),
      encodeGtpu({
        type: GtpuMessageType.gPdu,
        teid: t.session.downlinkTeid,
        payload: Buffer.alloc(65_000, 0x45),
      }),
    ];
    for (let i = 0; i < 2000; i++) {
      const kind = i % 3;
      if (kind === 0) cases.push(bytes(Math.floor(random() * 64)));
      else if (kind === 1)
        cases.push(
          encodeGtpu({ type: 255, teid: t.session.downlinkTeid, payload: bytes(Math.floor(random() * 80)) }),
        );
      else
        cases.push(Uint8Array.of(0x30 | Math.floor(random() * 8), ...bytes(7 + Math.floor(random() * 40))));
    }
    for (const datagram of cases) send(datagram);
    await waitFor(() => gnb.counters().n3Received >= before.n3Received + cases.length);
    const c = gnb.counters();
    assert.equal(c.n3Received, before.n3Received + cases.length);
    assert.ok(c.dropMalformed - before.dropMalformed >= 600, JSON.stringify(c));
    const echo = next(
      (r) => r.message.type === GtpuMessageType.echoResponse && r.message.sequence === 99,
      'echo',
    );
    send(encodeEchoRequest(99));
    await echo;
    // The UE still gets its downlink.
    const reply = next(uplinkOf(t), 'echo reply after the fuzz');
    downlink(t, icmpEcho(DN, '10.45.5.2', 5, 5));
    await reply;
  });

  it('removes the TUN device when its namespace does not exist', async () => {
    const before = gnb.tunnels;
    teid += 2;
    const refused = await gnb.bringUp(
      {
        pduSessionId: 3,
        ueIpv4: '10.45.8.2',
        qfi: 1,
        upfAddress: UPF,
        uplinkTeid: teid,
        downlinkTeid: teid + 1,
      },
      { namespace: `pmnsnone${id}`, tunName: `pmnsn${id}` },
    );
    assert.deepEqual(refused.ok ? undefined : refused.error, 'namespace');
    assert.equal(gnb.tunnels, before);
    await assert.rejects(run('ip', ['link', 'show', 'dev', `pmnsn${id}`]));
  });

  it('removes the TUN device when the tunnel is released', async () => {
    const t = await ue({ ueIpv4: '10.45.6.2' });
    assert.ok(await tunExists(t.namespace, t.tunName));
    t.release();
    t.release();
    assert.equal(await tunExists(t.namespace, t.tunName), false);
  });

  it('sends only GTP-U that tshark decodes as uplink (or forwarded downlink) G-PDUs with the QFI, without complaint', async () => {
    // Its own uplink (the UE kernel's echo reply, QFI 3), beside every G-PDU the earlier tests made.
    const t = await ue({ ueIpv4: '10.45.7.2', qfi: 3 });
    const reply = next(uplinkOf(t), 'echo reply');
    downlink(t, icmpEcho(DN, '10.45.7.2', 7, 7));
    await reply;
    const gPdus = all.filter((r) => r.message.type === GtpuMessageType.gPdu);
    assert.ok(
      gPdus.some(
        (r) => r.message.teid === t.session.uplinkTeid && readPduSessionContainer(r.message)?.qfi === 3,
      ),
    );
    const rows = await tsharkFields(
      gPdus.map((r) => r.bytes),
      [
        'gtp.message',
        'gtp.teid',
        'gtp.ext_hdr.pdu_ses_con.pdu_type',
        'gtp.ext_hdr.pdu_ses_con.qos_flow_id',
        '_ws.malformed',
        '_ws.expert.severity',
      ],
      { protocol: 'gtp' },
    );
    rows.forEach(([type, teidField, pduType, qfi, malformed, severities], i) => {
      const r = gPdus[i]!;
      assert.deepEqual(
        [Number(type), Number(teidField), Number(pduType), Number(qfi), malformed],
        [
          255,
          r.message.teid,
          r.message.teid === FORWARD_TEID ? 0 : 1,
          readPduSessionContainer(r.message)?.qfi,
          '',
        ],
        rows[i]?.join(';'),
      );
      assert.ok(worstSeverity(severities) < EXPERT_WARNING, rows[i]?.join(';'));
    });
  });
});

describe('a gNB user plane with its N3 socket in a namespace of its own', { skip }, () => {
  const namespace = `pmnsg${id}`;
  const address = `10.251.${id % 250}.1`;

  before(async () => {
    await run('ip', ['netns', 'add', namespace]);
    await run('ip', ['-n', namespace, 'link', 'add', 'n3', 'type', 'veth', 'peer', 'name', 'n3peer']);
    await run('ip', ['-n', namespace, 'addr', 'add', `${address}/32`, 'dev', 'n3']);
    for (const dev of ['n3', 'n3peer']) await run('ip', ['-n', namespace, 'link', 'set', dev, 'up']);
    await run('ip', ['-n', namespace, 'link', 'set', 'lo', 'up']);
  });
  after(() => run('ip', ['netns', 'del', namespace]).catch(() => undefined));

  it('binds an address only that namespace has, and answers an Echo Request sent there', async () => {
    assert.throws(() => createGnbUserPlane({ n3Address: address, n3Port: 0 }), { code: 'EADDRNOTAVAIL' });
    const gnb = createGnbUserPlane({ n3Address: address, n3Port: 0, n3Namespace: namespace });
    try {
      const script = `const s = require('dgram').createSocket('udp4');
        s.on('message', (m) => { process.stdout.write(m.toString('hex')); process.exit(0); });
        s.send(Buffer.from('${Buffer.from(encodeEchoRequest(7)).toString('hex')}', 'hex'), ${gnb.n3Port}, '${address}');
        setTimeout(() => process.exit(1), 20000);`;
      const { stdout } = await run('ip', ['netns', 'exec', namespace, process.execPath, '-e', script]);
      const answer = decodeGtpu(Buffer.from(stdout, 'hex'));
      assert.ok(answer.ok);
      assert.deepEqual([answer.message.type, answer.message.sequence], [GtpuMessageType.echoResponse, 7]);
    } finally {
      gnb.close();
    }
  });

  it('refuses a namespace that does not exist or a name that is a path', () => {
    assert.throws(() => createGnbUserPlane({ n3Address: address, n3Port: 0, n3Namespace: `pmnnone${id}` }), {
      code: 'ENOENT',
      syscall: 'open',
    });
    for (const name of ['', '../x', '.', '..'])
      assert.throws(
        () => createGnbUserPlane({ n3Address: address, n3Port: 0, n3Namespace: name }),
        TypeError,
      );
  });
});

describe('the native user plane object', { skip: load.ok ? undefined : load.error.message }, () => {
  it('counts from zero, and once closed refuses every method with its code; closing twice is harmless', () => {
    assert.ok(load.ok);
    const native = new load.addon.GnbUserPlane({ n3Address: '127.0.0.1', n3Port: 0 });
    assert.ok(native.n3Port() > 0);
    assert.ok(Object.values(native.counters()).every((value) => value === 0));
    assert.equal(native.sessionCounters(1), undefined);
    native.close();
    native.close();
    for (const call of [() => native.counters(), () => native.n3Port(), () => native.removeSession(1)]) {
      assert.throws(call, { code: 'ERR_GNB_USER_PLANE_CLOSED', message: 'the user plane is closed' });
    }
  });
});

describe('UE TUN configuration', () => {
  it('gives the device no link-local address, the MTU, the addresses and default routes of its families', () => {
    assert.deepEqual(
      ueTunCommands('tun7', { namespace: 'n', ueIpv4: '10.45.0.2', ueIpv6: '2001:db8::1', mtu: 1400 }),
      [
        'link set dev tun7 addrgenmode none',
        'link set dev tun7 mtu 1400 up',
        'addr add 10.45.0.2/32 dev tun7',
        'addr add 2001:db8::1/64 dev tun7 nodad',
        'route replace default dev tun7',
        'route replace ::/0 dev tun7',
      ],
    );
    assert.deepEqual(
      ueTunCommands('tun7', { namespace: 'n', ueIpv4: '10.45.0.2', routes: ['10.99.0.0/16'] }).slice(2),
      ['addr add 10.45.0.2/32 dev tun7', 'route replace 10.99.0.0/16 dev tun7'],
    );
  });

  it('takes <prefix>::1 of a /64 for the UE', () => {
    assert.equal(firstAddressOf('2001:db8:45:7::'), '2001:db8:45:7::1');
    assert.equal(firstAddressOf('2001:db8:0:0:1:2:3:4'), '2001:db8:0:0::1');
    assert.equal(firstAddressOf('10.0.0.1'), undefined);
  });
});

/** Waits for the gNB user plane's thread (20 s of wall time at most). */
const waitFor = (done: () => boolean) => waitUntil(done.toString(), done);
