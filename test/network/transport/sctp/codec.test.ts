import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ChunkType,
  bytesToIp,
  decodeData,
  decodeInit,
  decodeSack,
  encodeChunk,
  encodeInit,
  encodeSack,
  ipToBytes,
} from '../../../../src/network/transport/sctp/chunks.ts';
import { crc32c } from '../../../../src/network/transport/sctp/crc32c.ts';
import { decodePacket, encodePacket, PacketBuilder } from '../../../../src/network/transport/sctp/packet.ts';
import { CookieSigner } from '../../../../src/network/transport/sctp/state-cookie.ts';

describe('CRC32c', () => {
  // RFC 3720 Appendix B.4 (iSCSI CRC32c examples); the RFC lists the bytes as sent, least significant first.
  it('matches the RFC 3720 B.4 vectors', () => {
    assert.equal(crc32c(new Uint8Array(32)), 0x8a9136aa);
    assert.equal(crc32c(new Uint8Array(32).fill(0xff)), 0x62a8ab43);
    assert.equal(crc32c(Uint8Array.from({ length: 32 }, (_, i) => i)), 0x46dd794e);
    assert.equal(crc32c(Uint8Array.from({ length: 32 }, (_, i) => 31 - i)), 0x113fdb5c);
    const readPdu = Uint8Array.from([
      0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    ]);
    assert.equal(crc32c(readPdu), 0xd9963a56);
  });

  it('gives the same value in pieces as at once, at every split and alignment', () => {
    const bytes = Uint8Array.from({ length: 77 }, (_, i) => (i * 37 + 11) & 0xff);
    const whole = crc32c(bytes);
    for (let split = 0; split <= bytes.length; split++) {
      assert.equal(crc32c(bytes, split, bytes.length, crc32c(bytes, 0, split)), whole);
    }
  });
});

describe('SCTP packet codec', () => {
  it('stamps a CRC32c that decodePacket accepts, and rejects a packet with one bit changed', () => {
    const packet = encodePacket(38412, 5000, 0x01020304, [encodeChunk(ChunkType.COOKIE_ACK, 0)]);
    const decoded = decodePacket(packet);
    assert.ok(decoded.ok);
    assert.deepEqual(
      { ...decoded.value, chunks: decoded.value.chunks.map((c) => c.type) },
      {
        sourcePort: 38412,
        destinationPort: 5000,
        verificationTag: 0x01020304,
        chunks: [ChunkType.COOKIE_ACK],
      },
    );
    const corrupt = packet.slice();
    corrupt[13]! ^= 0x10;
    assert.deepEqual(decodePacket(corrupt), { ok: false, error: 'bad CRC32c' });
  });

  it('frames DATA written in place with its padding, and decodes its fields', () => {
    const builder = new PacketBuilder(100, 1, 2, 3);
    assert.ok(builder.addData(3, 0xfffffffe, 7, 9, 60, Uint8Array.from([1, 2, 3, 4, 5])));
    const decoded = decodePacket(builder.finish());
    assert.ok(decoded.ok);
    const data = decodeData(decoded.value.chunks[0]!);
    assert.ok(data.ok);
    assert.equal(data.value.tsn, 0xfffffffe);
    assert.equal(data.value.streamId, 7);
    assert.equal(data.value.ssn, 9);
    assert.equal(data.value.ppid, 60);
    assert.deepEqual([...data.value.userData], [1, 2, 3, 4, 5]);
    assert.ok(data.value.beginning && data.value.ending && !data.value.unordered);
  });

  it('refuses a chunk whose length runs past the packet, an INIT with tag 0, and DATA without user data', () => {
    const packet = encodePacket(1, 2, 3, [encodeChunk(ChunkType.COOKIE_ACK, 0)]);
    packet[15] = 40;
    const crc = crc32c(Uint8Array.from([...packet.subarray(0, 8), 0, 0, 0, 0, ...packet.subarray(12)]));
    new DataView(packet.buffer).setUint32(8, crc, true);
    assert.equal(decodePacket(packet).ok, false);
    const init = encodeInit(
      ChunkType.INIT,
      { initiateTag: 0, aRwnd: 1, outboundStreams: 1, inboundStreams: 1, initialTsn: 1 },
      [],
    );
    assert.deepEqual(decodeInit({ type: 1, flags: 0, value: init.subarray(4) }), {
      ok: false,
      error: 'Initiate Tag is 0',
    });
    assert.deepEqual(decodeData({ type: 0, flags: 3, value: new Uint8Array(12) }), {
      ok: false,
      error: 'DATA without user data',
    });
  });

  it('round-trips a SACK with gap blocks and duplicates', () => {
    const sack = encodeSack(
      100,
      5000,
      [
        { start: 2, end: 3 },
        { start: 6, end: 6 },
      ],
      [99],
    );
    const decoded = decodeSack({ type: 3, flags: 0, value: sack.subarray(4) });
    assert.deepEqual(decoded, {
      ok: true,
      value: {
        cumulativeTsnAck: 100,
        aRwnd: 5000,
        gaps: [
          { start: 2, end: 3 },
          { start: 6, end: 6 },
        ],
        duplicates: 1,
      },
    });
  });

  it('converts IPv4 and IPv6 addresses to bytes and back', () => {
    for (const a of ['127.0.0.1', '10.200.0.2', '::1', 'fe80::1:2', '2001:db8::', '1:2:3:4:5:6:7:8']) {
      assert.equal(bytesToIp(ipToBytes(a)!), a);
    }
    assert.equal(ipToBytes('1.2.3'), undefined);
    assert.equal(ipToBytes('1::2::3'), undefined);
  });
});

describe('State cookie', () => {
  const contents = {
    createdAt: 1000,
    lifespan: 60000,
    localPort: 38412,
    peerPort: 5000,
    localTag: 1,
    peerTag: 2,
    localInitialTsn: 3,
    peerInitialTsn: 4,
    peerARwnd: 5,
    outboundStreams: 6,
    inboundStreams: 7,
    localTieTag: 0,
    peerTieTag: 0,
    peerAddresses: ['10.0.0.2', '::1'],
    linkPort: 9899,
  };

  it('verifies what it signed, within its lifespan', () => {
    const signer = new CookieSigner();
    assert.deepEqual(signer.verify(signer.sign(contents), 2000), { ok: true, value: contents });
  });

  it('refuses a cookie signed by another key or changed, and reports a stale one with its staleness', () => {
    const signer = new CookieSigner();
    const cookie = signer.sign(contents);
    assert.equal(new CookieSigner().verify(cookie, 2000).ok, false);
    const changed = cookie.slice();
    changed[17]! ^= 1;
    assert.deepEqual(signer.verify(changed, 2000), { ok: false, error: 'cookie signature does not match' });
    assert.deepEqual(signer.verify(cookie, 61_500), {
      ok: false,
      error: 'stale',
      staleness: 500_000,
      peerTag: 2,
    });
  });
});
