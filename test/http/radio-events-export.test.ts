import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ROLE } from '../../src/identity/roles.ts';
import { encodeNgapPdu } from '../../src/network/ngap/ngap-codec.ts';
import { createRadioEventsRepository } from '../../src/resources/radio-events/radio-events.repository.ts';
import { downlinkNasTransport } from '../../src/network/amf/n2/ue-ngap-messages.ts';
import { encodeNasMessage } from '../../src/network/nas/index.ts';
import { uplinkNasTransport } from '../../src/simulator/ue/ran-ue-messages.ts';
import { initialUeMessage, ngSetupRequest } from '../network/amf/messages.ts';
import { INSTANCES } from '../network/nas/instances.ts';
import { at, radioEvent } from '../helpers/records.ts';
import { createTestApp, initialize, manualClock, userWithRole, type TestApp } from '../helpers/test-app.ts';
import { tsharkFileFields } from '../helpers/tshark.ts';

const URL = '/api/v1/ran/events/export.pcapng';
const MAX_ROWS = 5;

interface Block {
  type: number;
  body: Buffer;
}

/** The blocks of a little-endian pcapng file, checking each block's two length fields agree. */
function blocksOf(file: Buffer): Block[] {
  const blocks: Block[] = [];
  for (let at = 0; at < file.length;) {
    const type = file.readUInt32LE(at);
    const length = file.readUInt32LE(at + 4);
    assert.equal(length % 4, 0);
    assert.equal(file.readUInt32LE(at + length - 4), length, `block at ${at}: trailing length`);
    blocks.push({ type, body: file.subarray(at + 8, at + length - 4) });
    at += length;
  }
  return blocks;
}

/** Each Enhanced Packet Block's time (µs) and IP packet. */
function packetsOf(file: Buffer): { micros: number; packet: Buffer }[] {
  return blocksOf(file)
    .filter((block) => block.type === 6)
    .map(({ body }) => ({
      micros: body.readUInt32LE(4) * 2 ** 32 + body.readUInt32LE(8),
      packet: body.subarray(20, 20 + body.readUInt32LE(12)),
    }));
}

