import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createN2, DEFAULT_N2_SETTINGS } from '../../src/core/n2.wiring.ts';
import { runSimulator } from '../../src/simulator/cli.ts';
import { createTestApp, initialize } from '../helpers/test-app.ts';
import { assertTsharkAgrees } from './n2-service.ts';
import type { RegistrationService } from './registration-service.ts';
import { imsiOf, K, OPC, startRegistrationService } from './registration-service.ts';

/**
 * SMS over NAS end to end (docs/sms.md): simulated UEs that ask for SMS over NAS behind a simulated gNB
 * against the real service (its SMSF over the SQLite store), exchanging short messages; one not
 * registered gets its stored message when it registers. tshark reads every NGAP PDU the gNB received.
 */
describe('SMS between simulated UEs through the core', () => {
  let s: RegistrationService;
  before(async () => {
    s = await startRegistrationService();
    for (const n of [1, 2, 3]) {
      const status = await s.request('POST', '/api/v1/subscribers', {
        imsi: imsiOf(n),
        key: K,
        opc: OPC,
        sequenceNumber: '000000000000',
        profile_name: 'default',
        msisdn: `1555000000${n}`,
      });
      assert.equal(status, 201);
    }
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  it('two UEs exchange messages; a third, away when it was sent, gets its message when it registers', async () => {
    const a = s.ue({ imsi: imsiOf(1), sms: true });
    const b = s.ue({ imsi: imsiOf(2), sms: true });
    for (const ue of [a, b]) assert.equal((await ue.register()).outcome, 'accepted');
    assert.deepEqual([a.smsAllowed, b.smsAllowed], [true, true]);

    assert.deepEqual(await a.sms.sendText('15550000002', 'Hello B, this is A'), {
      outcome: 'sent',
      parts: 1,
      messageReferences: [0],
    });
    assert.equal(await b.sms.received(1, 5_000), true);
    assert.deepEqual(
      b.sms.inbox.map((entry) => entry.kind === 'message' && [entry.from, entry.text]),
      [['15550000001', 'Hello B, this is A']],
    );

    // A reply long enough for two concatenated parts, joined in A's inbox.
    const long = 'Hello A. '.repeat(20);
    assert.equal((await b.sms.sendText('15550000001', long)).outcome, 'sent');
    assert.equal(await a.sms.received(1, 5_000), true);
    assert.deepEqual(
      a.sms.inbox.map((entry) => entry.kind === 'message' && [entry.from, entry.text]),
      [['15550000002', long]],
    );

    // To a number of no subscriber: refused (no SMSC link), RP-cause #1.
    assert.deepEqual(await a.sms.sendText('4930123456', 'anyone?'), {
      outcome: 'refused',
      cause: 'Unassigned (unallocated) number (1)',
    });

    // C is not registered: the message is stored and goes when it registers.
    assert.equal((await a.sms.sendText('15550000003', 'for when you are back')).outcome, 'sent');
    const c = s.ue({ imsi: imsiOf(3), sms: true });
    assert.equal((await c.register()).outcome, 'accepted');
    assert.equal(await c.sms.received(1, 5_000), true);
    assert.deepEqual(
      c.sms.inbox.map((entry) => entry.kind === 'message' && [entry.from, entry.text]),
      [['15550000001', 'for when you are back']],
    );

    // The operator sends one through the API: it goes to the registered UE at once.
    const sent = await s.t.request({
      method: 'POST',
      url: '/api/v1/sms',
      token: s.token,
      payload: { msisdn: '15550000002', text: 'from the operator', from: 'Ops' },
    });
    assert.equal(sent.statusCode, 201, sent.body);
    assert.equal(await b.sms.received(2, 5_000), true);
    assert.deepEqual(b.sms.inbox[1], { ...b.sms.inbox[1], from: 'Ops', text: 'from the operator' });
    const listed = await s.until(async () => {
      const page = await s.get<{ items: { status: string; text?: string }[] }>('/api/v1/sms?per_page=100');
      return page.items.every((item) => item.status === 'delivered') ? page.items : undefined;
    }, 'every message delivered');
    assert.equal(listed.length, 5, 'two parts, three single messages (the refused one was never stored)');
  });
});

describe('npm run sim -- ue --sms-to, against the real service', () => {
  it('one simulator run sends with --sms-to and --text; another, holding with --sms, prints what it received', async () => {
    const t = await createTestApp();
    const token = await initialize(t);
    for (const n of [1, 2]) {
      const response = await t.request({
        method: 'POST',
        url: '/api/v1/subscribers',
        token,
        payload: {
          imsi: imsiOf(n),
          key: K,
          opc: OPC,
          sequenceNumber: '000000000000',
          profile_name: 'default',
          msisdn: `1555000000${n}`,
        },
      });
      assert.equal(response.statusCode, 201, response.body);
    }
    const n2 = createN2(t.core, {
      ...DEFAULT_N2_SETTINGS,
      transport: 'udp',
      addresses: ['127.0.0.1'],
      port: 0,
      udpPort: 0,
    });
    await n2.start();
    try {
      const endpoint = n2.endpoint();
      assert.ok(endpoint?.local[0] && endpoint.udpPort !== undefined);
      const common = [
        ...['--amf', `127.0.0.1:${endpoint.local[0].port}`, '--udp-port', String(endpoint.udpPort)],
        ...['--key', K, '--opc', OPC, '--quiet'],
      ];
      let stop = (): void => undefined;
      const stopped = new Promise<void>((resolve) => (stop = resolve));
      const received: string[] = [];
      const receiver = runSimulator(
        ['ue', ...common, '--imsi', imsiOf(2), '--gnb-id', '2', '--sms'],
        (line) => received.push(line),
        stopped,
      );
      await until(
        () => received.some((line) => line.startsWith('holding')),
        () => received.join('\n'),
      );

      const sent: string[] = [];
      const status = await runSimulator(
        [
          'ue',
          ...common,
          ...['--imsi', imsiOf(1), '--sms-to', '+15550000002', '--text', 'from the cli', '--status-report'],
          ...['--then', 'deregister'],
        ],
        (line) => sent.push(line),
        new Promise(() => undefined),
      );
      assert.equal(status, 0, sent.join('\n'));
      assert.ok(
        sent.includes(`imsi-${imsiOf(1)}: SMS to 15550000002 sent (1 part, TP-MR 0)`),
        sent.join('\n'),
      );
      assert.ok(sent.includes('1 of 1 SMS sent to 15550000002'), sent.join('\n'));
      await until(
        () => received.includes(`imsi-${imsiOf(2)}: SMS from 15550000001: from the cli`),
        () => received.join('\n'),
      );
      stop();
      assert.equal(await receiver, 0);
    } finally {
      await n2.stop();
      await t.close();
    }
  });
});

/** Polls `check` until it holds (the simulator prints as the network answers), 20 s at most. */
async function until(check: () => boolean, shown: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    assert.ok(Date.now() < deadline, shown());
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
