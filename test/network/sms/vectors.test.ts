// Published TPDUs decode to the fields their authors give and re-encode byte for byte. Sources:
// - SMS-SUBMIT and SMS-DELIVER "hellohello": Lars Pettersson's "SMS and the PDU format"
//   (dreamfabric.com/sms/, the example repeated in most PDU-mode tutorials). Both are given in the
//   AT+CMGS / AT+CMGL form, a service centre address first: "00" (none) before the SMS-SUBMIT and
//   "07917283010010F5" (+27381000015) before the SMS-DELIVER; the TPDU is what follows.
// - the others are written here octet by octet from TS 23.040 9.2.2, with the arithmetic in comments.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decodeDcs,
  decodeTpdu,
  decodeUserData,
  encodeTpdu,
  type SmsDeliver,
  type SmsStatusReport,
  type SmsSubmit,
  type Tpdu,
  type TpduCarrier,
  type TpduDirection,
} from '../../../src/network/sms/index.ts';

const hex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h, 'hex'));

function decoded(h: string, direction: TpduDirection, carrier: TpduCarrier = 'rp-data'): Tpdu {
  const result = decodeTpdu(hex(h), direction, carrier);
  assert.ok(result.ok, result.ok ? '' : result.error);
  assert.equal(
    Buffer.from(encodeTpdu(result.value)).toString('hex'),
    h.toLowerCase(),
    're-encodes byte for byte',
  );
  return result.value;
}

function textOf(tpdu: { dataCodingScheme?: number; userData?: SmsDeliver['userData'] }): string | undefined {
  assert.ok(tpdu.userData);
  const content = decodeUserData(tpdu.userData, decodeDcs(tpdu.dataCodingScheme ?? 0));
  assert.ok(content.ok, content.ok ? '' : content.error);
  return content.value.text;
}

describe('published TPDUs', () => {
  it('SMS-SUBMIT "hellohello" (dreamfabric): relative validity, international destination', () => {
    const submit = decoded('11000B916407281553F80000AA0AE8329BFD4697D9EC37', 'ms-to-sc') as SmsSubmit;
    assert.equal(submit.type, 'sms-submit');
    assert.equal(submit.messageReference, 0);
    assert.deepEqual(submit.destination, { typeOfNumber: 1, numberingPlan: 1, value: '46708251358' });
    assert.deepEqual(submit.validityPeriod, { format: 'relative', value: 0xaa });
    assert.equal(submit.statusReportRequest, false);
    assert.equal(submit.userData.length, 10);
    assert.equal(textOf(submit), 'hellohello');
  });

  it('SMS-DELIVER "hellohello" (dreamfabric): subscriber number, time stamp with time zone +2 h', () => {
    const deliver = decoded(
      '040BC87238880900F10000993092516195800AE8329BFD4697D9EC37',
      'sc-to-ms',
    ) as SmsDeliver;
    assert.equal(deliver.type, 'sms-deliver');
    assert.equal(deliver.moreMessagesToSend, false);
    // 0xC8: type of number 100 (subscriber), numbering plan 1000 (national).
    assert.deepEqual(deliver.originator, { typeOfNumber: 4, numberingPlan: 8, value: '27838890001' });
    // 99-03-29 15:16:59, time zone octet 0x80: 8 quarters east (+2 h).
    assert.deepEqual(deliver.serviceCentreTimeStamp, {
      year: 99,
      month: 3,
      day: 29,
      hour: 15,
      minute: 16,
      second: 59,
      timeZoneQuarters: 8,
    });
    assert.equal(textOf(deliver), 'hellohello');
  });
});

