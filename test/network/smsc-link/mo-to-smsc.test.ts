import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import type { StoredSms } from '../../../src/network/ports/sms-store.ts';
import {
  concatenationIe,
  encodeDcs,
  encodeUserData,
  TYPE_OF_NUMBER,
} from '../../../src/network/sms/index.ts';
import { createMoToSmsc, submitSmOf } from '../../../src/network/smsc-link/mo-to-smsc.ts';
import { STATUS } from '../../../src/network/smsc-link/pdu.ts';
import type { SubmitResult } from '../../../src/network/smsc-link/smsc-link.ts';
import { ManualTime } from '../../helpers/manual-time.ts';
import { memorySmscOutbox, memorySmsStore } from '../../helpers/memory-sms-store.ts';

const NOW = Date.UTC(2026, 11, 7, 1, 2, 3);

function stored(
  content: Parameters<typeof encodeUserData>[0],
  alphabet: 'gsm7' | 'ucs2' | '8bit',
): StoredSms {
  const userData = encodeUserData(content, alphabet);
  assert.ok(userData.ok);
  return {
    id: 1,
    createdAt: NOW,
    originatorImsi: '001010000000001',
    originator: { typeOfNumber: TYPE_OF_NUMBER.international, value: '15550000001' },
    destinationMsisdn: '4930123456',
    messageReference: 3,
    protocolIdentifier: 0,
    dataCodingScheme: encodeDcs(alphabet),
    userData: userData.value,
    statusReportRequested: false,
    validUntil: NOW + 86_400_000,
    status: 'queued',
    attempts: 0,
  };
}

describe('submit_sm of a stored message', () => {
  it('UCS-2 with a concatenation header: esm_class UDHI, data_coding 8, the header then UTF-16BE; the validity in UTC', () => {
    const header = [concatenationIe({ referenceBits: 8, reference: 9, total: 2, sequence: 1 })];
    const sm = submitSmOf(stored({ header, text: 'Привет' }, 'ucs2'));
    assert.ok(sm.ok);
    assert.equal(sm.value.esmClass, 0x40);
    assert.equal(sm.value.dataCoding, 8);
    assert.deepEqual(
      Buffer.from(sm.value.message).toString('hex'),
      '050003090201' + Buffer.from('Привет', 'utf16le').swap16().toString('hex'),
    );
    assert.equal(sm.value.validityPeriod, '261208010203000+');
  });

  it('8-bit data under data_coding 4; an alphanumeric sender as addr_ton 5', () => {
    const message = { ...stored({ data: Uint8Array.of(1, 2, 0xff) }, '8bit') };
    message.originator = { typeOfNumber: TYPE_OF_NUMBER.alphanumeric, value: 'PMN Core' };
    const sm = submitSmOf(message);
    assert.ok(sm.ok);
    assert.equal(sm.value.dataCoding, 4);
    assert.deepEqual([...sm.value.message], [1, 2, 0xff]);
    assert.deepEqual(sm.value.source, { ton: 5, npi: 0, address: 'PMN Core' });
  });

  it('a message class goes as data_coding 0xF0-0xF7 (GSM message class control); UCS-2 has none to go in', () => {
    const flash = { ...stored({ text: 'flash' }, 'gsm7'), dataCodingScheme: encodeDcs('gsm7', 0) };
    const sim = { ...stored({ data: Uint8Array.of(1) }, '8bit'), dataCodingScheme: encodeDcs('8bit', 2) };
    const wide = { ...stored({ text: '\u4f60' }, 'ucs2'), dataCodingScheme: encodeDcs('ucs2', 1) };
    assert.deepEqual(
      [flash, sim, wide].map((message) => {
        const sm = submitSmOf(message);
        assert.ok(sm.ok);
        return sm.value.dataCoding;
      }),
      [0xf0, 0xf6, 0x08],
    );
  });

  it('GSM 7-bit with an escape: one septet per octet under data_coding 0', () => {
    const sm = submitSmOf(stored({ text: 'a€' }, 'gsm7'));
    assert.ok(sm.ok);
    assert.equal(sm.value.dataCoding, 0);
    assert.deepEqual([...sm.value.message], [0x61, 0x1b, 0x65]);
  });
});

