// TP-DCS message classes (TS 23.038 4) where the SMSF's behaviour depends on them: a class 0 message
// ("immediate display") is acknowledged by the MS whether or not it has memory, so it is delivered while
// the UE's memory is full (after its RP-ERROR #22, before its RP-SMMA); the other classes wait.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import {
  decodeCpMessage,
  decodeRpMessage,
  encodeCpMessage,
  encodeDcs,
  encodeRpMessage,
  encodeUserData,
  RP_CAUSE,
} from '../../../src/network/sms/index.ts';
import type { NewSms } from '../../../src/network/ports/sms-store.ts';
import { createSmsf } from '../../../src/network/smsf/smsf.ts';
import { ManualTime } from '../../helpers/manual-time.ts';
import { memorySmsStore, memorySmsSubscribers } from '../../helpers/memory-sms-store.ts';
import { cpAck, mtRpAck, mtRpError, textOf, tpduOf } from '../amf/sms-steps.ts';

const B = '001010000000002';

function textFor(text: string, at: number, messageClass?: number): NewSms {
  const userData = encodeUserData({ text }, 'gsm7');
  assert.ok(userData.ok);
  return {
    createdAt: at,
    originator: { typeOfNumber: 5, value: 'Operator' },
    destinationImsi: B,
    messageReference: 0,
    protocolIdentifier: 0,
    dataCodingScheme: encodeDcs('gsm7', messageClass),
    userData: userData.value,
    statusReportRequested: false,
    validUntil: at + 86_400_000,
  };
}

const turns = async (n = 10) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

function harness() {
  const time = new ManualTime();
  const store = memorySmsStore();
  const sent: Uint8Array[] = [];
  const errors: unknown[] = [];
  const smsf = createSmsf({
    amf: {
      transfer: async (_supi, container) => {
        sent.push(container);
        return 'sent';
      },
    },
    store,
    subscribers: memorySmsSubscribers({ [B]: { msisdn: '15550000002', smsAllowed: true } }),
    timers: time,
    clock: time,
    logger: pino({ level: 'error' }, { write: (line: string) => void errors.push(line) }),
  });
  let seen = 0;
  /** The SMS-DELIVERs sent since the last call, with their TI, RP-MR and TP-DCS. */
  function delivered() {
    const out: { text: string; ti: number; reference: number; dcs: number }[] = [];
    for (; seen < sent.length; seen++) {
      const cp = decodeCpMessage(sent[seen]!);
      if (!cp.ok || cp.value.type !== 'cp-data') continue;
      const rp = decodeRpMessage(cp.value.rpdu);
      if (!rp.ok || rp.value.type !== 'rp-data') continue;
      const tpdu = tpduOf(rp.value);
      assert.ok(tpdu.type === 'sms-deliver');
      out.push({
        text: textOf(tpdu) ?? '',
        ti: cp.value.transactionId,
        reference: rp.value.messageReference,
        dcs: tpdu.dataCodingScheme,
      });
    }
    return out;
  }
  return { time, store, smsf, errors, delivered };
}

describe('SMSF: message classes (TS 23.038 4)', () => {
  it('delivers a class 0 message while the UE is out of memory; the others wait for its RP-SMMA', async () => {
    const h = harness();
    await h.store.save(textFor('class 1', h.time.now(), 1));
    assert.equal(await h.smsf.activate(B), true);
    h.smsf.ueReachable(B);
    await turns();
    const [first] = h.delivered();
    assert.ok(first !== undefined);
    assert.equal(first.text, 'class 1');
    // Memory full (TS 24.011 8.2.5.4 #22): RP-SMMA awaited.
    h.smsf.uplinkSms(B, cpAck(first.ti, false));
    h.smsf.uplinkSms(B, mtRpError(first.ti, first.reference, RP_CAUSE.memoryCapacityExceeded));
    await turns();

    // The operator's flash message and another plain one arrive.
    await h.store.save(textFor('flash', h.time.now(), 0));
    await h.store.save(textFor('plain', h.time.now()));
    h.smsf.ueReachable(B);
    await turns();
    const flash = h.delivered();
    assert.deepEqual(
      flash.map((d) => [d.text, d.dcs]),
      [['flash', 0x10]],
      'only the class 0 message, its TP-DCS as stored',
    );
    h.smsf.uplinkSms(B, cpAck(flash[0]!.ti, false));
    h.smsf.uplinkSms(B, mtRpAck(flash[0]!.ti, flash[0]!.reference));
    await turns();
    assert.deepEqual(h.delivered(), [], 'nothing else until RP-SMMA');
    assert.deepEqual(
      h.store.messages.map((m) => m.status),
      ['queued', 'delivered', 'queued'],
    );

    // RP-SMMA (TS 24.011 7.3.2): the rest goes, oldest first.
    const smma = encodeCpMessage({
      type: 'cp-data',
      transactionId: 0,
      tiFlag: false,
      rpdu: encodeRpMessage({ type: 'rp-smma', direction: 'ms-to-network', messageReference: 9 }),
    });
    h.smsf.uplinkSms(B, smma);
    for (let i = 0; i < 2; i++) {
      await turns();
      for (const d of h.delivered()) {
        h.smsf.uplinkSms(B, cpAck(d.ti, false));
        h.smsf.uplinkSms(B, mtRpAck(d.ti, d.reference));
      }
    }
    await turns();
    assert.deepEqual(
      h.store.messages.map((m) => m.status),
      ['delivered', 'delivered', 'delivered'],
    );
    assert.deepEqual(h.errors, []);
    h.smsf.stop();
  });

  it('a class 0 message the UE refuses with #22 is not sent again until the UE is reachable again', async () => {
    const h = harness();
    await h.store.save(textFor('flash', h.time.now(), 0));
    assert.equal(await h.smsf.activate(B), true);
    h.smsf.ueReachable(B);
    await turns();
    const [first] = h.delivered();
    assert.ok(first !== undefined);
    h.smsf.uplinkSms(B, cpAck(first.ti, false));
    h.smsf.uplinkSms(B, mtRpError(first.ti, first.reference, RP_CAUSE.memoryCapacityExceeded));
    await turns();
    assert.deepEqual(h.delivered(), []);
    h.smsf.ueReachable(B);
    await turns();
    assert.deepEqual(
      h.delivered().map((d) => d.text),
      ['flash'],
    );
    h.smsf.stop();
  });
});
