import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CP_CAUSE, encodeCpMessage, RP_CAUSE, TP_FAILURE_CAUSE } from '../../../src/network/sms/index.ts';
import { tsharkFields } from '../../helpers/tshark.ts';
import { namesOf, register, serviceRequestPdu, settle, step } from './amf-steps.ts';
import {
  amfUeNgapIdOf,
  IMSI,
  initialContextSetupResponse,
  initialUeMessage,
  TestUe,
  ueContextReleaseComplete,
  ueContextReleaseRequest,
} from './test-ue.ts';
import {
  cpAck,
  cpMessagesOf,
  inbox,
  IMSI_B,
  moCpData,
  MSISDN_A,
  MSISDN_B,
  mtRpAck,
  mtRpError,
  registerForSms,
  rpOf,
  sendSms,
  smsHarness,
  smsSubmit,
  textOf,
  tpduOf,
} from './sms-steps.ts';

describe('SMS over NAS: registration', () => {
  it('a UE that asks for SMS over NAS is told it is allowed when its profile allows SMS; not otherwise', async () => {
    const h = await smsHarness();
    const a = await registerForSms(h, IMSI, 1);
    assert.equal(a.smsAllowed, true, 'asked for, profile allows');

    h.smsData.entries[IMSI_B]!.smsAllowed = false;
    const b = await registerForSms(h, IMSI_B, 2);
    assert.equal(b.smsAllowed, false, 'asked for, the profile forbids it');
    await h.close();
  });

  it('a UE that does not ask for SMS over NAS is not told it is allowed', async () => {
    const h = await smsHarness();
    const radio = await h.radio();
    const ue = new TestUe();
    const { accept } = await register(h, radio, ue);
    const message = accept.nas[0];
    assert.ok(message?.messageType === 'registrationAccept');
    assert.equal(message.registrationResult.smsAllowed, false);
    await h.close();
  });
});

describe('SMS over NAS: mobile originated to mobile terminated', () => {
  it('CP-ACK, the message stored, RP-ACK; SMS-DELIVER to the recipient, whose RP-ACK marks it delivered', async () => {
    const h = await smsHarness();
    const a = await registerForSms(h, IMSI, 1);
    const b = await registerForSms(h, IMSI_B, 2);

    const toA = await sendSms(h, a, moCpData(3, 42, smsSubmit(MSISDN_B, 'hello from A')));
    assert.deepEqual(
      toA.map((cp) => [cp.type, cp.transactionId, cp.tiFlag]),
      [
        ['cp-ack', 3, true],
        ['cp-data', 3, true],
      ],
    );
    const answer = rpOf(toA[1]);
    assert.equal(answer.type, 'rp-ack');
    assert.equal(answer.messageReference, 42);
    assert.equal(tpduOf(answer).type, 'sms-submit-report');
    assert.equal(h.store.messages.length, 1);
    assert.equal(h.store.messages[0]!.status, 'queued');

    // B was connected: the SMS-DELIVER went to it.
    const toB = inbox(b);
    assert.equal(toB.length, 1);
    const delivery = toB[0]!;
    assert.equal(delivery.type, 'cp-data');
    assert.equal(delivery.tiFlag, false);
    const rpData = rpOf(delivery);
    assert.equal(rpData.type, 'rp-data');
    const deliver = tpduOf(rpData);
    assert.ok(deliver.type === 'sms-deliver');
    assert.deepEqual(deliver.originator, { typeOfNumber: 1, numberingPlan: 1, value: MSISDN_A });
    assert.equal(textOf(deliver), 'hello from A');

    // A's CP-ACK ends its transfer; B acknowledges both layers.
    await sendSms(h, a, cpAck(3, true));
    await sendSms(h, b, cpAck(delivery.transactionId, false));
    const acked = await sendSms(h, b, mtRpAck(delivery.transactionId, rpData.messageReference));
    assert.deepEqual(
      acked.map((cp) => [cp.type, cp.transactionId, cp.tiFlag]),
      [['cp-ack', delivery.transactionId, false]],
    );
    assert.equal(h.store.messages[0]!.status, 'delivered');
    await h.close();
  });

  it('RP-ACK goes only once the message is stored', async () => {
    const h = await smsHarness();
    const a = await registerForSms(h, IMSI, 1);
    const release = h.store.hold();
    const held = await sendSms(h, a, moCpData(0, 1, smsSubmit(MSISDN_B, 'wait')));
    assert.deepEqual(
      held.map((cp) => cp.type),
      ['cp-ack'],
      'CP-ACK at once, no RP answer while the store has not committed',
    );
    release();
    await settle(h);
    const after = inbox(a);
    assert.equal(rpOf(after[0]).type, 'rp-ack');
    await h.close();
  });

  it('a store that fails: RP-ERROR #41 temporary failure, nothing queued', async () => {
    const h = await smsHarness();
    const a = await registerForSms(h, IMSI, 1);
    h.store.failSaves = true;
    const answered = await sendSms(h, a, moCpData(0, 9, smsSubmit(MSISDN_B, 'lost?')));
    const error = rpOf(answered[1]);
    assert.ok(error.type === 'rp-error');
    assert.equal(error.cause, RP_CAUSE.temporaryFailure);
    assert.equal(h.store.messages.length, 0);
    await h.close();
  });
});

