import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ipv6Text } from '../../../src/network/common/ipv6-text.ts';
import { decodeFlowReports, decodeUsageCounts } from '../../../src/network/upf/flow-records.ts';

describe('drained flow and usage records', () => {
  it('decodes the forwarder’s 80-octet ended-flow records (native/upf/flows.h layout) as flow reports', () => {
    const record = Buffer.alloc(80);
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
    record.writeBigUInt64LE(2n ** 40n + 300n, 56);
    record.writeDoubleLE(1_700_000_000_000, 64);
    record.writeDoubleLE(1_700_000_031_000, 72);
    const unknown = Buffer.from(record);
    unknown.writeUInt32LE(8, 0);
    const protocol0 = Buffer.from(record);
    protocol0[5] = 0;
    const v4 = Buffer.alloc(80);
    v4.writeUInt32LE(7, 0);
    v4[4] = 4;
    v4[5] = 1;
    v4.set([10, 45, 0, 2], 12);
    v4.set([8, 8, 8, 8], 28);
    v4.writeBigUInt64LE(1n, 48);
    v4.writeBigUInt64LE(84n, 56);
    const imsiOf = (id: number) => (id === 7 ? '001010000000007' : undefined);
    assert.deepEqual(
      decodeFlowReports(Buffer.concat([record, unknown, protocol0, v4, Buffer.alloc(10)]), imsiOf),
      [
        {
          subscriberId: '001010000000007',
          protocol: 17,
          direction: 'downlink',
          action: 'drop',
          sourcePort: 53,
          destinationPort: 40000,
          sourceIp: '2001:db8::1',
          destinationIp: '2001:db8:1:2::9',
          packets: 3,
          bytes: 2 ** 40 + 300,
          startTime: 1_700_000_000_000,
          endTime: 1_700_000_031_000,
        },
        {
          subscriberId: '001010000000007',
          protocol: 1,
          direction: 'uplink',
          action: 'allow',
          sourcePort: 0,
          destinationPort: 0,
          sourceIp: '10.45.0.2',
          destinationIp: '8.8.8.8',
          packets: 1,
          bytes: 84,
          startTime: 0,
          endTime: 0,
        },
      ],
    );
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
