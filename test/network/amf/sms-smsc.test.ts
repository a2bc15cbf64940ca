import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SmscConfiguration } from '../../../src/network/ports/smsc-configuration.ts';
import { RP_CAUSE, textToSeptets } from '../../../src/network/sms/index.ts';
import { STATUS } from '../../../src/network/smsc-link/pdu.ts';
import { closeAfterEach } from '../../helpers/close-after-each.ts';
import { until as waitUntil } from '../../helpers/until.ts';
import { memorySmscOutbox } from '../../helpers/memory-sms-store.ts';
import { listeningSmsc, shortMessage, TestSmsc } from '../../helpers/smpp-server.ts';
import { IMSI } from './test-ue.ts';
import {
  cpAck,
  inbox,
  moCpData,
  MSISDN_A,
  registerForSms,
  rpOf,
  sendSms,
  smsHarness,
  smsSubmit,
  tpduOf,
} from './sms-steps.ts';

const OUTSIDE = '4930123456';

/** Closes each test's link, harness and SMSCs when it ends, passed or failed, the link before its SMSC. */
const closeAtEnd = closeAfterEach();

/**
 * An SMSF with an SMSC link to `smsc` (or to a port nobody listens on), configured as `config` says;
 * the link and the harness are stopped when the test ends.
 */
async function harnessWithSmsc(smsc: TestSmsc | undefined, config: Partial<SmscConfiguration> = {}) {
  const configuration: SmscConfiguration = {
    host: '127.0.0.1',
    port: smsc?.port ?? 1,
    systemId: 'pmn',
    password: 'secret',
    systemType: '',
    enabled: true,
    ...config,
  };
  const h = await smsHarness({
    smsc: (store) => ({
      configuration: { read: async () => configuration },
      outbox: memorySmscOutbox(store),
    }),
  });
  const link = h.smsc;
  assert.ok(link);
  closeAtEnd(async () => {
    await link.stop();
    await h.close();
  });
  await link.start();
  return Object.assign(h, { link });
}

/** The link's state and what the SMSC has seen: printed when a wait below runs out. */
const seen = (link: { status(): object }, smsc?: TestSmsc) => () =>
  JSON.stringify({
    link: link.status(),
    ...(smsc && { connections: smsc.connections, received: smsc.received.map((pdu) => pdu.kind) }),
  });

/** Lets real sockets run, every turn, until `done` holds (20 s of wall time at most, not 2,000 turns: 25 ms). */
const until = (done: () => boolean, detail: () => string = () => '') =>
  waitUntil(done.toString(), done, detail, { everyMs: 0 });

const receipt = (id: string, stat: string, err = '000') =>
  shortMessage({
    from: OUTSIDE,
    to: MSISDN_A,
    esmClass: 0x04,
    text: `id:${id} sub:001 dlvrd:001 submit date:2612070100 done date:2612070101 stat:${stat} err:${err} text:`,
  });