describe('SMS over NAS: refusals', () => {
  const refusal = async (
    prepare: (h: Awaited<ReturnType<typeof smsHarness>>) => void,
    container: Uint8Array,
  ) => {
    const h = await smsHarness();
    const a = await registerForSms(h, IMSI, 1);
    prepare(h);
    const cps = await sendSms(h, a, container);
    await h.close();
    return { cps, stored: h.store.messages.length };
  };

  it('a sender whose profile forbids SMS: RP-ERROR #50 requested facility not subscribed', async () => {
    const { cps, stored } = await refusal(
      (h) => (h.smsData.entries[IMSI]!.smsAllowed = false),
      moCpData(1, 5, smsSubmit(MSISDN_B, 'no')),
    );
    const error = rpOf(cps[1]);
    assert.ok(error.type === 'rp-error');
    assert.deepEqual([error.cause, error.messageReference], [RP_CAUSE.requestedFacilityNotSubscribed, 5]);
    assert.equal(stored, 0);
  });

  it('a number of no subscriber (no SMSC link): RP-ERROR #1 unassigned number', async () => {
    const { cps, stored } = await refusal(() => undefined, moCpData(1, 6, smsSubmit('4930123456', 'away')));
    const error = rpOf(cps[1]);
    assert.ok(error.type === 'rp-error');
    assert.equal(error.cause, RP_CAUSE.unassignedNumber);
    assert.equal(stored, 0);
  });

  it('a TPDU that does not decode: RP-ERROR #95 with the TP-FCS in an SMS-SUBMIT-REPORT', async () => {
    // SMS-SUBMIT whose TP-UDL (10 septets) says more than the user data holds.
    const bad = Uint8Array.from(Buffer.from('11000B916407281553F80000AA0AE832', 'hex'));
    const { cps } = await refusal(() => undefined, moCpData(2, 8, bad));
    const error = rpOf(cps[1]);
    assert.ok(error.type === 'rp-error');
    assert.equal(error.cause, RP_CAUSE.semanticallyIncorrectMessage);
    const report = tpduOf(error);
    assert.ok(report.type === 'sms-submit-report');
    assert.equal(report.failureCause, TP_FAILURE_CAUSE.unspecified);
  });

  it('an RP message of a reserved type: RP-ERROR #97 on the same message reference', async () => {
    // MTI 7 (reserved, TS 24.011 Table 8.3), message reference 0x21.
    const rpdu = Uint8Array.of(0x07, 0x21, 0x00, 0x00);
    const { cps } = await refusal(
      () => undefined,
      encodeCpMessage({ type: 'cp-data', transactionId: 4, tiFlag: false, rpdu }),
    );
    const error = rpOf(cps[1]);
    assert.ok(error.type === 'rp-error');
    assert.deepEqual([error.cause, error.messageReference], [RP_CAUSE.messageTypeNonExistent, 0x21]);
  });

  it('a CP message of an unknown type: CP-ERROR #97 on its TI', async () => {
    // Protocol discriminator 9, TI 2 (flag 0), message type 0x7f (none of Table 8.1).
    const { cps } = await refusal(() => undefined, Uint8Array.of(0x29, 0x7f));
    assert.deepEqual(
      cps.map((cp) => [cp.type, cp.transactionId, cp.tiFlag, cp.type === 'cp-error' ? cp.cause : undefined]),
      [['cp-error', 2, true, CP_CAUSE.messageTypeNonExistent]],
    );
  });

  it('CP-DATA with TI flag 1 on a TI the network has no transfer on: CP-ERROR #81', async () => {
    const { cps } = await refusal(() => undefined, mtRpAck(5, 0));
    assert.deepEqual(
      cps.map((cp) => [cp.type, cp.transactionId, cp.type === 'cp-error' ? cp.cause : undefined]),
      [['cp-error', 5, CP_CAUSE.invalidTransactionIdentifier]],
    );
  });
});