describe('GET /api/v1/ran/events/export.pcapng', () => {
  let t: TestApp;
  let admin: string;
  let readOnly: string;
  let manager: string;
  let dir: string;
  const clock = manualClock();
  const setup = Buffer.from(encodeNgapPdu(ngSetupRequest({ name: 'gnb-a' })));
  const initialUe = Buffer.from(encodeNgapPdu(initialUeMessage()));

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pmn-export-'));
    t = await createTestApp({
      clock,
      exportMaxRows: MAX_ROWS,
      network: {
        endpoint: () => ({ transport: 'kernel', local: [{ address: '10.0.0.1', port: 38412 }] }),
        upf: () => undefined,
      },
    });
    admin = await initialize(t);
    readOnly = await userWithRole(t, admin, ROLE.readOnly);
    manager = await userWithRole(t, admin, ROLE.networkManager);
    t.network.radioConnected({
      id: '001:01:000001',
      name: 'gnb-a',
      address: '192.0.2.7:40000',
      ranNodeType: 'gNB',
      supportedTais: [],
    });
  });
  after(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    const response = await t.request({ method: 'DELETE', url: '/api/v1/ran/events', token: admin });
    assert.equal(response.statusCode, 200);
  });

  async function exported(query = '', token = readOnly): Promise<Buffer> {
    const response = await t.request({ method: 'GET', url: `${URL}${query}`, token });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], 'application/x-pcapng');
    assert.equal(response.headers['content-disposition'], 'attachment; filename="radio-events.pcapng"');
    return response.rawPayload;
  }

  async function refused(query: string): Promise<string> {
    const response = await t.request({ method: 'GET', url: `${URL}${query}`, token: readOnly });
    assert.equal(response.statusCode, 400, response.body);
    return response.json<{ error: string }>().error;
  }

  /** Fields of every frame as tshark reads the file, SCTP checksums verified, TSNs as written. */
  async function tshark(file: Buffer, fields: string[]): Promise<string[][]> {
    const path = join(dir, `${Math.random().toString(36).slice(2)}.pcapng`);
    await writeFile(path, file);
    return tsharkFileFields(path, fields, {
      args: ['-o', 'sctp.checksum:CRC 32c', '-o', 'sctp.relative_tsns:FALSE', '-E', 'occurrence=f'],
    });
  }

  function record(): void {
    t.records.recordRadioEvent(
      radioEvent({
        messageType: 'NGSetupRequest',
        raw: setup,
        timestamp: at('2026-11-22T10:00:00.123Z'),
        details: { radio: 'gnb-a' },
      }),
    );
    t.records.recordRadioEvent(
      radioEvent({
        messageType: 'InitialUEMessage',
        raw: initialUe,
        timestamp: at('2026-11-22T10:00:01.456Z'),
        details: { radio: 'gnb-a', ran_ue_ngap_id: 7, nas: 'Identity response' },
      }),
    );
    t.records.recordRadioEvent(
      radioEvent({
        messageType: 'NGSetupRequest',
        direction: 'outbound',
        raw: setup,
        timestamp: at('2026-11-22T10:00:02.789Z'),
        details: { radio: 'gnb-a' },
      }),
    );
  }

  it('an empty result is a valid file: a section header and one raw-IP interface, no packet', async () => {
    const file = await exported();
    const blocks = blocksOf(file);
    assert.deepEqual(
      blocks.map((block) => block.type),
      [0x0a0d0d0a, 1],
    );
    assert.equal(blocks[0]?.body.readUInt32LE(0), 0x1a2b3c4d);
    assert.equal(blocks[1]?.body.readUInt16LE(0), 101);
    assert.deepEqual(await tshark(file, ['frame.number']), []);
  });

  it('writes one packet per event, oldest first, with its time in microseconds and IPv4 SCTP to the AMF', async () => {
    record();
    await t.records.flush();
    const packets = packetsOf(await exported());
    assert.deepEqual(
      packets.map((p) => p.micros),
      [
        at('2026-11-22T10:00:00.123Z') * 1000,
        at('2026-11-22T10:00:01.456Z') * 1000,
        at('2026-11-22T10:00:02.789Z') * 1000,
      ],
    );
    const [first] = packets;
    assert.equal(first?.packet[0], 0x45);
    assert.equal(first?.packet[9], 132);
    // The NGAP PDU is the DATA chunk's user data, after 20 bytes of IP, 12 of SCTP and 16 of chunk header.
    assert.deepEqual(first?.packet.subarray(48, 48 + setup.length), setup);
    assert.equal(first?.packet.readUInt32BE(44), 60);
  });

  it('tshark reads every packet with a good checksum, no malformed mark, and decodes NGAP and the NAS inside', async () => {
    record();
    await t.records.flush();
    const rows = await tshark(await exported(), [
      'ip.src',
      'ip.dst',
      'sctp.srcport',
      'sctp.dstport',
      'sctp.checksum.status',
      'sctp.data_tsn_raw',
      'sctp.data_sid',
      'sctp.data_ssn',
      'sctp.data_payload_proto_id',
      'ngap.procedureCode',
      'nas_5gs.mm.message_type',
      '_ws.malformed',
      '_ws.expert.message',
    ]);
    // Checksum status 1 is "good"; UE-associated signalling goes on stream 1 (TS 38.412 section 7).
    assert.deepEqual(rows, [
      ['192.0.2.7', '10.0.0.1', '40000', '38412', '1', '1', '0x0000', '0', '60', '21', '', '', ''],
      ['192.0.2.7', '10.0.0.1', '40000', '38412', '1', '2', '0x0001', '0', '60', '15', '0x5c', '', ''],
      // Outbound: from the AMF, with that direction's own TSNs.
      ['10.0.0.1', '192.0.2.7', '38412', '40000', '1', '1', '0x0000', '0', '60', '21', '', '', ''],
    ]);
  });

  it('marks a radio not connected now as 0.0.0.0 port 0, and still decodes', async () => {
    t.records.recordRadioEvent(radioEvent({ raw: setup, details: { radio: 'gone' } }));
    t.records.recordRadioEvent(radioEvent({ raw: setup, details: {} }));
    await t.records.flush();
    const rows = await tshark(await exported(), [
      'ip.src',
      'sctp.srcport',
      'ngap.procedureCode',
      '_ws.malformed',
    ]);
    assert.deepEqual(rows, [
      ['0.0.0.0', '0', '21', ''],
      ['0.0.0.0', '0', '21', ''],
    ]);
  });

  it('filters as the list does: direction, message_type and the time window', async () => {
    record();
    await t.records.flush();
    const count = async (query: string) => packetsOf(await exported(query)).length;
    assert.equal(await count('?direction=outbound'), 1);
    assert.equal(await count('?message_type=InitialUEMessage'), 1);
    assert.equal(await count('?message_type=NGSetupRequest&direction=inbound'), 1);
    assert.equal(await count('?timestamp_from=2026-11-22T10:00:01.456Z'), 2);
    assert.equal(await count('?timestamp_to=2026-11-22T10:00:01.455Z'), 1);
    assert.equal(await count('?protocol=NGAP'), 3);
  });

  it('carries NGAP only: other protocols are left out, and asking for one is a 400', async () => {
    t.records.recordRadioEvent(radioEvent({ protocol: 'NAS', raw: Buffer.from('7e005c', 'hex') }));
    t.records.recordRadioEvent(radioEvent({ raw: setup, details: { radio: 'gnb-a' } }));
    await t.records.flush();
    assert.equal(packetsOf(await exported()).length, 1);
    assert.match(await refused('?protocol=NAS'), /protocol must be NGAP/);
  });

  it('walks every event once, in time then id order, across pages whose boundary splits equal times', async () => {
    const times = ['10:00:02', '10:00:01', '10:00:01', '10:00:01', '10:00:00', '10:00:01'];
    for (const [i, time] of times.entries()) {
      t.records.recordRadioEvent(radioEvent({ messageType: `m${i}`, timestamp: at(`2026-11-22T${time}Z`) }));
    }
    await t.records.flush();
    const repository = createRadioEventsRepository(t.db);
    const seen: string[] = [];
    let after: { timestamp: number; id: number } | undefined;
    for (;;) {
      const page = await repository.listOldestAfter({ protocol: 'NGAP' }, after, 2);
      if (page.length === 0) break;
      seen.push(...page.map((event) => event.messageType));
      const last = page.at(-1) as { timestamp: number; id: number };
      after = { timestamp: last.timestamp, id: last.id };
    }
    assert.deepEqual(seen, ['m4', 'm1', 'm2', 'm3', 'm5', 'm0']);
  });

  it('refuses with 400 past its bound in rows, before sending anything, and accepts the bound itself', async () => {
    for (let i = 0; i < MAX_ROWS; i++) t.records.recordRadioEvent(radioEvent({ raw: setup }));
    await t.records.flush();
    assert.equal(packetsOf(await exported()).length, MAX_ROWS);
    t.records.recordRadioEvent(radioEvent({ raw: setup }));
    await t.records.flush();
    assert.equal(
      await refused(''),
      `6 radio events match; an export carries at most 5: narrow it with timestamp_from, timestamp_to, direction or message_type`,
    );
    // A narrower filter fits again.
    assert.equal(packetsOf(await exported('?direction=inbound&timestamp_to=2000-01-01T00:00:00Z')).length, 0);
  });

  it('filters by subscriber: the events whose details name it (network.md section 3)', async () => {
    record();
    t.records.recordRadioEvent(
      radioEvent({
        messageType: 'InitialUEMessage',
        raw: initialUe,
        timestamp: at('2026-11-22T10:00:02.000Z'),
        details: { radio: 'gnb-a', ran_ue_ngap_id: 8, amf_ue_ngap_id: 3, imsi: '001010000000001' },
      }),
    );
    await t.records.flush();
    const packets = packetsOf(await exported('?imsi=001010000000001'));
    assert.equal(packets.length, 1);
    assert.equal(packets[0]?.micros, at('2026-11-22T10:00:02.000Z') * 1000);
    assert.equal(packetsOf(await exported('?imsi=001010000000002')).length, 0);
    const list = await t.request({
      method: 'GET',
      url: '/api/v1/ran/events?imsi=001010000000001',
      token: readOnly,
    });
    assert.equal(list.statusCode, 200);
    assert.deepEqual(
      list
        .json<{ result: { items: { details: string }[] } }>()
        .result.items.map((i) => (JSON.parse(i.details) as { imsi?: string }).imsi),
      ['001010000000001'],
    );
  });

  it('filters by radio: the events whose details name it, wherever the name stands among the details', async () => {
    record();
    t.records.recordRadioEvent(
      radioEvent({
        messageType: 'InitialUEMessage',
        raw: initialUe,
        timestamp: at('2026-11-22T10:00:03.000Z'),
        details: { ran_ue_ngap_id: 9, radio: 'gnb-b' },
      }),
    );
    // A name that only starts like another, and one differing in case, are other radios.
    t.records.recordRadioEvent(
      radioEvent({ raw: setup, timestamp: at('2026-11-22T10:00:04.000Z'), details: { radio: 'gnb-bb' } }),
    );
    t.records.recordRadioEvent(
      radioEvent({ raw: setup, timestamp: at('2026-11-22T10:00:05.000Z'), details: { radio: 'GNB-B' } }),
    );
    await t.records.flush();
    const packets = packetsOf(await exported('?radio=gnb-b'));
    assert.deepEqual(
      packets.map((p) => p.micros),
      [at('2026-11-22T10:00:03.000Z') * 1000],
    );
    assert.equal(packetsOf(await exported('?radio=gnb-a')).length, 3);
    assert.equal(packetsOf(await exported('?radio=gnb-c')).length, 0);
    const list = await t.request({
      method: 'GET',
      url: '/api/v1/ran/events?radio=gnb-a&direction=inbound',
      token: readOnly,
    });
    assert.equal(list.statusCode, 200);
    const { items, total_count: total } = list.json<{
      result: { items: { message_type: string; details: string }[]; total_count: number };
    }>().result;
    assert.equal(total, 2);
    assert.deepEqual(
      items.map((i) => [i.message_type, (JSON.parse(i.details) as { radio?: string }).radio]),
      [
        ['InitialUEMessage', 'gnb-a'],
        ['NGSetupRequest', 'gnb-a'],
      ],
    );
  });

  it('writes NAS ciphered with NEA0 so that it decodes, and marks other ciphered NAS (issue 32 item 4)', async () => {
    // Security protected NAS (TS 24.501 9.1.1): EPD, security header type, MAC (zeros), sequence number.
    const secured = (type: number, sqn: number, plain: Uint8Array) =>
      Buffer.concat([Buffer.from([0x7e, type, 0, 0, 0, 0, sqn]), plain]);
    const command = (ciphering: number) =>
      encodeNasMessage({
        ...INSTANCES.securityModeCommand,
        selectedNasSecurityAlgorithms: { ciphering, integrity: 2 },
      });
    const complete = encodeNasMessage(INSTANCES.securityModeComplete);
    const accept = encodeNasMessage(INSTANCES.registrationAccept);
    const ids = (amfUeNgapId: number) => ({ amfUeNgapId, ranUeNgapId: amfUeNgapId });
    const cell = { plmn: { mcc: '001', mnc: '01' }, nrCellIdentity: 1, tac: 1 };
    const IMSI_1 = '001010000000001';
    const event = (second: number, id: number, inbound: boolean, nas: Uint8Array, radio = 'gnb-a') =>
      t.records.recordRadioEvent(
        radioEvent({
          messageType: inbound ? 'UplinkNASTransport' : 'DownlinkNASTransport',
          direction: inbound ? 'inbound' : 'outbound',
          raw: Buffer.from(
            encodeNgapPdu(
              inbound ? uplinkNasTransport(ids(id), nas, cell) : downlinkNasTransport(ids(id), nas),
            ),
          ),
          timestamp: at(`2026-11-22T10:00:0${second}.000Z`),
          // UE 1's messages name its IMSI, as the AMF records them once it knows the subscriber.
          details: {
            radio,
            ran_ue_ngap_id: id,
            amf_ue_ngap_id: id,
            ...(id === 1 || id === 9 ? { imsi: IMSI_1 } : {}),
          },
        }),
      );
    // UE 1 under NEA0: its Security Mode Command (header type 3: not ciphered), then ciphered messages
    // (types 4 and 2). UE 2 under NEA2: a ciphered message whose bytes only its keys would open.
    event(1, 1, false, secured(3, 0, command(0)));
    event(2, 1, true, secured(4, 0, complete));
    event(3, 1, false, secured(2, 1, accept));
    event(4, 2, false, secured(3, 0, command(2)));
    event(5, 2, false, secured(2, 1, Buffer.from('5f3e9a0c71d2', 'hex')));
    // UE 1 again after idle mode and a move to gnb-b: a new connection (AMF UE NGAP ID 9), the same NAS
    // security context (TS 24.501 4.4.2), no new Security Mode Command.
    event(6, 9, false, secured(2, 2, accept), 'gnb-b');
    await t.records.flush();
    const fields = [
      'nas_5gs.security_header_type',
      'nas_5gs.mm.message_type',
      'frame.comment',
      '_ws.malformed',
    ];
    const nea0 = 'NAS-PDU ciphered with NEA0 (null ciphering): written with security header type';
    assert.deepEqual(await tshark(await exported('?timestamp_to=2026-11-22T10:00:05.000Z'), fields), [
      ['3', '0x5d', '', ''],
      ['3', '0x5e', `${nea0} 3 in place of 4 so that it decodes, its other octets as sent`, ''],
      ['1', '0x42', `${nea0} 1 in place of 2 so that it decodes, its other octets as sent`, ''],
      ['3', '0x5d', '', ''],
      ['2', '', 'NAS-PDU ciphered with NEA2: not decrypted', ''],
    ]);
    // UE 1's message on its new connection takes the algorithm of its Security Mode Command by its IMSI.
    assert.deepEqual((await tshark(await exported('?direction=outbound'), fields)).at(-1), [
      '1',
      '0x42',
      `${nea0} 1 in place of 2 so that it decodes, its other octets as sent`,
      '',
    ]);
    // Without the Security Mode Command in the capture, the algorithm is not known: marked, as sent.
    assert.deepEqual(await tshark(await exported('?timestamp_from=2026-11-22T10:00:03.000Z'), fields), [
      [
        '2',
        '',
        'NAS-PDU ciphered: not decrypted (the Security Mode Command naming its algorithm is not in this capture)',
        '',
      ],
      ['3', '0x5d', '', ''],
      ['2', '', 'NAS-PDU ciphered with NEA2: not decrypted', ''],
      [
        '2',
        '',
        'NAS-PDU ciphered: not decrypted (the Security Mode Command naming its algorithm is not in this capture)',
        '',
      ],
    ]);
  });

  it('answers 400 for bad filters', async () => {
    assert.match(await refused('?imsi=0010100000'), /imsi/);
    assert.match(await refused('?direction=up'), /direction/);
    assert.match(await refused('?timestamp_from=yesterday'), /timestamp_from/);
    assert.match(
      await refused('?timestamp_from=2026-11-22T10:00:01Z&timestamp_to=2026-11-22T10:00:00Z'),
      /timestamp_from must not be after timestamp_to/,
    );
  });

  it('is for every role that reads records, and no one without credentials', async () => {
    for (const token of [admin, readOnly, manager]) await exported('', token);
    const response = await t.request({ method: 'GET', url: URL });
    assert.equal(response.statusCode, 401);
  });
});
