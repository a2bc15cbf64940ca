// A UE's queue is read from the store a page at a time and delivered from memory: a return to many
// queued messages costs a read per page, not per message (docs/sms.md, "Delivery"), and a message
// queued while a page is being read or delivered is still delivered.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { decodeCpMessage, decodeRpMessage, encodeUserData } from '../../../src/network/sms/index.ts';
import type { NewSms } from '../../../src/network/ports/sms-store.ts';
import { createSmsf } from '../../../src/network/smsf/smsf.ts';
import { ManualTime } from '../../helpers/manual-time.ts';
import { memorySmsStore, memorySmsSubscribers } from '../../helpers/memory-sms-store.ts';
import { cpAck, moCpData, mtRpAck, smsSubmit, textOf, tpduOf } from '../amf/sms-steps.ts';

const A = '001010000000001';
const B = '001010000000002';

function textFor(text: string, at: number, validFor = 86_400_000): NewSms {
  const userData = encodeUserData({ text }, 'gsm7');
  assert.ok(userData.ok);
  return {
    createdAt: at,
    originator: { typeOfNumber: 5, value: 'Operator' },
    destinationImsi: B,
    messageReference: 0,
    protocolIdentifier: 0,
    dataCodingScheme: 0,
    userData: userData.value,
    statusReportRequested: false,
    validUntil: at + validFor,
  };
}

const turns = async (n = 10) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** The SMSF on an in-memory store whose reads are counted; the UE acknowledges what it is sent when asked. */
function harness() {
  const time = new ManualTime();
  const store = memorySmsStore();
  const queuedFor = store.queuedFor.bind(store);
  let reads = 0;
  store.queuedFor = async (...args) => {
    reads++;
    return queuedFor(...args);
  };
  const attempted = store.attempted.bind(store);
  let attemptWrites = 0;
  store.attempted = async (id) => {
    attemptWrites++;
    return attempted(id);
  };
  const sent: Uint8Array[] = [];
  const errors: unknown[] = [];
  const smsf = createSmsf({
    amf: {
      // What B is sent (A, a sender, is answered RP-ACK, which no test here reads).
      transfer: async (supi, container) => {
        if (supi === B) sent.push(container);
        return 'sent';
      },
    },
    store,
    subscribers: memorySmsSubscribers({
      [A]: { msisdn: '15550000001', smsAllowed: true },
      [B]: { msisdn: '15550000002', smsAllowed: true },
    }),
    timers: time,
    clock: time,
    logger: pino({ level: 'error' }, { write: (line: string) => void errors.push(line) }),
  });
  /** The deliveries received so far (text and TP-MMS), each acknowledged (CP-ACK, RP-ACK) once. */
  const inbox: { text: string; more: boolean }[] = [];
  let seen = 0;
  async function acknowledgeAll(): Promise<void> {
    for (;;) {
      await turns();
      if (seen === sent.length) return;
      for (; seen < sent.length; seen++) {
        const cp = decodeCpMessage(sent[seen]!);
        if (!cp.ok || cp.value.type !== 'cp-data') continue;
        const rp = decodeRpMessage(cp.value.rpdu);
        assert.ok(rp.ok && rp.value.type === 'rp-data');
        const tpdu = tpduOf(rp.value);
        assert.ok(tpdu.type === 'sms-deliver');
        inbox.push({ text: textOf(tpdu) ?? '', more: tpdu.moreMessagesToSend });
        smsf.uplinkSms(B, cpAck(cp.value.transactionId, false));
        smsf.uplinkSms(B, mtRpAck(cp.value.transactionId, rp.value.messageReference));
      }
    }
  }
  return {
    time,
    store,
    smsf,
    inbox,
    errors,
    acknowledgeAll,
    reads: () => reads,
    attemptWrites: () => attemptWrites,
  };
}