describe('SMS over NAS: delivery outcomes', () => {
  it('the recipient answers RP-ERROR #22 (memory full): queued until its RP-SMMA, then delivered', async () => {
    const h = await smsHarness();
    const a = await registerForSms(h, IMSI, 1);
    const b = await registerForSms(h, IMSI_B, 2);
    await sendSms(h, a, moCpData(0, 1, smsSubmit(MSISDN_B, 'first try')));
    const first = inbox(b)[0]!;
    const firstRp = rpOf(first);
    await sendSms(h, b, cpAck(first.transactionId, false));
    await sendSms(
      h,
      b,
      mtRpError(first.transactionId, firstRp.messageReference, RP_CAUSE.memoryCapacityExceeded),
    );
    assert.equal(h.store.messages[0]!.status, 'queued');

    // RP-SMMA (TS 24.011 7.3.2) on a transfer of the UE's own: RP-ACK, then the message again.
    const smma = encodeCpMessage({
      type: 'cp-data',
      transactionId: 1,
      tiFlag: false,
      rpdu: Uint8Array.of(0x06, 0x09),
    });
    const cps = await sendSms(h, b, smma);
    assert.equal(rpOf(cps[1]).type, 'rp-ack');
    const again = cps[2]!;
    assert.equal(textOf(tpduOf(rpOf(again))), 'first try');
    await sendSms(h, b, mtRpAck(again.transactionId, rpOf(again).messageReference));
    assert.equal(h.store.messages[0]!.status, 'delivered');
    await h.close();
  });

  it('another RP-ERROR cause fails the message with that cause', async () => {
    const h = await smsHarness();
    const a = await registerForSms(h, IMSI, 1);
    const b = await registerForSms(h, IMSI_B, 2);
    await sendSms(h, a, moCpData(0, 1, smsSubmit(MSISDN_B, 'refused')));
    const delivery = inbox(b)[0]!;
    await sendSms(h, b, mtRpError(delivery.transactionId, rpOf(delivery).messageReference, 21));
    assert.deepEqual(
      [h.store.messages[0]!.status, h.store.messages[0]!.cause],
      ['failed', 'Short message transfer rejected (21)'],
    );
    await h.close();
  });

  it('TC1*: an unacknowledged CP-DATA is sent again, then given up; the message stays queued', async () => {
    const h = await smsHarness();
    const a = await registerForSms(h, IMSI, 1);
    const b = await registerForSms(h, IMSI_B, 2);
    await sendSms(h, a, moCpData(0, 1, smsSubmit(MSISDN_B, 'are you there')));
    let sent = 0;
    const countB = () => (sent += inbox(b).filter((cp) => cp.type === 'cp-data').length);
    assert.equal(countB(), 1);
    h.clock.advance(10_000);
    await settle(h);
    assert.equal(countB(), 2, 'repeated once TC1* expired');
    h.clock.advance(10_000);
    await settle(h);
    h.clock.advance(10_000);
    await settle(h);
    assert.equal(countB(), 3, 'two repetitions, then the transfer is given up');
    assert.equal(h.store.messages[0]!.status, 'queued');
    assert.equal(h.store.messages[0]!.attempts, 1);
    await h.close();
  });

  it('a status report goes to the sender when its SMS-SUBMIT asked for one', async () => {
    const h = await smsHarness();
    const a = await registerForSms(h, IMSI, 1);
    const b = await registerForSms(h, IMSI_B, 2);
    await sendSms(
      h,
      a,
      moCpData(0, 1, smsSubmit(MSISDN_B, 'tell me', { statusReportRequest: true, messageReference: 99 })),
    );
    await sendSms(h, a, cpAck(0, true));
    const delivery = inbox(b)[0]!;
    inbox(a);
    await sendSms(h, b, mtRpAck(delivery.transactionId, rpOf(delivery).messageReference));
    const toA = inbox(a);
    assert.equal(toA.length, 1);
    const report = tpduOf(rpOf(toA[0]));
    assert.ok(report.type === 'sms-status-report');
    assert.deepEqual([report.messageReference, report.status, report.recipient.value], [99, 0, MSISDN_B]);
    await h.close();
  });
});

