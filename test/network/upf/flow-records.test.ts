import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeFlowCounts, decodeUsageCounts, ipv6Text } from '../../../src/network/upf/flow-records.ts';

describe('drained flow and usage records', () => {
  it('decodes the forwarder’s 64-octet flow records (native/upf/flows.c layout)', () => {
    const record = Buffer.alloc(64);
    record.writeUInt32LE(7, 0);
    record[4] = 6;
    record[5] = 17;
    record[6] = 1;
    record[7] = 1;
    record.writeUInt16LE(53, 8);
    record.writeUInt16LE(40000, 10);
    Buffer.from('20010db8000000000000000000000001', 'hex').copy(record, 12);
    Buffer.from('20010db8000100020000000000000009', 'hex').copy(record, 28);
    record.writeBigUInt64LE(3n, 48);
    record.writeBigUInt64LE(300n, 56);
    assert.deepEqual(decodeFlowCounts(Buffer.concat([record, Buffer.alloc(10)])), [
      {
        sessionId: 7,
        protocol: 17,
        direction: 'downlink',
        action: 'drop',
        sourcePort: 53,
        destinationPort: 40000,
        sourceIp: '2001:db8::1',
        destinationIp: '2001:db8:1:2::9',
        packets: 3,
        bytes: 300,
      },
    ]);
  });

  it('decodes usage records', () => {
    const record = Buffer.alloc(24);
    record.writeUInt32LE(9, 0);
    record.writeBigUInt64LE(1000n, 8);
    record.writeBigUInt64LE(2000n, 16);
    assert.deepEqual(decodeUsageCounts(record), [{ sessionId: 9, uplinkBytes: 1000, downlinkBytes: 2000 }]);
  });

  it('writes IPv6 addresses as RFC 5952 says (longest zero run, first on a tie, not a single group)', () => {
    const text = (hex: string) => ipv6Text(Buffer.from(hex, 'hex'));
    assert.equal(text('00000000000000000000000000000000'), '::');
    assert.equal(text('20010db8000000010000000000000001'), '2001:db8:0:1::1');
    assert.equal(text('20010db8000000000001000000000001'), '2001:db8::1:0:0:1');
    assert.equal(text('20010db8000100010001000100010001'), '2001:db8:1:1:1:1:1:1');
    assert.equal(text('20010db8000000010001000100010001'), '2001:db8:0:1:1:1:1:1');
  });
});