describe('SMS over NAS to a number outside the network, through the SMSC link', () => {
  it('stored, RP-ACK, submit_sm with the sender, number and text; the receipt delivers it and the sender hears a status report', async () => {
    const smsc = await listeningSmsc(closeAtEnd);
    const h = await harnessWithSmsc(smsc);
    await until(() => h.link.status().state === 'bound', seen(h.link, smsc));
    const a = await registerForSms(h, IMSI, 1);

    const answered = await sendSms(
      h,
      a,
      moCpData(2, 17, smsSubmit(OUTSIDE, 'hi {out}', { statusReportRequest: true, messageReference: 77 })),
    );
    assert.equal(rpOf(answered[1]).type, 'rp-ack');
    const [stored] = h.store.messages;
    assert.ok(stored);
    assert.equal(stored.destinationImsi, undefined);
    assert.equal(stored.destinationMsisdn, OUTSIDE);
    await sendSms(h, a, cpAck(2, true));

    // The SMSC's message id, not the empty one the claim sets while the submit_sm is unanswered.
    await until(() => (h.store.messages[0]?.smscMessageId ?? '') !== '');
    const [submitted] = smsc.submitted();
    assert.ok(submitted);
    assert.deepEqual(submitted.source, { ton: 1, npi: 1, address: MSISDN_A });
    assert.deepEqual(submitted.destination, { ton: 1, npi: 1, address: OUTSIDE });
    assert.equal(submitted.dataCoding, 0);
    assert.deepEqual([...submitted.message], textToSeptets('hi {out}'));
    assert.equal(submitted.registeredDelivery, 1, 'a receipt asked for on the final outcome');
    assert.equal(h.store.messages[0]!.smscMessageId, 'msg-1');
    assert.equal(h.store.messages[0]!.status, 'queued', 'taken by the SMSC, not yet delivered');

    const answer = await smsc.deliver(receipt('msg-1', 'DELIVRD'));
    assert.equal(answer.header.status, STATUS.ESME_ROK);
    await until(() => h.store.messages[0]!.status !== 'queued');
    assert.equal(h.store.messages[0]!.status, 'delivered');
    await until(() => a.radio.received.length > a.read);
    const [toA] = inbox(a);
    const report = tpduOf(rpOf(toA));
    assert.ok(report.type === 'sms-status-report');
    assert.deepEqual([report.messageReference, report.status, report.recipient.value], [77, 0, OUTSIDE]);
  });

  it("a receipt of UNDELIV fails the message with the receipt's state and error; the report says a permanent error", async () => {
    const smsc = await listeningSmsc(closeAtEnd);
    const h = await harnessWithSmsc(smsc);
    await until(() => h.link.status().state === 'bound', seen(h.link, smsc));
    const a = await registerForSms(h, IMSI, 1);
    await sendSms(h, a, moCpData(0, 1, smsSubmit(OUTSIDE, 'lost', { statusReportRequest: true })));
    await sendSms(h, a, cpAck(0, true));
    await until(() => (h.store.messages[0]?.smscMessageId ?? '') !== '');

    await smsc.deliver(receipt('msg-1', 'UNDELIV', '001'));
    await until(() => h.store.messages[0]!.status !== 'queued');
    assert.equal(h.store.messages[0]!.status, 'failed');
    assert.equal(h.store.messages[0]!.cause, 'SMSC receipt UNDELIV (err:001)');
    await until(() => a.radio.received.length > a.read);
    const report = tpduOf(rpOf(inbox(a)[0]));
    assert.ok(report.type === 'sms-status-report');
    assert.equal(report.status, 0x40, 'TP-ST: permanent error, remote procedure error (TS 23.040 9.2.3.15)');
  });

  it('a submit_sm the SMSC refuses fails the message with the command_status named', async () => {
    const smsc = await listeningSmsc(closeAtEnd, { submitStatus: STATUS.ESME_RINVDSTADR });
    const h = await harnessWithSmsc(smsc);
    await until(() => h.link.status().state === 'bound', seen(h.link, smsc));
    const a = await registerForSms(h, IMSI, 1);
    await sendSms(h, a, moCpData(0, 1, smsSubmit(OUTSIDE, 'nowhere')));
    await until(() => h.store.messages[0]?.status !== 'queued');
    assert.equal(h.store.messages[0]!.status, 'failed');
    assert.equal(h.store.messages[0]!.cause, 'SMSC refused: ESME_RINVDSTADR (0x0000000b)');
  });

  it('with the link configured but not bound, the message is stored and acknowledged, and submitted once the link binds', async () => {
    // Configured to an SMSC that is not listening yet: the link keeps trying (its back-off on the manual clock).
    const smsc = new TestSmsc();
    const port = await smsc.listen();
    await smsc.close();
    const h = await harnessWithSmsc(undefined, { port });
    const a = await registerForSms(h, IMSI, 1);
    const answered = await sendSms(h, a, moCpData(0, 1, smsSubmit(OUTSIDE, 'later')));
    assert.equal(rpOf(answered[1]).type, 'rp-ack');
    assert.equal(h.store.messages[0]!.status, 'queued');
    assert.notEqual(h.link.status().state, 'bound');
    // The link says why (lastError) as it arms its back-off on the manual clock: moved past once said.
    await until(() => h.link.status().lastError !== undefined, seen(h.link));

    const later = await listeningSmsc(closeAtEnd, {}, port);
    h.clock.advance(60_000);
    await until(() => h.link.status().state === 'bound', seen(h.link, later));
    await until(() => later.submitted().length > 0, seen(h.link, later));
    assert.equal(later.submitted()[0]?.destination.address, OUTSIDE);
  });

  it('with the link disabled, a number outside the network is refused with RP-ERROR #1 and nothing is stored', async () => {
    const h = await harnessWithSmsc(undefined, { enabled: false });
    const a = await registerForSms(h, IMSI, 1);
    const answered = await sendSms(h, a, moCpData(0, 1, smsSubmit(OUTSIDE, 'no link')));
    const error = rpOf(answered[1]);
    assert.ok(error.type === 'rp-error');
    assert.equal(error.cause, RP_CAUSE.unassignedNumber);
    assert.equal(h.store.messages.length, 0);
    assert.equal(h.link.status().state, 'disabled');
  });
});
