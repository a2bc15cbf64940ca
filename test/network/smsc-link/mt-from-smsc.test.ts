import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { decodeDcs, decodeUserData, textToSeptets, TYPE_OF_NUMBER } from '../../../src/network/sms/index.ts';
import { mtFromSmsc } from '../../../src/network/smsc-link/mt-from-smsc.ts';
import { STATUS, type ShortMessage } from '../../../src/network/smsc-link/pdu.ts';
import { SmscLink } from '../../../src/network/smsc-link/smsc-link.ts';
import { closeAfterEach } from '../../helpers/close-after-each.ts';
import { ManualTime } from '../../helpers/manual-time.ts';
import { until as waitUntil } from '../../helpers/until.ts';
import { memorySmsStore } from '../../helpers/memory-sms-store.ts';
import { listeningSmsc, shortMessage } from '../../helpers/smpp-server.ts';

/** Closes each test's link and SMSC when it ends, passed or failed, the link first. */
const closeAtEnd = closeAfterEach();

const OURS = '15550000001';
const IMSI = '001010000000001';

function setup() {
  const store = memorySmsStore();
  const queued: string[] = [];
  const time = new ManualTime();
  const handler = mtFromSmsc({
    store,
    subscribers: {
      imsiOf: async (msisdn) => (msisdn === OURS ? IMSI : undefined),
      smsSubscription: async () => undefined,
    },
    clock: time,
    validityMs: 7 * 86_400_000,
    queued: (imsi) => void queued.push(imsi),
    logger: pino({ level: 'silent' }),
  });
  // The tests' messages carry no optional parameters.
  const deliver = (m: Omit<ShortMessage, 'tlvs'>): Promise<number> => handler({ ...m, tlvs: new Map() });
  return { store, queued, time, deliver, handler };
}

function textOf(stored: {
  dataCodingScheme: number;
  userData: Parameters<typeof decodeUserData>[0];
}): string | undefined {
  const decoded = decodeUserData(stored.userData, decodeDcs(stored.dataCodingScheme));
  assert.ok(decoded.ok, decoded.ok ? '' : decoded.error);
  return decoded.value.text;
}

