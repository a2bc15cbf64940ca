import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { COMMAND, decodePdu, encodePdu, STATUS, TAG } from '../../../src/network/smsc-link/pdu.ts';
import { parseReceipt } from '../../../src/network/smsc-link/receipt.ts';
import { shortMessage } from '../../helpers/smpp-server.ts';

/** A fixed-seed PRNG (mulberry32) so a failure repeats. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('SMPP 3.4 PDU codec', () => {
  it('encodes bind_transceiver as SMPP 3.4 4.1.5 lays it out', () => {
    const bytes = encodePdu(
      {
        kind: 'bind_transceiver',
        body: {
          systemId: 'pmn',
          password: 'pw',
          systemType: '',
          interfaceVersion: 0x34,
          addrTon: 0,
          addrNpi: 0,
          addressRange: '',
        },
      },
      1,
    );
    // command_length 29, command_id 9, status 0, sequence 1, "pmn\0" "pw\0" "\0" 0x34 0 0 "\0"
    assert.equal(
      Buffer.from(bytes).toString('hex'),
      '0000001c' +
        '00000009' +
        '00000000' +
        '00000001' +
        '706d6e00' +
        '707700' +
        '00' +
        '34' +
        '00' +
        '00' +
        '00',
    );
  });

  it('round-trips submit_sm with its TLVs, and takes message_payload as the message', () => {
    const body = shortMessage({
      from: '15550000001',
      to: '447700900123',
      text: 'hello',
      esmClass: 0x40,
      dataCoding: 8,
    });
    const decoded = decodePdu(encodePdu({ kind: 'submit_sm', body }, 42));
    assert.ok(decoded.ok && decoded.pdu.kind === 'submit_sm');
    assert.equal(decoded.pdu.header.sequence, 42);
    assert.deepEqual(
      { ...decoded.pdu.body, tlvs: undefined },
      { ...body, message: Uint8Array.from(body.message), tlvs: undefined },
    );
    const payload = encodePdu(
      {
        kind: 'deliver_sm',
        body: {
          ...shortMessage({ from: '1', to: '2' }),
          tlvs: new Map([[TAG.message_payload, Buffer.from('long text')]]),
        },
      },
      3,
    );
    const read = decodePdu(payload);
    assert.ok(read.ok && read.pdu.kind === 'deliver_sm');
    assert.equal(Buffer.from(read.pdu.body.message).toString(), 'long text');
  });

  it('refuses what does not decode with the command_status to answer', () => {
    const bytes = encodePdu(
      { kind: 'deliver_sm', body: shortMessage({ from: '1', to: '2', text: 'abc' }) },
      1,
    );
    const lying = bytes.slice();
    new DataView(lying.buffer).setUint32(0, bytes.length + 1);
    const l = decodePdu(lying);
    assert.ok(!l.ok && l.status === STATUS.ESME_RINVCMDLEN);
    const unknown = bytes.slice();
    new DataView(unknown.buffer).setUint32(4, 0x0102);
    const u = decodePdu(unknown);
    assert.ok(!u.ok && u.status === STATUS.ESME_RINVCMDID && u.header?.sequence === 1);
    const both = encodePdu(
      {
        kind: 'deliver_sm',
        body: {
          ...shortMessage({ from: '1', to: '2', text: 'x' }),
          tlvs: new Map([[TAG.message_payload, Uint8Array.of(1)]]),
        },
      },
      1,
    );
    assert.ok(!decodePdu(both).ok, 'short_message and message_payload together');
    const longAddress = Buffer.from(bytes);
    longAddress.fill(0x31, 19, longAddress.length); // source_addr never NULL-terminated
    assert.ok(!decodePdu(longAddress).ok);
    const enquireWithBody = Buffer.concat([encodePdu({ kind: 'enquire_link' }, 1), Buffer.from([0])]);
    enquireWithBody.writeUInt32BE(17, 0);
    assert.ok(!decodePdu(enquireWithBody).ok);
    assert.equal(COMMAND.generic_nack, 0x80000000);
  });

  it('reads a bodiless error response', () => {
    const r = decodePdu(encodePdu({ kind: 'submit_sm_resp', body: {} }, 9, STATUS.ESME_RTHROTTLED));
    assert.ok(r.ok && r.pdu.kind === 'submit_sm_resp' && r.pdu.body.id === undefined);
    assert.equal(r.ok && r.pdu.header.status, STATUS.ESME_RTHROTTLED);
  });

  it('maps every final receipt state and leaves the others open', () => {
    const states: Record<string, string | undefined> = {
      DELIVRD: 'delivered',
      EXPIRED: 'expired',
      DELETED: 'failed',
      UNDELIV: 'failed',
      REJECTD: 'failed',
      UNKNOWN: 'failed',
      ENROUTE: undefined,
      ACCEPTD: undefined,
    };
    for (const [stat, outcome] of Object.entries(states)) {
      const r = parseReceipt({
        ...shortMessage({ from: '1', to: '2', text: `id:abc stat:${stat}`, esmClass: 0x04 }),
        tlvs: new Map(),
      });
      assert.ok(r.ok);
      assert.equal(r.value.outcome, outcome, stat);
    }
    const odd = parseReceipt({
      ...shortMessage({ from: '1', to: '2', text: 'id:abc stat:BOGUS', esmClass: 0x04 }),
      tlvs: new Map(),
    });
    assert.ok(!odd.ok);
  });

  it('never throws on 100,000 random and mutated PDUs, and what decodes re-encodes to the same octets', () => {
    const random = prng(35);
    const seeds = [
      encodePdu(
        {
          kind: 'deliver_sm',
          body: shortMessage({
            from: '447700900123',
            to: '15550000001',
            text: 'id:1 stat:DELIVRD',
            esmClass: 4,
          }),
        },
        7,
      ),
      encodePdu({ kind: 'submit_sm_resp', body: { id: 'abc' } }, 8),
      encodePdu({ kind: 'bind_transceiver_resp', body: { id: 'smsc' } }, 1),
      encodePdu({ kind: 'enquire_link' }, 2),
    ];
    let decodedCount = 0;
    for (let i = 0; i < 100_000; i++) {
      let bytes: Uint8Array;
      if (i % 4 === 0) {
        bytes = Uint8Array.from({ length: Math.floor(random() * 80) }, () => Math.floor(random() * 256));
        if (bytes.length >= 16 && random() < 0.7) new DataView(bytes.buffer).setUint32(0, bytes.length);
      } else {
        bytes = Uint8Array.from(seeds[i % seeds.length]!);
        const flips = 1 + Math.floor(random() * 4);
        for (let f = 0; f < flips; f++)
          bytes[16 + Math.floor(random() * (bytes.length - 16))] = Math.floor(random() * 256);
      }
      const r = decodePdu(bytes);
      if (!r.ok) continue;
      decodedCount++;
      if (r.pdu.kind === 'submit_sm' || r.pdu.kind === 'deliver_sm') {
        if (r.pdu.body.tlvs.has(TAG.message_payload)) continue;
        assert.deepEqual(encodePdu(r.pdu, r.pdu.header.sequence, r.pdu.header.status), bytes);
        parseReceipt(r.pdu.body);
      }
    }
    assert.ok(decodedCount > 1000, `only ${decodedCount} decoded`);
  });
});
