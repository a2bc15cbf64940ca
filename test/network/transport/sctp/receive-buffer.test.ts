import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { InboundMessage } from '../../../../src/network/transport/n2-transport.ts';
import type { DataChunk } from '../../../../src/network/transport/sctp/chunks.ts';
import { ReceiveBuffer } from '../../../../src/network/transport/sctp/receive-buffer.ts';

const LIMITS = { receiveWindow: 256 * 1024, maxMessageSize: 128 * 1024, maxOutOfOrderTsns: 4096 };

function data(tsn: number, userData: Uint8Array, beginning = true, ending = true): DataChunk {
  return {
    tsn,
    streamId: 0,
    ssn: 0,
    ppid: 60,
    userData,
    unordered: false,
    beginning,
    ending,
    immediate: false,
  };
}

/** A packet as a link hands it over: the user data sits at `offset` of a buffer of `packetSize` bytes. */
function inPacket(packetSize: number, offset: number, length: number, fill: number): Uint8Array {
  const packet = new Uint8Array(packetSize);
  const userData = packet.subarray(offset, offset + length);
  userData.fill(fill);
  return userData;
}

describe('receive buffer: what it keeps of a received packet', () => {
  it('delivers a message that fills most of its packet as a view of it, without a copy', () => {
    const buffer = new ReceiveBuffer(1, 1, LIMITS);
    const deliver: InboundMessage[] = [];
    const userData = inPacket(1480, 28, 1440, 7);
    assert.equal(buffer.receive(data(1, userData), deliver), 'accepted');
    assert.equal(deliver.length, 1);
    assert.equal(deliver[0]!.payload.buffer, userData.buffer);
    assert.deepEqual(deliver[0]!.payload, userData);
  });

  it('copies a small chunk of a large packet, so that it does not pin the packet', () => {
    const buffer = new ReceiveBuffer(1, 1, LIMITS);
    const deliver: InboundMessage[] = [];
    const userData = inPacket(65_000, 28, 100, 9);
    assert.equal(buffer.receive(data(1, userData), deliver), 'accepted');
    assert.notEqual(deliver[0]!.payload.buffer, userData.buffer);
    assert.deepEqual([...deliver[0]!.payload], [...userData]);
  });

  it('reassembles fragments held as views into one message of their bytes in order', () => {
    const buffer = new ReceiveBuffer(1, 1, LIMITS);
    const deliver: InboundMessage[] = [];
    const first = inPacket(1480, 28, 1440, 1);
    const second = inPacket(600, 28, 560, 2);
    assert.equal(buffer.receive(data(1, first, true, false), deliver), 'accepted');
    assert.equal(deliver.length, 0);
    // The link never writes to a packet it handed over; the fragment held is the packet's bytes.
    assert.equal(buffer.receive(data(2, second, false, true), deliver), 'accepted');
    assert.equal(deliver.length, 1);
    assert.deepEqual([...deliver[0]!.payload], [...first, ...second]);
    assert.equal(buffer.heldBytes, 0);
  });
});
