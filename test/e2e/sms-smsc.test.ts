import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { textToSeptets } from '../../src/network/sms/index.ts';
import { STATUS } from '../../src/network/smsc-link/pdu.ts';
import { shortMessage, TestSmsc } from '../helpers/smpp-server.ts';
import { assertTsharkAgrees } from './n2-service.ts';
import type { RegistrationService } from './registration-service.ts';
import { imsiOf, K, OPC, startRegistrationService } from './registration-service.ts';

const OURS = '15550000001';
const OUTSIDE = '4930123456';

interface LinkView {
  state: string;
  last_error: string | null;
}
interface SmsItem {
  to_imsi: string | null;
  to_msisdn: string | null;
  text?: string;
  status: string;
}

/**
 * The SMSC link end to end (docs/sms.md, "SMSC link"): the real service configured through the API to an
 * SMPP server started here; a simulated UE's message to a number outside the network reaches the SMSC as
 * submit_sm and turns delivered with the SMSC's receipt; the SMSC's deliver_sm reaches the UE.
 */
describe('SMS through the SMSC link, with the real service and a simulated UE', () => {
  let s: RegistrationService;
  const smsc = new TestSmsc({ systemId: 'pmn', password: 'secret' });
  before(async () => {
    await smsc.listen();
    s = await startRegistrationService();
    const status = await s.request('POST', '/api/v1/subscribers', {
      imsi: imsiOf(1),
      key: K,
      opc: OPC,
      sequenceNumber: '000000000000',
      profile_name: 'default',
      msisdn: OURS,
    });
    assert.equal(status, 201);
  });
  after(async () => {
    // The service and the SMSC are closed even when the capture check (or `before`) failed: left open
    // they would keep the file running until the runner's timeout.
    try {
      await assertTsharkAgrees(s.received);
    } finally {
      try {
        await s.close();
      } finally {
        await smsc.close();
      }
    }
  });

  const linkIs = (state: string) =>
    s.until(async () => {
      const view = await s.get<LinkView>('/api/v1/sms/smsc');
      return view.state === state ? view : undefined;
    }, `the SMSC link ${state}`);

  it('configured through the API it binds (again after a change); messages go both ways and the receipt settles', async () => {
    const link = { host: '127.0.0.1', port: smsc.port, system_id: 'pmn' };
    // A wrong password: the SMSC refuses the bind; the API says so.
    assert.equal(await s.request('PUT', '/api/v1/sms/smsc', { ...link, password: 'wrong' }), 200);
    await s.until(async () => {
      const view = await s.get<LinkView>('/api/v1/sms/smsc');
      return view.last_error?.includes('bind refused') === true ? view : undefined;
    }, 'the refused bind reported');
    // The right one: the link binds again with it, without a restart.
    assert.equal(await s.request('PUT', '/api/v1/sms/smsc', { ...link, password: 'secret' }), 200);
    await linkIs('bound');
    assert.equal(smsc.isBound, true);

    const a = s.ue({ imsi: imsiOf(1), sms: true });
    assert.equal((await a.register()).outcome, 'accepted');
    assert.equal((await a.sms.sendText(OUTSIDE, 'Hello out there {1}')).outcome, 'sent');
    const [submitted] = await s.until(
      async () => (smsc.submitted().length > 0 ? smsc.submitted() : undefined),
      'submit_sm at the SMSC',
    );
    assert.ok(submitted);
    assert.deepEqual(submitted.source, { ton: 1, npi: 1, address: OURS });
    assert.deepEqual(submitted.destination, { ton: 1, npi: 1, address: OUTSIDE });
    assert.deepEqual([...submitted.message], textToSeptets('Hello out there {1}'));

    const receipt = await smsc.deliver(
      shortMessage({
        from: OUTSIDE,
        to: OURS,
        esmClass: 0x04,
        text: 'id:msg-1 sub:001 dlvrd:001 submit date:2612070100 done date:2612070101 stat:DELIVRD err:000 text:',
      }),
    );
    assert.equal(receipt.header.status, STATUS.ESME_ROK);
    const [sent] = await s.until(async () => {
      const page = await s.get<{ items: SmsItem[] }>(`/api/v1/sms?msisdn=${OUTSIDE}`);
      return page.items[0]?.status === 'delivered' ? page.items : undefined;
    }, 'the message delivered');
    assert.deepEqual(sent, { ...sent, to_imsi: null, to_msisdn: OUTSIDE, text: 'Hello out there {1}' });

    const answer = await smsc.deliver({
      ...shortMessage({ from: '447700900123', to: OURS }),
      message: Uint8Array.from(textToSeptets('Hello from the SMSC') ?? []),
    });
    assert.equal(answer.header.status, STATUS.ESME_ROK);
    assert.equal(await a.sms.received(1, 5_000), true);
    assert.deepEqual(
      a.sms.inbox.map((entry) => entry.kind === 'message' && [entry.from, entry.text]),
      [['447700900123', 'Hello from the SMSC']],
    );

    assert.equal(await s.request('DELETE', '/api/v1/sms/smsc'), 200);
    await linkIs('disabled');
  });
});