describe('SMS over NAS: recipients idle or away', () => {
  it('an idle recipient is paged; after its Service Request the message goes in DL NAS Transport', async () => {
    const h = await smsHarness();
    const a = await registerForSms(h, IMSI, 1);
    const b = await registerForSms(h, IMSI_B, 2);
    await step(h, b.radio, b.ue, ueContextReleaseRequest(b.ids));
    await step(h, b.radio, b.ue, ueContextReleaseComplete(b.ids));
    b.read = b.radio.received.length;

    const toA = await sendSms(h, a, moCpData(0, 1, smsSubmit(MSISDN_B, 'wake up')));
    assert.equal(rpOf(toA[1]).type, 'rp-ack');
    assert.deepEqual(namesOf(b.radio.received.slice(b.read).map((r) => r.pdu)), ['Paging']);

    const back = await step(h, b.radio, b.ue, initialUeMessage(20, serviceRequestPdu(b.ue)));
    assert.deepEqual(
      back.nas.map((m) => m.messageType),
      ['serviceAccept'],
    );
    b.ids = { amf: amfUeNgapIdOf(back.pdus[0]!)!, ran: 20 };
    b.read = b.radio.received.length;
    b.radio.send(initialContextSetupResponse(b.ids), 1);
    await settle(h);
    const delivered = inbox(b);
    assert.equal(delivered.length, 1);
    assert.equal(textOf(tpduOf(rpOf(delivered[0]))), 'wake up');
    await sendSms(h, b, mtRpAck(delivered[0]!.transactionId, rpOf(delivered[0]).messageReference));
    assert.equal(h.store.messages[0]!.status, 'delivered');
    await h.close();
  });

  it('an idle recipient that does not answer paging gets the message when it comes back by itself', async () => {
    const h = await smsHarness();
    const a = await registerForSms(h, IMSI, 1);
    const b = await registerForSms(h, IMSI_B, 2);
    await step(h, b.radio, b.ue, ueContextReleaseRequest(b.ids));
    await step(h, b.radio, b.ue, ueContextReleaseComplete(b.ids));
    await sendSms(h, a, moCpData(0, 1, smsSubmit(MSISDN_B, 'later then')));
    // The paging wait ends without a Service Request: the message stays queued.
    h.clock.advance(5_000);
    await settle(h);
    assert.equal(h.store.messages[0]!.status, 'queued');

    const back = await step(h, b.radio, b.ue, initialUeMessage(21, serviceRequestPdu(b.ue)));
    b.ids = { amf: amfUeNgapIdOf(back.pdus[0]!)!, ran: 21 };
    b.read = b.radio.received.length;
    b.radio.send(initialContextSetupResponse(b.ids), 1);
    await settle(h);
    const delivered = inbox(b);
    assert.equal(delivered.length, 1);
    assert.equal(textOf(tpduOf(rpOf(delivered[0]))), 'later then');
    await h.close();
  });

  it('a recipient not registered: the message stays queued and goes at its registration', async () => {
    const h = await smsHarness();
    const a = await registerForSms(h, IMSI, 1);
    const toA = await sendSms(h, a, moCpData(0, 1, smsSubmit(MSISDN_B, 'while you were out')));
    assert.equal(rpOf(toA[1]).type, 'rp-ack');
    assert.equal(h.store.messages[0]!.status, 'queued');

    const b = await registerForSms(h, IMSI_B, 2);
    // Sent right after Registration Complete: the registration's last step read it.
    const delivered = cpMessagesOf(b.ue.received);
    assert.equal(delivered.length, 1);
    assert.equal(textOf(tpduOf(rpOf(delivered[0]))), 'while you were out');
    await sendSms(h, b, cpAck(delivered[0]!.transactionId, false));
    await sendSms(h, b, mtRpAck(delivered[0]!.transactionId, rpOf(delivered[0]).messageReference));
    assert.equal(h.store.messages[0]!.status, 'delivered');
    await h.close();
  });

  it('a message whose validity period ended before its recipient came back is expired, not delivered', async () => {
    const h = await smsHarness();
    const a = await registerForSms(h, IMSI, 1);
    // TP-VP relative 0: 5 minutes (TS 23.040 9.2.3.12.1).
    const submit = smsSubmit(MSISDN_B, 'too late', { validityPeriod: { format: 'relative', value: 0 } });
    await sendSms(h, a, moCpData(0, 1, submit));
    h.clock.advance(5 * 60_000 + 1);
    const b = await registerForSms(h, IMSI_B, 2);
    assert.deepEqual(cpMessagesOf(b.ue.received), []);
    assert.equal(h.store.messages[0]!.status, 'expired');
    await h.close();
  });
});