describe('TPDUs written from TS 23.040 9.2.2', () => {
  it('refuses a TPDU with the TP-FCS TS 23.040 9.2.3.22 gives', () => {
    const cause = (
      h: string,
      direction: TpduDirection,
      carrier: TpduCarrier = 'rp-data',
    ): number | undefined => {
      const result = decodeTpdu(hex(h), direction, carrier);
      assert.equal(result.ok, false, h);
      return result.ok ? undefined : result.cause;
    };
    // Enhanced TP-VP with the reserved format 101: "TP-VP not supported" (0xC7).
    assert.equal(cause('09000B916407281553F800000500000000000001C8', 'ms-to-sc'), 0xc7);
    // The same TPDU cut inside its TP-VP: malformed, "unspecified error cause" (0xFF).
    assert.equal(cause('09000B916407281553F800000300', 'ms-to-sc'), 0xff);
    // TP-UDL 10 septets with 8 octets of TP-UD: 0xFF.
    assert.equal(cause('11000B916407281553F80000AA0AE8329BFD4697D9EC', 'ms-to-sc'), 0xff);
    // SMS-COMMAND (TP-MTI 10 from the MS) is not built: "TPDU not supported" (0xB0).
    assert.equal(cause('02000000', 'ms-to-sc'), 0xb0);
    // An SMS-DELIVER-REPORT where RP-DATA is expected: 0xB0.
    assert.equal(cause('0000', 'ms-to-sc'), 0xb0);
  });

  it('SMS-SUBMIT in UCS-2 with a status report request and no validity period', () => {
    // 0x21: TP-MTI 01, TP-VPF 00, TP-SRR 1; TP-MR 0x2A; TP-DA; TP-PID 00; TP-DCS 08 (UCS-2);
    // TP-UDL 4 octets: U+4F60 U+597D.
    const submit = decoded('212A0B916407281553F80008044F60597D', 'ms-to-sc') as SmsSubmit;
    assert.equal(submit.statusReportRequest, true);
    assert.equal(submit.validityPeriod, undefined);
    assert.equal(textOf(submit), '你好');
  });

  it('SMS-SUBMIT with an absolute and with an enhanced validity period', () => {
    // TP-VPF 11 (0x19): absolute, 7 octets like TP-SCTS: 26-12-06 20:00:00, time zone -4 quarters (0x48).
    const absolute = decoded('19000B916407281553F800006221600200004801C8', 'ms-to-sc') as SmsSubmit;
    assert.deepEqual(absolute.validityPeriod, {
      format: 'absolute',
      time: { year: 26, month: 12, day: 6, hour: 20, minute: 0, second: 0, timeZoneQuarters: -4 },
    });
    assert.equal(textOf(absolute), 'H');
    // TP-VPF 01 (0x09): enhanced; functionality 0x43 = single shot, format 011 (hh:mm:ss 01:30:00).
    const enhanced = decoded('09000B916407281553F800004310030000000001C8', 'ms-to-sc') as SmsSubmit;
    assert.deepEqual(enhanced.validityPeriod, {
      format: 'enhanced',
      singleShot: true,
      period: { kind: 'hhmmss', hours: 1, minutes: 30, seconds: 0 },
    });
  });

  it('SMS-DELIVER with a concatenation header: 8-bit reference, one fill bit before the text', () => {
    // 0x44: TP-MTI 00, TP-MMS 1, TP-UDHI 1. TP-UDL 9 septets: the 6-octet header (05 00 03 2A 02 01) is
    // 48 bits, so the text starts at septet 7 (bit 49) after one fill bit; 'H' (0x48) << 1 = 0x90,
    // then 'i' (0x69) whole in octet 7.
    const deliver = decoded(
      '440B916407281553F80000622160029100000905000 32A02019069'.replace(/ /g, ''),
      'sc-to-ms',
    );
    assert.equal(deliver.type, 'sms-deliver');
    const content = decodeUserData(deliver.userData, decodeDcs(0));
    assert.ok(content.ok);
    assert.deepEqual(content.value.header, [{ iei: 0, data: Uint8Array.of(0x2a, 2, 1) }]);
    assert.equal(content.value.text, 'Hi');
  });

  it('SMS-STATUS-REPORT without and with its optional parameters', () => {
    // 0x06: TP-MTI 10, TP-MMS 1; TP-MR 0x2A; TP-RA; TP-SCTS; TP-DT; TP-ST 00 (received by the SME).
    const plain = decoded(
      '062A0B916407281553F8622160029100006221600291200000',
      'sc-to-ms',
    ) as SmsStatusReport;
    assert.equal(plain.type, 'sms-status-report');
    assert.equal(plain.status, 0);
    assert.equal(plain.dischargeTime.second, 2);
    assert.equal(plain.userData, undefined);
    // ... then TP-PI 0x07 (PID, DCS, UDL), TP-PID 00, TP-DCS 00, TP-UDL 2, "OK" packed: 0x4F | 0x4B << 7 = 0xCF, 0x4B >> 1 = 0x25.
    const full = decoded(
      '062A0B916407281553F86221600291000062216002912000000700000 2CF25'.replace(/ /g, ''),
      'sc-to-ms',
    );
    assert.equal(textOf(full as SmsStatusReport), 'OK');
  });

  it('SMS-SUBMIT-REPORT and SMS-DELIVER-REPORT, in RP-ACK and RP-ERROR', () => {
    // SMS-SUBMIT-REPORT for RP-ACK (9.2.2.2a): TP-MTI 01, TP-PI 00, TP-SCTS.
    const ack = decoded('010062216002910000', 'sc-to-ms', 'rp-ack');
    assert.deepEqual(ack, {
      type: 'sms-submit-report',
      serviceCentreTimeStamp: {
        year: 26,
        month: 12,
        day: 6,
        hour: 20,
        minute: 19,
        second: 0,
        timeZoneQuarters: 0,
      },
    });
    // For RP-ERROR: TP-FCS 0xC5 (SM rejected-duplicate SM) before TP-PI.
    const error = decoded('01C50062216002910000', 'sc-to-ms', 'rp-error');
    assert.equal((error as { failureCause?: number }).failureCause, 0xc5);
    // SMS-DELIVER-REPORT for RP-ERROR: TP-FCS 0xD0 ((U)SIM SMS storage full), TP-PI 00.
    assert.deepEqual(decoded('00D000', 'ms-to-sc', 'rp-error'), {
      type: 'sms-deliver-report',
      failureCause: 0xd0,
    });
  });
});
