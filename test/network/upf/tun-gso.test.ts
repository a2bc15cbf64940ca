/**
 * The forwarders' TCP segmentation of TUN reads (native/upf/tun-gso.c), through the C driver beside
 * this file: crafted reads as the kernel hands them over (a virtio_net_hdr in front: GSO TCP segments
 * of up to 64 KiB, packets whose checksum is left to the device) cut into pieces, which tshark decodes
 * with its checksum checks on; the pieces' payloads must add up to the segment's. Needs `cc` and
 * `tshark`; skipped with the reason otherwise.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { hasCommand } from '../../helpers/has-command.ts';
import {
  ACK,
  buildDriver,
  CWR,
  drive,
  FIN,
  GSO_ECN,
  GSO_TCPV4,
  GSO_TCPV6,
  GSO_UDP_L4,
  ipv4Header,
  ipv6Header,
  NEEDS_CSUM,
  pattern,
  PSH,
  pseudoSeed,
  tcpHeader,
  V4_DST,
  V4_SRC,
  vnet,
} from './tcp-frames.ts';

const run = promisify(execFile);
const skip = !hasCommand('cc') ? 'no cc' : !hasCommand('tshark') ? 'no tshark' : undefined;

describe('TCP segmentation and checksums of TUN reads (tun-gso.c)', { skip }, () => {
  let directory = '';
  let driver = '';
  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'pmn-tun-gso-'));
    driver = await buildDriver(directory, 'tun-gso-driver', ['tun-gso.c']);
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  /** The driver's pcap for one read, or its exit code when it refused it. */
  const cut = async (read: Buffer): Promise<{ code: number; pcap: Buffer }> => {
    const { code, out } = await drive(driver, [], read);
    return { code, pcap: out };
  };

  /** The pieces' IP packets, from the pcap. */
  function packets(pcap: Buffer): Buffer[] {
    const out: Buffer[] = [];
    for (let at = 24; at < pcap.length;) {
      const length = pcap.readUInt32LE(at + 8);
      out.push(pcap.subarray(at + 16, at + 16 + length));
      at += 16 + length;
    }
    return out;
  }

  /** tshark's decoding of each piece, checksums checked: the fields asked, one row per packet. */
  async function decode(pcap: Buffer, fields: string[]): Promise<string[][]> {
    const file = join(directory, `pieces-${fields.length}-${pcap.length}.pcap`);
    writeFileSync(file, pcap);
    const { stdout } = await run(
      'tshark',
      [
        '-r',
        file,
        '-o',
        'ip.check_checksum:TRUE',
        '-o',
        'tcp.check_checksum:TRUE',
        '-o',
        'udp.check_checksum:TRUE',
        '-T',
        'fields',
        '-E',
        'separator=,',
        ...fields.flatMap((f) => ['-e', f]),
      ],
      { maxBuffer: 16 << 20 },
    );
    return stdout
      .trim()
      .split('\n')
      .map((line) => line.split(','));
  }

  it('cuts a 62,000-octet IPv4 GSO segment into MSS pieces with their own headers and checksums', async () => {
    const payload = pattern(62_000);
    const tcp = tcpHeader(0xffffe000, CWR | PSH | ACK | FIN, 12);
    const ip = ipv4Header(6, 20 + tcp.length + payload.length, 0x1234);
    // hdr_len 128: the kernel's hint (skb_headlen), more than the headers; the pieces must not use it.
    const read = Buffer.concat([vnet(NEEDS_CSUM, GSO_TCPV4 | GSO_ECN, 128, 1448, 20, 16), ip, tcp, payload]);
    const { code, pcap } = await cut(read);
    assert.equal(code, 0);
    const pieces = packets(pcap);
    assert.equal(pieces.length, 43); // 42 x 1,448 + 1,184
    assert.deepEqual(Buffer.concat(pieces.map((p) => p.subarray(52))), payload);
    const rows = await decode(pcap, [
      'ip.len',
      'ip.id',
      'ip.checksum.status',
      'tcp.seq_raw',
      'tcp.flags',
      'tcp.len',
      'tcp.checksum.status',
      'tcp.options',
      '_ws.expert.severity',
    ]);
    assert.equal(rows.length, 43);
    rows.forEach(([len, id, ipCheck, seq, flags, tcpLen, tcpCheck, options], i) => {
      const chunk = i < 42 ? 1448 : 62_000 - 42 * 1448;
      assert.equal(Number(len), 52 + chunk, `piece ${i} length`);
      assert.equal(Number(id), 0x1234 + i, `piece ${i} identification`);
      assert.equal(ipCheck, '1', `piece ${i} IPv4 header checksum`); // 1: good
      assert.equal(Number(seq), (0xffffe000 + i * 1448) % 2 ** 32, `piece ${i} sequence number`);
      const expected = i === 0 ? CWR | ACK : i === 42 ? PSH | ACK | FIN : ACK;
      assert.equal(Number(flags), expected, `piece ${i} flags`);
      assert.equal(Number(tcpLen), chunk);
      assert.equal(tcpCheck, '1', `piece ${i} TCP checksum`);
      assert.equal(options, '010101010101010101010101', `piece ${i} options copied`);
    });
  });

  it('cuts an IPv6 GSO segment, payload length per piece, checksum over the IPv6 pseudo-header', async () => {
    const payload = pattern(5000);
    const tcp = tcpHeader(1000, PSH | ACK, 0);
    const read = Buffer.concat([
      vnet(NEEDS_CSUM, GSO_TCPV6, 60, 1000, 40, 16),
      ipv6Header(tcp.length + payload.length),
      tcp,
      payload,
    ]);
    const { code, pcap } = await cut(read);
    assert.equal(code, 0);
    const pieces = packets(pcap);
    assert.equal(pieces.length, 5);
    assert.deepEqual(Buffer.concat(pieces.map((p) => p.subarray(60))), payload);
    const rows = await decode(pcap, ['ipv6.plen', 'tcp.seq_raw', 'tcp.flags', 'tcp.checksum.status']);
    assert.deepEqual(
      rows.map(([plen, seq, flags, check]) => [Number(plen), Number(seq), Number(flags), check]),
      [0, 1, 2, 3, 4].map((i) => [1020, 1000 + 1000 * i, i === 4 ? PSH | ACK : ACK, '1']),
    );
  });

  it('finishes the checksum of a packet that is not GSO from its seed (odd length, UDP)', async () => {
    const data = pattern(101);
    const udp = Buffer.alloc(8);
    udp.writeUInt16BE(40000, 0);
    udp.writeUInt16BE(5002, 2);
    udp.writeUInt16BE(8 + data.length, 4);
    udp.writeUInt16BE(pseudoSeed(V4_SRC, V4_DST, 17, 8 + data.length), 6);
    const ip = ipv4Header(17, 20 + 8 + data.length, 7);
    // A non-GSO read keeps its IPv4 header as the kernel wrote it: give it a right checksum.
    let sum = 0;
    for (let i = 0; i < 20; i += 2) sum += ip.readUInt16BE(i);
    while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
    ip.writeUInt16BE(~sum & 0xffff, 10);
    const { code, pcap } = await cut(Buffer.concat([vnet(NEEDS_CSUM, 0, 0, 0, 20, 6), ip, udp, data]));
    assert.equal(code, 0);
    assert.deepEqual(packets(pcap)[0]?.subarray(28), data);
    assert.deepEqual(await decode(pcap, ['udp.length', 'udp.checksum.status', 'ip.checksum.status']), [
      ['109', '1', '1'],
    ]);
  });

  it('passes a packet without offload unchanged', async () => {
    const packet = Buffer.concat([ipv4Header(6, 40, 1), tcpHeader(5, ACK, 0, 0x1234)]);
    const { code, pcap } = await cut(Buffer.concat([vnet(0, 0, 0, 0, 0, 0), packet]));
    assert.equal(code, 0);
    assert.deepEqual(packets(pcap), [packet]);
  });

  it('refuses reads it cannot cut, without crashing', async () => {
    const tcp = tcpHeader(1, ACK, 0);
    const v4 = (h: Buffer, t: Buffer = tcp) => Buffer.concat([h, ipv4Header(6, 1000, 1), t, pattern(960)]);
    const refused = {
      'shorter than the header': Buffer.alloc(5),
      'GSO size 0': v4(vnet(NEEDS_CSUM, GSO_TCPV4, 40, 0, 20, 16)),
      'a GSO type the TUN does not offer (UDP L4)': v4(vnet(NEEDS_CSUM, GSO_UDP_L4, 28, 500, 20, 6)),
      'TCPv6 GSO of an IPv4 packet': v4(vnet(NEEDS_CSUM, GSO_TCPV6, 40, 500, 20, 16)),
      'a TCP start inside the IPv4 header': v4(vnet(NEEDS_CSUM, GSO_TCPV4, 40, 500, 12, 16)),
      'a TCP header running past the end': Buffer.concat([
        vnet(NEEDS_CSUM, GSO_TCPV4, 40, 500, 20, 16),
        ipv4Header(6, 40, 1),
        tcpHeader(1, ACK, 0).subarray(0, 12),
        Buffer.from([0xf0]), // data offset 60 octets
      ]),
      // A read shorter or longer than its IP header says (a datagram cut short, or junk after it).
      'an IPv4 total length beyond the read': Buffer.concat([
        vnet(NEEDS_CSUM, GSO_TCPV4, 40, 500, 20, 16),
        ipv4Header(6, 2000, 1),
        tcp,
        pattern(960),
      ]),
      'an IPv6 payload length short of the read': Buffer.concat([
        vnet(NEEDS_CSUM, GSO_TCPV6, 60, 500, 40, 16),
        ipv6Header(500),
        tcp,
        pattern(960),
      ]),
      'a checksum field past the end': Buffer.concat([
        vnet(NEEDS_CSUM, 0, 0, 0, 20, 60),
        ipv4Header(17, 40, 1),
        Buffer.alloc(20),
      ]),
    };
    for (const [what, read] of Object.entries(refused)) assert.equal((await cut(read)).code, 3, what);
    // A GSO read whose IPv4 header lies (a protocol other than TCP) without a checksum start to go by.
    const udpHeader = ipv4Header(17, 1000, 1);
    assert.equal(
      (await cut(Buffer.concat([vnet(0, GSO_TCPV4, 40, 500, 0, 0), udpHeader, tcp, pattern(960)]))).code,
      3,
    );
  });
});