describe('SMS over NAS: tshark reads what the AMF sends', () => {
  it('every DL NAS Transport with an SMS container decodes (gsm_sms), with the causes and the text as sent', async () => {
    const h = await smsHarness();
    const a = await registerForSms(h, IMSI, 1);
    const b = await registerForSms(h, IMSI_B, 2);
    // MO with a status report asked for, its SMS-DELIVER, RP-ACK, the status report; then two refusals.
    await sendSms(
      h,
      a,
      moCpData(0, 1, smsSubmit(MSISDN_B, 'Hello {world} [€10]', { statusReportRequest: true })),
    );
    await sendSms(h, a, cpAck(0, true));
    const delivery = inbox(b)[0]!;
    await sendSms(h, b, cpAck(delivery.transactionId, false));
    await sendSms(h, b, mtRpAck(delivery.transactionId, rpOf(delivery).messageReference));
    h.smsData.entries[IMSI]!.smsAllowed = false;
    await sendSms(h, a, moCpData(1, 2, smsSubmit(MSISDN_B, 'no')));
    await sendSms(h, a, Uint8Array.of(0x29, 0x7f));

    // The plain NAS messages as the AMF protected them: their subscriber logs (network.md section 4).
    const sent = h.subscriberLogs.filter((log) => log.event === 'DL NAS Transport').map((log) => log.raw);
    const fields = [
      '_ws.malformed',
      '_ws.expert.message',
      'gsm_a.dtap.msg_sms_type',
      'gsm_a.rp.msg_type',
      'gsm_a.rp.cause',
      'gsm_a.dtap.cp_cause',
      'gsm_sms.tp-mti',
      'gsm_sms.sms_text',
    ];
    const rows = await tsharkFields(sent, fields, {
      protocol: 'nas-5gs',
      args: ['-E', 'separator=/t', '-E', 'occurrence=f'],
      separator: '\t',
    });
    assert.ok(rows.length >= 8, `${rows.length} DL NAS Transports`);
    for (const [i, row] of rows.entries()) {
      assert.equal(row[0], '', `frame ${i} malformed`);
      assert.equal(row[1], '', `frame ${i}: ${row[1]}`);
      assert.notEqual(row[2], '', `frame ${i} carries a CP message`);
    }
    const column = (name: string) => rows.map((row) => row[fields.indexOf(name)]).filter((v) => v !== '');
    assert.ok(column('gsm_sms.sms_text').includes('Hello {world} [€10]'));
    assert.deepEqual(column('gsm_a.rp.cause'), ['50']);
    assert.deepEqual(column('gsm_a.dtap.cp_cause'), ['97']);
    await h.close();
  });
});

describe('SMS over NAS: subscriber logs name the short messages', () => {
  it("each UL and DL NAS Transport's log says which CP, RP and TPDU it carried, and an error's cause", async () => {
    const h = await smsHarness();
    const a = await registerForSms(h, IMSI, 1);
    await sendSms(h, a, moCpData(0, 1, smsSubmit('4930123456', 'away')));
    const logs = h.subscriberLogs
      .filter((log) => log.event === 'UL NAS Transport' || log.event === 'DL NAS Transport')
      .map((log) => [log.event, log.details?.sms, log.details?.sms_cause]);
    assert.deepEqual(logs, [
      ['UL NAS Transport', 'CP-DATA, RP-DATA, SMS-SUBMIT', undefined],
      ['DL NAS Transport', 'CP-ACK', undefined],
      ['DL NAS Transport', 'CP-DATA, RP-ERROR', 'Unassigned (unallocated) number (1)'],
    ]);
    await h.close();
  });
});
