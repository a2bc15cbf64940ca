/**
 * The UPF's joining of uplink TCP packets into GSO writes to its N6 TUN (native/upf/tun-gro.c),
 * through the C driver beside this file: packets as the gNB's pieces or a wire bring them, the writes
 * it makes (one per segment or packet, in order), and each joined segment cut again by tun-gso.c,
 * which must give back the very packets that went in. Needs `cc`; skipped otherwise.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hasCommand } from '../../helpers/has-command.ts';
import {
  ACK,
  buildDriver,
  drive,
  FIN,
  GSO_TCPV4,
  GSO_TCPV6,
  NEEDS_CSUM,
  pattern,
  PSH,
  pseudoSeed,
  readVnet,
  SYN,
  tcpPacket,
  V4_DST,
  V4_SRC,
} from './tcp-frames.ts';
import { udpPacket } from './ip-packets.ts';

const skip = hasCommand('cc') ? undefined : 'no cc';

/** A run of MSS-sized packets of one connection, as TSO cuts a segment: ids and sequence numbers on. */
function run(
  family: 4 | 6,
  count: number,
  options: { seq?: number; id?: number; mss?: number; last?: number; lastFlags?: number } = {},
): Buffer[] {
  const { seq = 1000, id = 100, mss = 1448, lastFlags = ACK } = options;
  const last = options.last ?? mss;
  return Array.from({ length: count }, (_, i) =>
    tcpPacket(
      family,
      seq + i * mss,
      i === count - 1 ? lastFlags : ACK,
      pattern(i === count - 1 ? last : mss, i),
      {
        id: id + i,
      },
    ),
  );
}

