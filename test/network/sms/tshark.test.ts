// tshark decodes what we encode: TPDUs inside RP messages inside CP messages inside 5GS UL/DL NAS
// Transport with payload container type SMS (TS 24.501 9.11.3.40, value 2), read by Wireshark's
// nas-5gs, gsm_a_dtap (CP), gsm_a_rp (RP) and gsm_sms (TPDU) dissectors: nothing malformed, no expert
// message, and the fields and text as sent.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeNasMessage } from '../../../src/network/nas/index.ts';
import {
  encodeCpMessage,
  encodeDcs,
  encodeRpMessage,
  encodeTpdu,
  encodeUserData,
  PAYLOAD_CONTAINER_SMS,
  splitText,
  type RawUserData,
  type SmsAddress,
  type SmsAlphabet,
  type Tpdu,
} from '../../../src/network/sms/index.ts';
import { tsharkFields } from '../../helpers/tshark.ts';

const SC: SmsAddress = { typeOfNumber: 1, numberingPlan: 1, value: '123456' };
const PHONE: SmsAddress = { typeOfNumber: 1, numberingPlan: 1, value: '46708251358' };
const SCTS = { year: 26, month: 12, day: 6, hour: 19, minute: 40, second: 5, timeZoneQuarters: -22 };

function userData(text: string, alphabet: SmsAlphabet): RawUserData {
  const ud = encodeUserData({ text }, alphabet);
  assert.ok(ud.ok);
  return ud.value;
}

function deliver(userData: RawUserData, alphabet: SmsAlphabet, originator = PHONE): Tpdu {
  return {
    type: 'sms-deliver',
    moreMessagesToSend: false,
    loopPrevention: false,
    replyPath: false,
    statusReportIndication: false,
    originator,
    protocolIdentifier: 0,
    dataCodingScheme: encodeDcs(alphabet),
    serviceCentreTimeStamp: SCTS,
    userData,
  };
}

/** A NAS transport message carrying `cp` as an SMS payload container. */
function nas(direction: 'ul' | 'dl', cp: Uint8Array): Uint8Array {
  return encodeNasMessage({
    messageType: direction === 'dl' ? 'dlNasTransport' : 'ulNasTransport',
    payloadContainerType: PAYLOAD_CONTAINER_SMS,
    payloadContainer: cp,
  });
}

const cpData = (rpdu: Uint8Array, tiFlag = false): Uint8Array =>
  encodeCpMessage({ type: 'cp-data', transactionId: 1, tiFlag, rpdu });
/** RP-DATA towards the MS carrying `tpdu`, in CP-DATA, in DL NAS Transport. */
const mt = (tpdu: Tpdu): Uint8Array =>
  nas(
    'dl',
    cpData(
      encodeRpMessage({
        type: 'rp-data',
        direction: 'network-to-ms',
        messageReference: 9,
        originator: SC,
        tpdu: encodeTpdu(tpdu),
      }),
    ),
  );

const FIELDS = [
  '_ws.col.Info',
  '_ws.malformed',
  '_ws.expert.message',
  'gsm_a.dtap.msg_sms_type',
  'gsm_a.dtap.cp_cause',
  'gsm_a.rp.msg_type',
  'gsm_a.rp.rp_message_reference',
  'gsm_a.rp.cause',
  'gsm_sms.tp-mti',
  'gsm_sms.sms_text',
  'gsm_sms.tp-oa',
  'gsm_sms.tp-da',
  'gsm_sms.tp-ra',
  'gsm_sms.tp-srr',
  'gsm_sms.tp-vpf',
  'gsm_sms.udh.mm.msg_id',
  'gsm_sms.udh.mm.msg_parts',
  'gsm_sms.udh.mm.msg_part',
  'gsm_sms.tp-fcs',
] as const;
type Row = Record<(typeof FIELDS)[number], string>;

async function dissect(pdus: readonly Uint8Array[]): Promise<Row[]> {
  const rows = await tsharkFields(pdus, FIELDS, {
    protocol: 'nas-5gs',
    // Each part of a concatenated message is read alone, not reassembled.
    args: [
      '-o',
      'gsm_sms.reassemble:FALSE',
      '-E',
      'separator=/t',
      '-E',
      'occurrence=a',
      '-E',
      'aggregator=\u0001',
    ],
    separator: '\t',
  });
  return rows.map((row) => Object.fromEntries(FIELDS.map((field, i) => [field, row[i] ?? ''])) as Row);
}