describe('handing messages to the SMSC', () => {
  function setup(answers: SubmitResult[]) {
    const time = new ManualTime();
    const store = memorySmsStore();
    const outbox = memorySmscOutbox(store);
    const settled: string[] = [];
    const submitted: string[] = [];
    const out = createMoToSmsc({
      outbox,
      store,
      submit: async (message) => {
        submitted.push(message.destination.address);
        return answers.shift() ?? { ok: true, messageId: `id-${submitted.length}` };
      },
      settled: (message, outcome) => void settled.push(`${message.id} ${outcome.status}`),
      clock: time,
      timers: time,
      logger: pino({ level: 'silent' }),
    });
    const save = () =>
      store.save({
        ...stored({ text: 'x' }, 'gsm7'),
        createdAt: time.now(),
        validUntil: time.now() + 60_000,
      });
    return { time, store, outbox, out, settled, submitted, save };
  }

  it('a temporary refusal keeps the message queued and tries again after the retry delay', async () => {
    const s = setup([{ ok: false, error: 'throttled', status: STATUS.ESME_RTHROTTLED }]);
    await s.save();
    await s.out.flush();
    assert.equal(s.store.messages[0]!.status, 'queued');
    assert.equal(s.store.messages[0]!.smscMessageId, undefined);
    await s.time.advance(10_000, () => s.out.flush());
    assert.equal(s.store.messages[0]!.smscMessageId, 'id-2');
    assert.equal(s.time.pending, 0);
    await s.out.stop();
  });

  it('a submit_sm the link could not send leaves it queued for the next bind; one past its validity expires', async () => {
    const s = setup([{ ok: false, error: 'the SMSC link is connecting' }]);
    await s.save();
    await s.out.flush();
    assert.deepEqual([s.store.messages[0]!.status, s.time.pending], ['queued', 0]);
    await s.time.advance(60_000, async () => {});
    await s.out.flush();
    assert.equal(s.store.messages[0]!.status, 'expired');
    assert.deepEqual(s.settled, ['1 expired']);
  });

  it('a submit_sm sent and left unanswered when the link drops is not sent again: failed in doubt, no report', async () => {
    const s = setup([{ ok: false, error: 'the SMSC closed the connection', inDoubt: true }]);
    await s.save();
    await s.save();
    await s.out.flush();
    assert.deepEqual(s.submitted, ['4930123456']);
    // The link binds again: the next message goes, the one in doubt does not.
    await s.out.flush();
    await s.out.flush();
    assert.equal(s.submitted.length, 2);
    assert.deepEqual(
      s.store.messages.map((m) => [m.status, m.cause, m.smscMessageId]),
      [
        ['failed', 'in doubt: the SMSC closed the connection after submit_sm; not sent again', ''],
        ['queued', undefined, 'id-2'],
      ],
    );
    assert.deepEqual(s.settled, []);
    await s.out.stop();
  });

  it('a message claimed by another pass (another process on the same store) is not submitted twice', async () => {
    const s = setup([]);
    await s.save();
    const other: string[] = [];
    const second = createMoToSmsc({
      outbox: s.outbox,
      store: s.store,
      submit: async (message) => {
        other.push(message.destination.address);
        return { ok: true, messageId: 'other-1' };
      },
      settled: () => undefined,
      clock: s.time,
      timers: s.time,
      logger: pino({ level: 'silent' }),
    });
    await Promise.all([s.out.flush(), second.flush()]);
    assert.equal(s.submitted.length + other.length, 1);
    assert.equal(s.store.messages[0]!.status, 'queued');
    await Promise.all([s.out.stop(), second.stop()]);
  });

  it('a receipt that overtakes the write of its message_id still settles the message', async () => {
    const s = setup([]);
    await s.save();
    let release = (): void => undefined;
    const write = s.outbox.submitted.bind(s.outbox);
    s.outbox.submitted = async (id, smscId) => {
      await new Promise<void>((resolve) => (release = resolve));
      await write(id, smscId);
    };
    const flushing = s.out.flush();
    await new Promise((resolve) => setImmediate(resolve));
    const receipt = s.out.receipt({ messageId: 'id-1', state: 'DELIVRD', outcome: 'delivered' });
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await Promise.all([flushing, receipt]);
    assert.equal(s.store.messages[0]!.status, 'delivered');
    assert.deepEqual(s.settled, ['1 delivered']);
  });
});