describe('TCP packets joined into GSO writes to a TUN (tun-gro.c)', { skip }, () => {
  let directory = '';
  let joiner = '';
  let cutter = '';
  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'pmn-tun-gro-'));
    joiner = await buildDriver(directory, 'tun-gro-driver', ['tun-gro.c', 'n3-socket.c']);
    cutter = await buildDriver(directory, 'tun-gso-driver', ['tun-gso.c']);
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  /** The writes the joiner makes of `packets`: each one's packet count and bytes (virtio_net_hdr first). */
  async function join_(packets: Buffer[]): Promise<{ packets: number; frame: Buffer }[]> {
    const file = join(directory, 'writes');
    const input = Buffer.concat(
      packets.flatMap((p) => {
        const length = Buffer.alloc(2);
        length.writeUInt16LE(p.length);
        return [length, p];
      }),
    );
    const { code, out } = await drive(joiner, [file], input);
    assert.equal(code, 0);
    const bytes = readFileSync(file);
    let start = 0;
    return out
      .toString()
      .trim()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        const [count, ok, end] = line.split(' ').map(Number);
        assert.equal(ok, 1);
        const frame = bytes.subarray(start, end);
        start = end ?? 0;
        return { packets: count ?? 0, frame };
      });
  }

  /** A written segment cut again by tun-gso.c: its packets. */
  async function cut(frame: Buffer): Promise<Buffer[]> {
    const { code, out } = await drive(cutter, [], frame);
    assert.equal(code, 0);
    const packets: Buffer[] = [];
    for (let at = 24; at < out.length;) {
      const length = out.readUInt32LE(at + 8);
      packets.push(out.subarray(at + 16, at + 16 + length));
      at += 16 + length;
    }
    return packets;
  }

  it('joins a run of IPv4 packets into one GSO write that cuts back into the same packets', async () => {
    const packets = run(4, 10, { last: 700, lastFlags: PSH | ACK });
    const writes = await join_(packets);
    assert.equal(writes.length, 1);
    const [write] = writes;
    assert.ok(write !== undefined);
    assert.equal(write.packets, 10);
    const h = readVnet(write.frame);
    assert.deepEqual(h, {
      flags: NEEDS_CSUM,
      gsoType: GSO_TCPV4,
      hdrLen: 52,
      gsoSize: 1448,
      start: 20,
      offset: 16,
    });
    assert.equal(write.frame.length, 10 + 52 + 9 * 1448 + 700);
    // The checksum left partial holds the pseudo-header sum over the whole TCP length, as a sender's
    // TSO segment does: what the kernel finishes from if it cuts the segment again to forward it.
    assert.equal(write.frame.readUInt16BE(10 + 20 + 16), pseudoSeed(V4_SRC, V4_DST, 6, 32 + 9 * 1448 + 700));
    assert.deepEqual(await cut(write.frame), packets);
  });

  it('joins IPv6 packets the same way', async () => {
    const packets = run(6, 5, { mss: 1000, last: 1000 });
    const writes = await join_(packets);
    assert.deepEqual(
      writes.map((w) => w.packets),
      [5],
    );
    assert.equal(readVnet(writes[0]?.frame ?? Buffer.alloc(10)).gsoType, GSO_TCPV6);
    assert.deepEqual(await cut(writes[0]?.frame ?? Buffer.alloc(0)), packets);
  });

  it('ends a segment where the kernel’s GRO would, and writes what it does not join as it is, in order', async () => {
    const a = run(4, 3, { seq: 1000, id: 1 });
    // The next sequence number and identification, another ACK number: not joined to a.
    const otherAck = [3, 4].map((i) =>
      tcpPacket(4, 1000 + i * 1448, ACK, pattern(1448, i), { id: 1 + i, ack: 2 }),
    );
    // The next identification, one packet's sequence numbers missing: a new segment.
    const gap = [6, 7].map((i) => tcpPacket(4, 1000 + i * 1448, ACK, pattern(1448, i), { id: i, ack: 2 }));
    // It would continue gap, but its TCP checksum is wrong: written alone, for the kernel to drop.
    const badChecksum = tcpPacket(4, 1000 + 8 * 1448, ACK, pattern(1448, 8), { id: 8, ack: 2 });
    badChecksum[badChecksum.length - 1] = (badChecksum[badChecksum.length - 1] ?? 0) ^ 0xff;
    const syn = tcpPacket(4, 5, SYN, Buffer.alloc(0), { id: 9 });
    const udp = udpPacket('10.45.0.2', '10.99.0.1', 40000, 5002, pattern(100));
    const fin = run(4, 2, { seq: 90_000, id: 20, lastFlags: FIN | ACK });
    const afterFin = run(4, 2, { seq: 90_000 + 2 * 1448, id: 22 });
    const packets = [...a, ...otherAck, ...gap, badChecksum, syn, udp, ...fin, ...afterFin];
    const writes = await join_(packets);
    assert.deepEqual(
      writes.map((w) => w.packets),
      [3, 2, 2, 1, 1, 1, 2, 2],
    );
    // Unjoined packets are written unchanged behind a zero header; joined ones cut back exactly.
    const back: Buffer[] = [];
    for (const w of writes) {
      if (w.packets === 1) {
        assert.deepEqual(readVnet(w.frame), {
          flags: 0,
          gsoType: 0,
          hdrLen: 0,
          gsoSize: 0,
          start: 0,
          offset: 0,
        });
        back.push(w.frame.subarray(10));
      } else back.push(...(await cut(w.frame)));
    }
    assert.deepEqual(back, packets);
  });

  it('writes at most 64 packets and 64 KiB in one segment', async () => {
    const packets = run(4, 100, { mss: 500 });
    const writes = await join_(packets);
    assert.deepEqual(
      writes.map((w) => w.packets),
      [64, 36],
    );
    const big = run(4, 50, { mss: 1448 });
    const bigWrites = await join_(big);
    assert.ok(bigWrites.every((w) => w.frame.length - 10 <= 65535));
    assert.equal(
      bigWrites.reduce((n, w) => n + w.packets, 0),
      50,
    );
    assert.deepEqual(
      bigWrites.map((w) => w.packets),
      [45, 5],
    );
  });
});