describe('tshark reads the SMS we send over NAS', () => {
  it('MT, MO and the acknowledgements, each whole and as sent', async () => {
    const text7 = 'Hello {world} [€10] ~ ^ | \\ @£$¥ ÄÖÑÜ§¿äöñüà';
    const textUcs2 = 'Привет, 世界';
    const concatenated = splitText('x'.repeat(150) + ' and a second part.', { reference: 0x2a });
    const concatenated16 = splitText('Ж'.repeat(80), { reference: 0x1234, referenceBits: 16 });
    assert.ok(concatenated.ok && concatenated16.ok);
    assert.equal(concatenated16.value.alphabet, 'ucs2');
    const submit: Tpdu = {
      type: 'sms-submit',
      rejectDuplicates: false,
      replyPath: false,
      statusReportRequest: true,
      messageReference: 0x2a,
      destination: PHONE,
      protocolIdentifier: 0,
      dataCodingScheme: 0,
      validityPeriod: { format: 'relative', value: 0xaa },
      userData: userData('hellohello', 'gsm7'),
    };
    const statusReport: Tpdu = {
      type: 'sms-status-report',
      moreMessagesToSend: false,
      loopPrevention: false,
      commandReport: false,
      messageReference: 0x2a,
      recipient: PHONE,
      serviceCentreTimeStamp: SCTS,
      dischargeTime: { ...SCTS, second: 9 },
      status: 0,
    };
    const mo = (tpdu: Tpdu): Uint8Array =>
      nas(
        'ul',
        cpData(
          encodeRpMessage({
            type: 'rp-data',
            direction: 'ms-to-network',
            messageReference: 3,
            destination: SC,
            tpdu: encodeTpdu(tpdu),
          }),
        ),
      );
    const pdus = [
      mt(deliver(userData(text7, 'gsm7'), 'gsm7')),
      mt(deliver(userData(textUcs2, 'ucs2'), 'ucs2')),
      mt(
        deliver(userData('alpha', 'gsm7'), 'gsm7', { typeOfNumber: 5, numberingPlan: 0, value: 'PMN Core' }),
      ),
      ...concatenated.value.parts.map((part) => mt(deliver(part.userData, concatenated.value.alphabet))),
      ...concatenated16.value.parts.map((part) => mt(deliver(part.userData, concatenated16.value.alphabet))),
      mt(statusReport),
      mo(submit),
      mo({ ...submit, validityPeriod: { format: 'absolute', time: SCTS } }),
      mo({
        ...submit,
        validityPeriod: {
          format: 'enhanced',
          singleShot: true,
          period: { kind: 'hhmmss', hours: 1, minutes: 30, seconds: 0 },
        },
      }),
      mt({
        ...statusReport,
        protocolIdentifier: 0,
        dataCodingScheme: 0,
        userData: userData('delivered', 'gsm7'),
      }),
      // CP-ACK from the MS, CP-ERROR (111) towards it.
      nas('ul', encodeCpMessage({ type: 'cp-ack', transactionId: 1, tiFlag: true })),
      nas('dl', encodeCpMessage({ type: 'cp-error', transactionId: 1, tiFlag: false, cause: 111 })),
      // RP-ACK towards the MS with an SMS-SUBMIT-REPORT; RP-ERROR (22) from it with an SMS-DELIVER-REPORT.
      nas(
        'dl',
        cpData(
          encodeRpMessage({
            type: 'rp-ack',
            direction: 'network-to-ms',
            messageReference: 3,
            tpdu: encodeTpdu({ type: 'sms-submit-report', serviceCentreTimeStamp: SCTS }),
          }),
        ),
      ),
      nas(
        'ul',
        cpData(
          encodeRpMessage({
            type: 'rp-error',
            direction: 'ms-to-network',
            messageReference: 9,
            cause: 22,
            tpdu: encodeTpdu({ type: 'sms-deliver-report', failureCause: 0xd0 }),
          }),
          true,
        ),
      ),
      nas(
        'ul',
        cpData(encodeRpMessage({ type: 'rp-smma', direction: 'ms-to-network', messageReference: 4 }), true),
      ),
    ];
    const rows = await dissect(pdus);
    for (const [i, row] of rows.entries()) {
      assert.equal(row['_ws.malformed'], '', `frame ${i} malformed: ${row['_ws.col.Info']}`);
      assert.equal(row['_ws.expert.message'], '', `frame ${i}: ${row['_ws.expert.message']}`);
    }
    assert.equal(rows.length, pdus.length);
    const [
      text,
      ucs2,
      alpha,
      c1,
      c2,
      u1,
      u2,
      report,
      sub,
      subAbs,
      subEnh,
      reportUd,
      cpAck,
      cpError,
      rpAck,
      rpError,
      smma,
    ] = rows;
    // SMS-DELIVER in RP-DATA (network to MS, 0x01) in CP-DATA (0x01).
    assert.equal(text?.['gsm_a.dtap.msg_sms_type'], '0x01');
    assert.equal(text?.['gsm_a.rp.msg_type'], '0x01');
    assert.equal(text?.['gsm_a.rp.rp_message_reference'], '0x09');
    assert.equal(text?.['gsm_sms.tp-mti'], '0');
    assert.equal(text?.['gsm_sms.tp-oa'], '46708251358');
    assert.equal(text?.['gsm_sms.sms_text'], text7);
    assert.equal(ucs2?.['gsm_sms.sms_text'], textUcs2);
    assert.equal(alpha?.['gsm_sms.tp-oa'], 'PMN Core');
    assert.equal(alpha?.['gsm_sms.sms_text'], 'alpha');
    // The concatenated parts: the header read, and each part's text after the fill bit.
    for (const [row, part, sequence] of [
      [c1, concatenated.value.parts[0], '1'],
      [c2, concatenated.value.parts[1], '2'],
    ] as const) {
      assert.equal(row?.['gsm_sms.udh.mm.msg_id'], '42');
      assert.equal(row?.['gsm_sms.udh.mm.msg_parts'], '2');
      assert.equal(row?.['gsm_sms.udh.mm.msg_part'], sequence);
      assert.equal(row?.['gsm_sms.sms_text'], part?.text);
    }
    for (const [row, part] of [
      [u1, concatenated16.value.parts[0]],
      [u2, concatenated16.value.parts[1]],
    ] as const) {
      assert.equal(row?.['gsm_sms.udh.mm.msg_id'], String(0x1234));
      assert.equal(row?.['gsm_sms.sms_text'], part?.text);
    }
    assert.equal(report?.['gsm_sms.tp-mti'], '2');
    assert.equal(report?.['gsm_sms.tp-ra'], '46708251358');
    // SMS-SUBMIT in RP-DATA (MS to network, 0x00).
    assert.equal(sub?.['gsm_a.rp.msg_type'], '0x00');
    assert.equal(sub?.['gsm_sms.tp-mti'], '1');
    assert.equal(sub?.['gsm_sms.tp-da'], '46708251358');
    assert.equal(sub?.['gsm_sms.tp-srr'], '1');
    assert.equal(sub?.['gsm_sms.tp-vpf'], '2');
    assert.equal(sub?.['gsm_sms.sms_text'], 'hellohello');
    assert.equal(subAbs?.['gsm_sms.tp-vpf'], '3');
    assert.equal(subAbs?.['gsm_sms.sms_text'], 'hellohello');
    assert.equal(subEnh?.['gsm_sms.tp-vpf'], '1');
    assert.equal(subEnh?.['gsm_sms.sms_text'], 'hellohello');
    assert.equal(reportUd?.['gsm_sms.tp-mti'], '2');
    assert.equal(reportUd?.['gsm_sms.sms_text'], 'delivered');
    assert.equal(cpAck?.['gsm_a.dtap.msg_sms_type'], '0x04');
    assert.equal(cpError?.['gsm_a.dtap.msg_sms_type'], '0x10');
    assert.equal(cpError?.['gsm_a.dtap.cp_cause'], '111');
    assert.equal(rpAck?.['gsm_a.rp.msg_type'], '0x03');
    assert.equal(rpAck?.['gsm_sms.tp-mti'], '1');
    assert.equal(rpError?.['gsm_a.rp.msg_type'], '0x04');
    assert.equal(rpError?.['gsm_a.rp.cause'], '22');
    assert.equal(rpError?.['gsm_sms.tp-fcs'], '0xd0');
    assert.equal(smma?.['gsm_a.rp.msg_type'], '0x06');
  });
});
