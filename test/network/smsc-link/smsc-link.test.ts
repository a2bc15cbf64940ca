import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { encodePdu, STATUS, TAG, type Pdu, type ShortMessage } from '../../../src/network/smsc-link/pdu.ts';
import type { DeliveryReceipt } from '../../../src/network/smsc-link/receipt.ts';
import type { Timers } from '../../../src/clock.ts';
import { SmscLink, type SmscLinkHandlers } from '../../../src/network/smsc-link/smsc-link.ts';
import { closeAfterEach } from '../../helpers/close-after-each.ts';
import { ManualTime, oneTurn } from '../../helpers/manual-time.ts';
import { until as waitUntil } from '../../helpers/until.ts';
import { listeningSmsc, shortMessage, TestSmsc } from '../../helpers/smpp-server.ts';

/**
 * Lets sockets and promises run, every turn, until `done` holds. Bounded in wall time (20 s), not in
 * turns: 2,000 turns pass in about 25 ms, less than a loaded machine may take over loopback TCP.
 */
const until = (done: () => boolean, what: string) => waitUntil(what, done, () => '', { everyMs: 0 });

interface Harness {
  smsc: TestSmsc;
  link: SmscLink;
  time: ManualTime;
  delivered: ShortMessage[];
  receipts: DeliveryReceipt[];
  logs: string[];
  deliverStatus: { value: number };
}

/** Closes each test's links and SMSCs when it ends, passed or failed, a link before its SMSC. */
const closeAtEnd = closeAfterEach();

/** A link on `time`, stopped when the test ends. */
function linkTo(port: number, time: Timers, handlers: SmscLinkHandlers, logger = pino({ level: 'silent' })) {
  const link = new SmscLink({
    config: { host: '127.0.0.1', port, systemId: 'pmn', password: 'secret', systemType: '' },
    handlers,
    timers: time,
    logger,
  });
  closeAtEnd(() => link.stop());
  return link;
}

async function harness(opts: { password?: string } = {}): Promise<Harness> {
  const smsc = await listeningSmsc(closeAtEnd);
  const port = smsc.port;
  const time = new ManualTime();
  const delivered: ShortMessage[] = [];
  const receipts: DeliveryReceipt[] = [];
  const logs: string[] = [];
  const deliverStatus = { value: STATUS.ESME_ROK };
  const handlers: SmscLinkHandlers = {
    deliver: async (m) => {
      delivered.push(m);
      return deliverStatus.value;
    },
    receipt: async (r) => void receipts.push(r),
  };
  const link = new SmscLink({
    config: { host: '127.0.0.1', port, systemId: 'pmn', password: opts.password ?? 'secret', systemType: '' },
    handlers,
    timers: time,
    logger: pino({ level: 'warn' }, { write: (line: string) => void logs.push(line) }),
  });
  closeAtEnd(() => link.stop());
  return { smsc, link, time, delivered, receipts, logs, deliverStatus };
}

async function bound(h: Harness): Promise<void> {
  h.link.start();
  await until(() => h.link.state === 'bound', 'bound');
}