describe('deliver_sm from the SMSC to our subscribers', () => {
  it('stores a message for an MSISDN of ours and tells the SMSF, through a bound link', async () => {
    const s = setup();
    const smsc = await listeningSmsc(closeAtEnd);
    const port = smsc.port;
    const link = new SmscLink({
      config: { host: '127.0.0.1', port, systemId: 'pmn', password: 'secret', systemType: '' },
      handlers: { deliver: s.handler, receipt: async () => {} },
      timers: s.time,
      logger: pino({ level: 'silent' }),
    });
    closeAtEnd(() => link.stop());
    link.start();
    await waitUntil(
      'the link bound',
      () => link.state === 'bound',
      () => link.state,
      { everyMs: 0 },
    );
    // data_coding 0: the SMSC's default alphabet, GSM 7-bit one septet per octet ('{' is escape 0x1B 0x28).
    const septets = Uint8Array.from(textToSeptets('Hello from afar {}') ?? []);
    const answer = await smsc.deliver({
      ...shortMessage({ from: '447700900123', to: `+${OURS}` }),
      message: septets,
    });
    assert.equal(answer.header.status, STATUS.ESME_ROK);
    const [stored] = s.store.messages;
    assert.ok(stored);
    assert.equal(stored.destinationImsi, IMSI);
    assert.equal(stored.destinationMsisdn, OURS);
    assert.deepEqual(stored.originator, {
      typeOfNumber: TYPE_OF_NUMBER.international,
      value: '447700900123',
    });
    assert.equal(stored.status, 'queued');
    assert.equal(textOf(stored), 'Hello from afar {}');
    assert.deepEqual(s.queued, [IMSI]);
  });

  it("answers ESME_RINVDSTADR for a number that is no subscriber's, and stores nothing", async () => {
    const s = setup();
    assert.equal(
      await s.deliver(shortMessage({ from: '4477', to: '15559999999', text: 'x' })),
      STATUS.ESME_RINVDSTADR,
    );
    assert.equal(
      await s.deliver({
        ...shortMessage({ from: '4477', to: 'ACME', text: 'x' }),
        destination: { ton: 5, npi: 0, address: 'ACME' },
      }),
      STATUS.ESME_RINVDSTADR,
    );
    assert.equal(s.store.messages.length, 0);
    assert.deepEqual(s.queued, []);
  });

  it('reads each data_coding into TP-DCS and TP-UD', async () => {
    const s = setup();
    const cases: { dataCoding: number; message: Uint8Array; text?: string; data?: string }[] = [
      { dataCoding: 3, message: Buffer.from('caf\u00e9', 'latin1'), text: 'caf\u00e9' },
      { dataCoding: 1, message: Buffer.from('plain'), text: 'plain' },
      { dataCoding: 8, message: Buffer.from('d83dde00', 'hex'), text: '\u{1f600}' },
      { dataCoding: 4, message: Uint8Array.of(1, 2, 0xff), data: '0102ff' },
    ];
    for (const c of cases) {
      const status = await s.deliver({
        ...shortMessage({ from: 'ACME', to: OURS }),
        source: { ton: 5, npi: 0, address: 'ACME' },
        ...c,
      });
      assert.equal(status, STATUS.ESME_ROK, `data_coding ${c.dataCoding}`);
      const stored = s.store.messages.at(-1)!;
      const decoded = decodeUserData(stored.userData, decodeDcs(stored.dataCodingScheme));
      assert.ok(decoded.ok);
      if (c.text !== undefined) assert.equal(decoded.value.text, c.text);
      else assert.equal(Buffer.from(decoded.value.data!).toString('hex'), c.data);
      assert.equal(stored.originator.typeOfNumber, TYPE_OF_NUMBER.alphanumeric);
    }
  });

  it('keeps the message class of data_coding 0xF0-0xF7 (GSM message class control) in TP-DCS', async () => {
    const s = setup();
    const cases: { dataCoding: number; message: Uint8Array; dcs: number }[] = [
      // 1111 0000: default alphabet, class 0 (a flash message): one septet per octet, TP-DCS 0x10.
      { dataCoding: 0xf0, message: Buffer.from('flash'), dcs: 0x10 },
      { dataCoding: 0xf2, message: Buffer.from('to the SIM'), dcs: 0x12 },
      // 1111 0111: 8-bit data, class 3.
      { dataCoding: 0xf7, message: Uint8Array.of(1, 2), dcs: 0x17 },
    ];
    for (const c of cases) {
      const status = await s.deliver({ ...shortMessage({ from: '4477', to: OURS }), ...c });
      assert.equal(status, STATUS.ESME_ROK, `data_coding ${c.dataCoding}`);
      const stored = s.store.messages.at(-1)!;
      assert.equal(stored.dataCodingScheme, c.dcs, `data_coding 0x${c.dataCoding.toString(16)}`);
      const decoded = decodeUserData(stored.userData, decodeDcs(stored.dataCodingScheme));
      assert.ok(decoded.ok);
      if (c.dcs === 0x17) assert.deepEqual([...decoded.value.data!], [1, 2]);
      else assert.equal(decoded.value.text, Buffer.from(c.message).toString('latin1'));
    }
  });

  it('keeps a concatenation header (esm_class UDHI) in GSM 7-bit', async () => {
    const s = setup();
    const udh = Uint8Array.of(5, 0, 3, 0x2a, 2, 1);
    const message = Buffer.concat([udh, Buffer.from('part one')]);
    assert.equal(
      await s.deliver({ ...shortMessage({ from: '4477', to: OURS }), esmClass: 0x40, message }),
      STATUS.ESME_ROK,
    );
    const stored = s.store.messages[0]!;
    assert.equal(stored.userData.headerIndicator, true);
    const decoded = decodeUserData(stored.userData, decodeDcs(stored.dataCodingScheme));
    assert.ok(decoded.ok);
    assert.equal(decoded.value.text, 'part one');
    assert.deepEqual(decoded.value.header?.[0]?.iei, 0);
  });

  it('refuses what cannot become an SMS-DELIVER, and answers a temporary error when the store fails', async () => {
    const s = setup();
    const to = OURS;
    assert.equal(
      await s.deliver({ ...shortMessage({ from: '4477', to }), dataCoding: 0x0e, message: Uint8Array.of(1) }),
      STATUS.ESME_RX_P_APPN,
    );
    assert.equal(
      await s.deliver({ ...shortMessage({ from: '4477', to }), dataCoding: 8, message: Uint8Array.of(1) }),
      STATUS.ESME_RX_P_APPN,
    );
    assert.equal(
      await s.deliver({
        ...shortMessage({ from: '4477', to }),
        esmClass: 0x40,
        message: Uint8Array.of(9, 1),
      }),
      STATUS.ESME_RX_P_APPN,
    );
    assert.equal(
      await s.deliver(shortMessage({ from: '4477', to, text: 'x'.repeat(161) })),
      STATUS.ESME_RINVMSGLEN,
    );
    assert.equal(
      await s.deliver(shortMessage({ from: 'not digits', to, text: 'x' })),
      STATUS.ESME_RINVSRCADR,
    );
    assert.equal(s.store.messages.length, 0);
    s.store.failSaves = true;
    assert.equal(await s.deliver(shortMessage({ from: '4477', to, text: 'x' })), STATUS.ESME_RX_T_APPN);
    assert.deepEqual(s.queued, []);
  });
});
