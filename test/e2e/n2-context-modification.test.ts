import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import {
  buildUEContextModificationResponse,
  readErrorIndication,
} from '../../src/network/ngap/generated/messages.ts';
import type { GnbUes } from '../../src/simulator/ue/gnb-ues.ts';
import type { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import { assertTsharkAgrees } from './n2-service.ts';
import { startSessionService, type SessionService } from './session-service.ts';

/**
 * UE Context Modification (TS 38.413 8.3.4) from the AMF, end to end: an operator edits the subscribed
 * UE-AMBR of a profile through the API; each UE of that profile whose radio holds its context gets UE
 * Context Modification Request with the new UE-AMBR (9.2.2.7), and the simulated gNB answers. A change
 * that leaves the UE-AMBR as it was sends nothing; a Failure (8.3.4.3) is logged with its cause and does
 * not hold the next change back; a Response the AMF did not ask for gets Error Indication (10.4). tshark
 * reads every PDU the service sent.
 */

/** The UE's AMF UE NGAP ID at `ues`. */
function amfIdAt(ues: GnbUes, ue: SimulatedUe): number {
  for (let ran = 1; ran < 1000; ran += 1) {
    const link = ues.link(ran);
    if (link?.ue === ue && link.amfUeNgapId !== undefined) return link.amfUeNgapId;
  }
  assert.fail('the UE has no connection there');
}

const mbps = (n: number): number => n * 1_000_000;

describe('UE Context Modification on a UE-AMBR change (real service)', () => {
  let s: SessionService;
  const lines: string[] = [];
  before(async () => {
    s = await startSessionService({
      logger: pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) }),
    });
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  /** The modifications the gNB received for the UE with this AMF UE NGAP ID, once there are `count`. */
  const modificationsOf = (amfUeNgapId: number, count: number) =>
    s.until(async () => {
      const found = s.ues.contextModifications.filter((m) => m.amfUeNgapId === amfUeNgapId);
      return found.length >= count ? found : undefined;
    }, `${count} UE Context Modification(s)`);

  const setAmbr = (downlink: string, uplink: string, changes: Record<string, unknown> = {}) =>
    s.putDefaultProfile({ 'bitrate-downlink': downlink, 'bitrate-uplink': uplink, ...changes });

  it('a connected UE gets the new UE-AMBR; a profile change that keeps it sends nothing', async () => {
    const { ue, sessions } = await s.registered(1);
    assert.equal(
      (await sessions.establish({ type: 'IPv4', dnn: 'internet', sNssai: { sst: 1 } })).outcome,
      'accepted',
    );
    const amfUeNgapId = amfIdAt(s.ues, ue);

    await setAmbr('500 Mbps', '200 Mbps');
    const [first] = await modificationsOf(amfUeNgapId, 1);
    assert.deepEqual(first?.ueAmbr, {
      uEAggregateMaximumBitRateDL: mbps(500),
      uEAggregateMaximumBitRateUL: mbps(200),
    });
    assert.equal(first?.refused, undefined);

    // Another field of the profile: the UE-AMBR stays, no request. The next AMBR change is the barrier:
    // its request is the second one the UE's radio sees.
    await setAmbr('500 Mbps', '200 Mbps', { dns: '1.1.1.1' });
    await setAmbr('300 Mbps', '100 Mbps', { dns: '1.1.1.1' });
    const [, second, third] = await modificationsOf(amfUeNgapId, 2);
    assert.deepEqual(second?.ueAmbr, {
      uEAggregateMaximumBitRateDL: mbps(300),
      uEAggregateMaximumBitRateUL: mbps(100),
    });
    assert.equal(third, undefined);
    // Each Response was one the AMF waited for: no Error Indication went to the radio.
    assert.equal(s.received.filter((exchange) => exchange.messageType === 'ErrorIndication').length, 0);
    assert.equal(ue.connected, true);
  });

  it('a Failure is logged with its cause; the next change goes at once', async () => {
    const { ue } = await s.registered(2);
    const amfUeNgapId = amfIdAt(s.ues, ue);
    const before = s.ues.contextModifications.filter((m) => m.amfUeNgapId === amfUeNgapId).length;
    s.ues.refuseContextModification = { choice: 'radioNetwork', value: 'unspecified' };
    await setAmbr('150 Mbps', '50 Mbps');
    const refused = (await modificationsOf(amfUeNgapId, before + 1))[before];
    assert.deepEqual(refused?.refused, { choice: 'radioNetwork', value: 'unspecified' });
    const warned = await s.until(
      async () => lines.find((line) => line.includes('ue_context_modification_failed')),
      'the warn line',
    );
    assert.match(warned, /"cause":"radioNetwork\/unspecified"/);

    // Had the Failure not ended the AMF's request, this change would wait for its 10 s guard.
    s.ues.refuseContextModification = undefined;
    await setAmbr('160 Mbps', '60 Mbps');
    const accepted = (await modificationsOf(amfUeNgapId, before + 2))[before + 1];
    assert.deepEqual(accepted?.ueAmbr, {
      uEAggregateMaximumBitRateDL: mbps(160),
      uEAggregateMaximumBitRateUL: mbps(60),
    });
    assert.equal(accepted?.refused, undefined);
  });

  it('a Response the AMF did not ask for: Error Indication message-not-compatible-with-receiver-state', async () => {
    const { ue } = await s.registered(3);
    const amfUeNgapId = amfIdAt(s.ues, ue);
    let ranUeNgapId = 0;
    for (let ran = 1; ran < 1000 && ranUeNgapId === 0; ran += 1)
      if (s.ues.link(ran)?.ue === ue) ranUeNgapId = ran;
    const indicated = s.gnb.next((event) => {
      if (event.type !== 'received' || event.exchange.pdu === undefined) return undefined;
      const read = readErrorIndication(event.exchange.pdu);
      return read.ok && read.message.amfUeNgapId === amfUeNgapId ? read.message : undefined;
    });
    assert.ok(s.gnb.send(buildUEContextModificationResponse({ amfUeNgapId, ranUeNgapId }), 1).ok);
    const indication = await indicated;
    assert.deepEqual(indication.cause, {
      choice: 'protocol',
      value: 'message-not-compatible-with-receiver-state',
    });
  });
});