describe('SMSC link (SMPP 3.4 ESME, transceiver)', () => {
  it('binds as a transceiver with its system_id and password, submits and reads the message_id', async () => {
    const h = await harness();
    await bound(h);
    const bind = h.smsc.received.find((p) => p.kind === 'bind_transceiver');
    assert.ok(bind?.kind === 'bind_transceiver');
    assert.equal(bind.body.systemId, 'pmn');
    assert.equal(bind.body.interfaceVersion, 0x34);
    const result = await h.link.submit(
      shortMessage({ from: '15550000001', to: '447700900123', text: 'hello', registeredDelivery: 1 }),
    );
    assert.deepEqual(result, { ok: true, messageId: 'msg-1' });
    const [sm] = h.smsc.submitted();
    assert.ok(sm);
    assert.equal(sm.destination.address, '447700900123');
    assert.equal(Buffer.from(sm.message).toString(), 'hello');
    assert.equal(sm.registeredDelivery, 1);
  });

  it('answers a submit refused by the SMSC with its status, and refuses to submit while not bound', async () => {
    const h = await harness();
    assert.deepEqual(await h.link.submit(shortMessage({ from: '1', to: '2' })), {
      ok: false,
      error: 'the SMSC link is disabled',
    });
    const refusing = await listeningSmsc(closeAtEnd, { submitStatus: STATUS.ESME_RINVDSTADR });
    const link = linkTo(refusing.port, h.time, {
      deliver: async () => STATUS.ESME_ROK,
      receipt: async () => {},
    });
    link.start();
    await until(() => link.state === 'bound', 'bound');
    const result = await link.submit(shortMessage({ from: '1', to: '2' }));
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.status, STATUS.ESME_RINVDSTADR);
  });

  it('hands deliver_sm to the core and answers with the status the core gives', async () => {
    const h = await harness();
    await bound(h);
    const taken = await h.smsc.deliver(
      shortMessage({ from: '447700900123', to: '15550000001', text: 'hi there' }),
    );
    assert.equal(taken.kind, 'deliver_sm_resp');
    assert.equal(taken.header.status, STATUS.ESME_ROK);
    assert.equal(Buffer.from(h.delivered[0]!.message).toString(), 'hi there');
    h.deliverStatus.value = STATUS.ESME_RINVDSTADR;
    const refused = await h.smsc.deliver(
      shortMessage({ from: '447700900123', to: '19990000000', text: 'x' }),
    );
    assert.equal(refused.header.status, STATUS.ESME_RINVDSTADR);
  });

  it('answers a temporary error when the core fails on a deliver_sm (the SMSC tries again)', async () => {
    const h = await harness();
    await bound(h);
    const failing = linkTo(h.smsc.port, h.time, {
      deliver: async () => {
        throw new Error('store down');
      },
      receipt: async () => {},
    });
    await h.link.stop();
    failing.start();
    await until(() => failing.state === 'bound' && h.smsc.isBound, 'bound');
    const answer = await h.smsc.deliver(shortMessage({ from: '1', to: '2', text: 'x' }));
    assert.equal(answer.header.status, STATUS.ESME_RX_T_APPN);
  });

  it('reads delivery receipts from Appendix B text and from the TLVs', async () => {
    const h = await harness();
    await bound(h);
    const text =
      'id:msg-7 sub:001 dlvrd:001 submit date:2612062240 done date:2612062241 stat:DELIVRD err:000 Text:hello';
    const r1 = await h.smsc.deliver(
      shortMessage({ from: '447700900123', to: '15550000001', text, esmClass: 0x04 }),
    );
    assert.equal(r1.header.status, STATUS.ESME_ROK);
    const tlvs = new Map([
      [TAG.receipted_message_id, Buffer.from('msg-8\0')],
      [TAG.message_state, Uint8Array.of(5)],
    ]);
    await h.smsc.deliver({
      ...shortMessage({ from: '4477', to: '1555', text: 'err:034', esmClass: 0x04 }),
      tlvs,
    });
    const r3 = await h.smsc.deliver(
      shortMessage({ from: '4477', to: '1555', text: 'stat:DELIVRD', esmClass: 0x04 }),
    );
    assert.equal(r3.header.status, STATUS.ESME_RX_P_APPN, 'a receipt naming no message is refused for good');
    assert.deepEqual(h.receipts, [
      { messageId: 'msg-7', state: 'DELIVRD', outcome: 'delivered', error: '000' },
      { messageId: 'msg-8', state: 'UNDELIV', outcome: 'failed', error: '034' },
    ]);
    assert.equal(h.delivered.length, 0, 'receipts are not messages');
  });

  it("sends enquire_link while bound and answers the SMSC's", async () => {
    const h = await harness();
    await bound(h);
    await h.time.advance(30_000, oneTurn);
    await until(() => h.smsc.received.some((p) => p.kind === 'enquire_link'), 'enquire_link sent');
    const answer = await h.smsc.enquireLink();
    assert.equal(answer.kind, 'enquire_link_resp');
    assert.equal(h.link.state, 'bound');
  });

  it('drops an SMSC that stops answering enquire_link and binds again after the back-off', async () => {
    const h = await harness();
    await bound(h);
    h.smsc.answerEnquireLink = false;
    await h.time.advance(30_000, oneTurn);
    await until(() => h.smsc.received.some((p) => p.kind === 'enquire_link'), 'enquire_link sent');
    await h.time.advance(10_000, oneTurn);
    assert.equal(h.link.state, 'connecting');
    assert.equal(h.link.lastError, 'enquire_link: no response in time');
    assert.ok(
      h.logs.some((l) => l.includes('enquire_link: no response in time')),
      'the reason is logged',
    );
    h.smsc.answerEnquireLink = true;
    await h.time.advance(1_000, oneTurn);
    await until(() => h.link.state === 'bound', 'bound again');
    assert.equal(h.smsc.connections, 2);
  });

  it('retries a refused bind with doubling back-off and says why', async () => {
    const h = await harness({ password: 'wrong' });
    h.link.start();
    await until(() => h.link.lastError !== undefined && h.smsc.connections === 1, 'bind refused');
    assert.equal(h.link.lastError, 'bind refused by the SMSC (0xe)');
    assert.equal(h.link.state, 'connecting');
    await h.time.advance(999, oneTurn);
    assert.equal(h.smsc.connections, 1, 'not before the first back-off');
    await h.time.advance(1, oneTurn);
    await until(() => h.smsc.connections === 2 && h.time.pending > 0, 'second try');
    // The second refusal by its own log line: lastError still holds the first one's reason.
    const refusals = () => h.logs.filter((line) => line.includes('bind refused')).length;
    await until(() => refusals() === 2 && h.time.pending === 1, 'second refusal');
    await h.time.advance(1_999, oneTurn);
    assert.equal(h.smsc.connections, 2, 'the back-off doubled');
    await h.time.advance(1, oneTurn);
    await until(() => h.smsc.connections === 3, 'third try');
  });

  it("names why the connection that ended ended, once its reconnect is scheduled, not an earlier attempt's reason", async () => {
    // Nobody listens on the port yet: the first attempt is refused.
    const time = new ManualTime();
    const idle = new TestSmsc();
    const port = await idle.listen();
    await idle.close();
    const link = linkTo(port, time, { deliver: async () => STATUS.ESME_ROK, receipt: async () => {} });
    // An SMSC that takes the connection and closes it before answering the bind.
    const accepted: Socket[] = [];
    const closing = createServer((socket) => {
      accepted.push(socket);
      socket.on('error', () => {});
      socket.end();
    });
    closeAtEnd(async () => {
      for (const socket of accepted) socket.destroy();
      await new Promise<void>((resolve) => closing.close(() => resolve()));
    });
    const state = () => `state ${link.state}, lastError ${link.lastError}, timers ${time.pending}`;

    link.start();
    // Said only together with the back-off (the status read then is what the link does next).
    await waitUntil('refused', () => link.lastError !== undefined, state, { everyMs: 0 });
    const refused = link.lastError;
    assert.match(refused ?? '', /^connection failed: connect ECONNREFUSED/);
    assert.equal(time.pending, 1, `the reconnect is scheduled once the reason is said: ${state()}`);

    await new Promise<void>((resolve, reject) => {
      closing.once('error', reject);
      closing.listen(port, '127.0.0.1', resolve);
    });
    await time.advance(1_000, oneTurn);
    await waitUntil('the second connection ended', () => link.lastError !== refused, state, { everyMs: 0 });
    assert.equal(accepted.length, 1);
    assert.equal(link.lastError, 'the SMSC closed the connection');
    assert.equal(time.pending, 1, `the next reconnect is scheduled: ${state()}`);
  });

  it('says a submit_sm is in doubt once sent and unanswered (connection lost, no answer in time), not before', async () => {
    const h = await harness();
    assert.deepEqual(await h.link.submit(shortMessage({ from: '1', to: '2' })), {
      ok: false,
      error: 'the SMSC link is disabled',
    });
    await bound(h);
    h.smsc.answerSubmit = false;
    const lost = h.link.submit(shortMessage({ from: '1', to: '2' }));
    await until(() => h.smsc.submitted().length === 1, 'submit_sm received');
    h.smsc.dropConnection();
    assert.deepEqual(await lost, { ok: false, error: 'the SMSC closed the connection', inDoubt: true });
    await h.time.advance(1_000, oneTurn);
    await until(() => h.link.state === 'bound', 'bound again');
    const late = h.link.submit(shortMessage({ from: '1', to: '3' }));
    await until(() => h.smsc.submitted().length === 2, 'second submit_sm received');
    await h.time.advance(10_000, oneTurn);
    assert.deepEqual(await late, { ok: false, error: 'no response in time', inDoubt: true });
  });

  it("unbinds on the SMSC's unbind and binds again; reconnects when the SMSC closes the connection", async () => {
    const h = await harness();
    await bound(h);
    const answer = await h.smsc.unbind();
    assert.equal(answer.kind, 'unbind_resp');
    await until(() => h.link.state === 'connecting', 'unbound');
    await h.time.advance(1_000, oneTurn);
    await until(() => h.link.state === 'bound', 'bound again');
    h.smsc.dropConnection();
    await until(() => h.link.state === 'connecting', 'lost');
    assert.equal(h.link.lastError, 'the SMSC closed the connection');
    await h.time.advance(1_000, oneTurn);
    await until(() => h.link.state === 'bound', 'bound a third time');
    assert.equal(h.smsc.connections, 3);
  });

  it('disconnects an SMSC whose PDU length cannot be right, with the reason logged', async () => {
    const h = await harness();
    await bound(h);
    const bad = encodePdu({ kind: 'enquire_link' }, 9);
    new DataView(bad.buffer).setUint32(0, 5);
    h.smsc.sendRaw(bad);
    await until(() => h.link.state === 'connecting', 'dropped');
    assert.equal(h.link.lastError, 'the SMSC sent a PDU with command_length 5');
    assert.ok(h.logs.some((l) => l.includes('command_length 5')));
  });

  it('answers unknown commands with generic_nack and drops an SMSC that keeps sending them', async () => {
    const h = await harness();
    await bound(h);
    const nacks: Pdu[] = [];
    const unknown = encodePdu({ kind: 'enquire_link' }, 77);
    new DataView(unknown.buffer).setUint32(4, 0x00000099);
    h.smsc.sendRaw(unknown);
    await until(() => h.smsc.received.some((p) => p.kind === 'generic_nack'), 'generic_nack');
    nacks.push(...h.smsc.received.filter((p) => p.kind === 'generic_nack'));
    assert.equal(nacks[0]?.header.status, STATUS.ESME_RINVCMDID);
    assert.equal(nacks[0]?.header.sequence, 77);
    assert.equal(h.link.state, 'bound', 'one bad PDU is answered, not fatal');
    for (let i = 0; i < 4; i++) h.smsc.sendRaw(unknown);
    await until(() => h.link.state === 'connecting', 'dropped');
    assert.match(h.link.lastError ?? '', /5 malformed PDUs in a row/);
  });

  it('answers a deliver_sm whose body does not decode with an error, without throwing', async () => {
    const h = await harness();
    await bound(h);
    const pdu = encodePdu({ kind: 'deliver_sm', body: shortMessage({ from: '1', to: '2', text: 'abc' }) }, 5);
    const cut = pdu.slice(0, pdu.length - 2);
    new DataView(cut.buffer).setUint32(0, cut.length);
    h.smsc.sendRaw(cut);
    await until(() => h.smsc.received.some((p) => p.kind === 'deliver_sm_resp'), 'answered');
    const resp = h.smsc.received.find((p) => p.kind === 'deliver_sm_resp');
    assert.equal(resp?.header.status, STATUS.ESME_RINVMSGLEN);
    assert.equal(h.delivered.length, 0);
  });

  it('unbinds on stop and does not reconnect', async () => {
    const h = await harness();
    await bound(h);
    await h.link.stop();
    assert.equal(h.link.state, 'disabled');
    assert.ok(h.smsc.received.some((p) => p.kind === 'unbind'));
    await h.time.advance(120_000, oneTurn);
    assert.equal(h.smsc.connections, 1);
  });
});

describe('SMSC link lifecycle', () => {
  let smsc: TestSmsc;
  before(async () => {
    smsc = new TestSmsc();
    await smsc.listen();
  });
  after(async () => smsc.close());
  it('reports each change of state', async () => {
    const link = linkTo(smsc.port, new ManualTime(), {
      deliver: async () => STATUS.ESME_ROK,
      receipt: async () => {},
    });
    const states: string[] = [];
    link.onState((s) => states.push(s));
    link.start();
    await until(() => link.state === 'bound', 'bound');
    await link.stop();
    assert.deepEqual(states, ['connecting', 'bound', 'disabled']);
  });
});
