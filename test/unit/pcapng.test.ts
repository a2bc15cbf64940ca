import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encodeNgapPdu } from '../../src/network/ngap/ngap-codec.ts';
import { plmnIdentity, tac } from '../../src/network/ngap/ngap-values.ts';
import type { SupportedTAList } from '../../src/network/ngap/generated/types.ts';
import { ipToBytes } from '../../src/network/transport/sctp/chunks.ts';
import { createNgapCapture, pcapngHeader } from '../../src/resources/radio-events/pcapng.ts';
import { initialUeMessage, ngSetupRequest } from '../network/amf/messages.ts';
import { tsharkFileFields } from '../helpers/tshark.ts';

const endpoint = (ip: string, port: number) => ({ ip: ipToBytes(ip) as Uint8Array, port });

/** An NG Setup Request over 64 KiB: 256 tracking areas of 64 slices each (TS 38.413 maxima). */
function hugeTaList(): SupportedTAList {
  return Array.from({ length: 256 }, (_, area) => ({
    tAC: tac(area + 1),
    broadcastPLMNList: [
      {
        pLMNIdentity: plmnIdentity('001', '01'),
        tAISliceSupportList: Array.from({ length: 64 }, (_, slice) => ({
          sNSSAI: { sST: Uint8Array.of(1), sD: Uint8Array.of(0, area, slice) },
        })),
      },
    ],
  }));
}

describe('pcapng capture of NGAP', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pmn-pcapng-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  async function read(file: Buffer, fields: string[]): Promise<string[][]> {
    const path = join(dir, `${fields.length}-${file.length}.pcapng`);
    await writeFile(path, file);
    return tsharkFileFields(path, fields, {
      args: ['-o', 'sctp.checksum:CRC 32c', '-o', 'sctp.relative_tsns:FALSE', '-E', 'occurrence=f'],
    });
  }

  it('writes IPv6 packets between IPv6 ends, which tshark decodes down to the NAS', async () => {
    const capture = createNgapCapture();
    const radio = endpoint('2001:db8::7', 40000);
    const amf = endpoint('2001:db8::1', 38412);
    const file = Buffer.concat([
      pcapngHeader(),
      ...capture.blocks({
        timestamp: 1_000,
        from: radio,
        to: amf,
        stream: 1,
        raw: encodeNgapPdu(initialUeMessage()),
      }),
    ]);
    assert.deepEqual(
      await read(file, [
        'ipv6.src',
        'ipv6.dst',
        'sctp.checksum.status',
        'ngap.procedureCode',
        'nas_5gs.mm.message_type',
        '_ws.malformed',
      ]),
      [['2001:db8::7', '2001:db8::1', '1', '15', '0x5c', '']],
    );
  });

  it('splits a message too large for one IP packet into DATA fragments that tshark reassembles', async () => {
    const raw = encodeNgapPdu(ngSetupRequest({ name: 'big', taList: hugeTaList() }));
    assert.ok(raw.length > 65_535, `${raw.length} bytes`);
    const capture = createNgapCapture();
    const radio = endpoint('192.0.2.7', 40000);
    const amf = endpoint('10.0.0.1', 38412);
    const small = encodeNgapPdu(ngSetupRequest({ name: 'small' }));
    const blocks = [
      ...capture.blocks({ timestamp: 1_000, from: radio, to: amf, stream: 0, raw }),
      ...capture.blocks({ timestamp: 2_000, from: radio, to: amf, stream: 0, raw: small }),
    ];
    assert.equal(blocks.length, 3);
    const rows = await read(Buffer.concat([pcapngHeader(), ...blocks]), [
      'ip.len',
      'sctp.checksum.status',
      'sctp.chunk_flags',
      'sctp.data_tsn_raw',
      'sctp.data_ssn',
      'ngap.procedureCode',
      'ngap.RANNodeName',
      '_ws.malformed',
      '_ws.expert.message',
    ]);
    // Fragments: B then E, one SSN, consecutive TSNs (RFC 9260 section 6.9); the next message follows on.
    assert.deepEqual(
      rows.map((row) => row.slice(1, 5)),
      [
        ['1', '0x02', '1', '0'],
        ['1', '0x01', '2', '0'],
        ['1', '0x03', '3', '1'],
      ],
    );
    assert.equal(rows[0]?.[0], '65532');
    // The whole message is decoded once, in its last fragment's frame.
    assert.deepEqual(
      rows.map((row) => row.slice(5)),
      [
        ['', '', '', ''],
        ['21', 'big', '', ''],
        ['21', 'small', '', ''],
      ],
    );
  });

  it('refuses ends of two IP families', () => {
    const capture = createNgapCapture();
    assert.throws(
      () =>
        capture.blocks({
          timestamp: 0,
          from: endpoint('192.0.2.7', 1),
          to: endpoint('::1', 2),
          stream: 0,
          raw: new Uint8Array(4),
        }),
      TypeError,
    );
  });
});