describe('SMSF: a queue delivered from pages', () => {
  it('delivers 20 queued messages in order with one store read per page of 8', async () => {
    const h = harness();
    for (let i = 1; i <= 20; i++) await h.store.save(textFor(`m${i}`, h.time.now()));
    assert.equal(await h.smsf.activate(B), true);
    h.smsf.ueReachable(B);
    await h.acknowledgeAll();

    assert.deepEqual(
      h.inbox.map((m) => m.text),
      Array.from({ length: 20 }, (_, i) => `m${i + 1}`),
    );
    // TP-MMS (TS 23.040 9.2.3.2) on every message but the last.
    assert.deepEqual(
      h.inbox.map((m) => m.more),
      Array.from({ length: 20 }, (_, i) => i < 19),
    );
    assert.ok(
      h.store.messages.every((m) => m.status === 'delivered' && m.attempts === 1),
      'each delivered after one attempt',
    );
    // The attempt is counted in the write of its outcome: one write a delivered message.
    assert.equal(h.attemptWrites(), 0);
    // Pages of 8, 8 and 4: the short one ends the queue.
    assert.equal(h.reads(), 3);
    assert.deepEqual(h.errors, []);
    h.smsf.stop();
  });

  it('delivers a message queued while the page is being delivered, after the page', async () => {
    const h = harness();
    for (let i = 1; i <= 2; i++) await h.store.save(textFor(`m${i}`, h.time.now()));
    assert.equal(await h.smsf.activate(B), true);
    h.smsf.ueReachable(B);
    await turns();
    // Stored while m1 is with the UE: the SMSF is told, as the API and a device's submission tell it.
    await h.store.save(textFor('m3', h.time.now()));
    h.smsf.ueReachable(B);
    await h.acknowledgeAll();

    assert.deepEqual(
      h.inbox.map((m) => m.text),
      ['m1', 'm2', 'm3'],
    );
    assert.deepEqual(h.errors, []);
    h.smsf.stop();
  });

  it('marks a message of the page that expired before its turn expired, and sends the rest', async () => {
    const h = harness();
    await h.store.save(textFor('m1', h.time.now()));
    await h.store.save(textFor('short', h.time.now(), 5_000));
    await h.store.save(textFor('m3', h.time.now()));
    assert.equal(await h.smsf.activate(B), true);
    h.smsf.ueReachable(B);
    await turns();
    // m1 is with the UE when the second message's validity ends.
    await h.time.advance(6_000, () => turns(1));
    await h.acknowledgeAll();

    assert.deepEqual(
      h.inbox.map((m) => m.text),
      ['m1', 'm3'],
    );
    assert.deepEqual(
      h.store.messages.map((m) => m.status),
      ['delivered', 'expired', 'delivered'],
    );
    h.smsf.stop();
  });

  it("adds a device's message for a recipient whose whole queue is in memory to it, without a store read", async () => {
    const h = harness();
    assert.equal(await h.smsf.activate(B), true);
    h.smsf.ueReachable(B);
    await h.acknowledgeAll();
    assert.equal(h.reads(), 1, 'the empty queue, read once');

    for (let n = 1; n <= 3; n++) {
      h.smsf.uplinkSms(A, moCpData(n, n, smsSubmit('15550000002', `a${n}`)));
      await h.acknowledgeAll();
    }
    // Two in one turn: the second joins the page behind the first.
    h.smsf.uplinkSms(A, moCpData(4, 4, smsSubmit('15550000002', 'a4')));
    h.smsf.uplinkSms(A, moCpData(5, 5, smsSubmit('15550000002', 'a5')));
    await h.acknowledgeAll();

    assert.deepEqual(
      h.inbox.map((m) => m.text),
      ['a1', 'a2', 'a3', 'a4', 'a5'],
    );
    assert.ok(h.store.messages.every((m) => m.status === 'delivered' && m.attempts === 1));
    assert.equal(h.reads(), 1, 'no read for a message the SMSF stored itself');
    assert.deepEqual(h.errors, []);
    h.smsf.stop();
  });

  it('keeps no more than a page in memory when many are stored for a recipient whose queue it holds', async () => {
    const h = harness();
    assert.equal(await h.smsf.activate(B), true);
    h.smsf.ueReachable(B);
    await h.acknowledgeAll();
    assert.equal(h.reads(), 1);

    // 20 from A while B has not answered the first: a page of 8 waits in memory, the rest in the store.
    for (let n = 1; n <= 20; n++) h.smsf.uplinkSms(A, moCpData(n % 7, n, smsSubmit('15550000002', `a${n}`)));
    await turns(50);
    await h.acknowledgeAll();

    assert.deepEqual(
      h.inbox.map((m) => m.text),
      Array.from({ length: 20 }, (_, i) => `a${i + 1}`),
    );
    // The 11 beyond the first and a page came from the store, in pages.
    assert.ok(h.reads() >= 3, `store reads: ${h.reads()}`);
    assert.deepEqual(h.errors, []);
    h.smsf.stop();
  });
});
