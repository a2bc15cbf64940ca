import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoreNetworkAssistanceInformationForInactive } from '../../src/network/ngap/generated/types.ts';
import { plmnIdentity, tac } from '../../src/network/ngap/ngap-values.ts';
import type { GnbUes, UeLink } from '../../src/simulator/ue/gnb-ues.ts';
import type { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import { assertTsharkAgrees } from './n2-service.ts';
import { startSessionService, type SessionService } from './session-service.ts';

/**
 * Core Network Assistance Information for RRC INACTIVE (TS 38.413 9.3.1.15) end to end: the AMF gives it
 * in the Initial Context Setup Request of a registration and of a Service Request (UE Identity Index
 * Value = 5G-S-TMSI mod 1024 per TS 38.304 7.1, T3512, the registration area), and when the UE settles
 * a new 5G-GUTI while the radio holds its context (the Configuration Update after a Service Request,
 * TS 24.501 5.4.4.1 a) it sends UE Context Modification Request with the new index (9.2.2.7). The
 * simulated gNB keeps what it was given per UE. tshark reads every PDU the service sent.
 */

/** The gNB's link of `ue`. */
function linkOf(ues: GnbUes, ue: SimulatedUe): UeLink {
  for (let ran = 1; ran < 1000; ran += 1) {
    const link = ues.link(ran);
    if (link?.ue === ue && link.amfUeNgapId !== undefined) return link;
  }
  assert.fail('the UE has no connection there');
}

/** The 10 bits of an Index Length 10 UE Identity Index Value. */
function indexOf(assistance: CoreNetworkAssistanceInformationForInactive | undefined): number {
  assert.ok(assistance !== undefined, 'the radio holds assistance information');
  const { uEIdentityIndexValue: index } = assistance;
  assert.equal(index.choice, 'indexLength10');
  assert.equal(index.value.length, 10);
  return ((index.value.bytes[0] ?? 0) << 2) | ((index.value.bytes[1] ?? 0) >> 6);
}

const tmsiOf = (ue: SimulatedUe): number => {
  const guti = ue.guti;
  assert.ok(guti !== undefined);
  return guti.tmsi;
};

describe('RRC INACTIVE assistance information (real service)', () => {
  let s: SessionService;
  before(async () => {
    s = await startSessionService();
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  it('the registration context setup carries the index of the new 5G-GUTI, T3512 and the area', async () => {
    const { ue } = await s.registered(1);
    const { inactiveAssistance } = linkOf(s.ues, ue);
    assert.equal(indexOf(inactiveAssistance), tmsiOf(ue) % 1024);
    // T3512 54 min is 50 min in GPRS timer 3 (unit 0 = 10 min, value 5), as in Registration Accept.
    assert.deepEqual([...(inactiveAssistance?.periodicRegistrationUpdateTimer.bytes ?? [])], [0x05]);
    const guti = ue.guti;
    assert.ok(guti !== undefined);
    assert.deepEqual(
      inactiveAssistance?.tAIListForInactive.map(({ tAI }) => [...tAI.pLMNIdentity, ...tAI.tAC]),
      [[...plmnIdentity(guti.mcc, guti.mnc), ...tac(1)]],
    );
    assert.equal(inactiveAssistance?.uESpecificDRX, undefined);
    assert.equal(inactiveAssistance?.mICOModeIndication, undefined);
  });

  it('after paging, the new 5G-GUTI reaches the radio by UE Context Modification', async () => {
    const { ue, sessions } = await s.registered(2);
    const established = await sessions.establish({ pduSessionId: 1, type: 'IPv4' });
    assert.ok(established.outcome === 'accepted');
    const address = established.session.ipv4;
    const released = ue.next((e) => (e.type === 'released' ? true : undefined));
    assert.ok(s.ues.requestRelease(ue));
    await released;
    const [forwarderId] = await s.until(async () => {
      const found = [...s.rules.sessions].find(([, r]) => r.ipv4 === address);
      return found?.[1].downlink === undefined ? found : undefined;
    }, 'the user plane deactivated');
    const before = tmsiOf(ue);
    const reallocated = ue.next((e) => (e.type === 'configuration-update' ? e : undefined));
    const paged = ue.next((e) => (e.type === 'paged' ? e.outcome : undefined));
    // Downlink data for the idle UE: Paging, answered by a Service Request (TS 24.501 5.4.4.1 a: a new
    // 5G-GUTI follows by Configuration Update once the radio holds the context).
    s.rules.downlinkData.push(forwarderId);
    assert.deepEqual(await paged, { outcome: 'accepted' });
    // The Service Request's context setup names the 5G-GUTI the UE holds then.
    const link = linkOf(s.ues, ue);
    const setUpIndex = indexOf(link.inactiveAssistance);
    await reallocated;
    const after = tmsiOf(ue);
    assert.notEqual(after, before, 'a new 5G-GUTI after paging-less Service Request (5.4.4.1 a)');
    const modification = await s.until(async () => {
      const found = s.ues.contextModifications.filter(
        (m) => m.amfUeNgapId === link.amfUeNgapId && m.inactiveAssistance !== undefined,
      );
      return found.length > 0 ? found : undefined;
    }, 'a UE Context Modification with assistance information');
    assert.equal(modification.length, 1, 'one request');
    const [first] = modification;
    assert.equal(first?.ueAmbr, undefined, 'no UE-AMBR: it did not change');
    assert.equal(indexOf(first?.inactiveAssistance), after % 1024);
    assert.equal(indexOf(linkOf(s.ues, ue).inactiveAssistance), after % 1024, 'the gNB keeps the new one');
    // The index the Service Request's setup carried was that of the 5G-GUTI before.
    assert.equal(setUpIndex, before % 1024);
  });

  it('the radio reports RRC state transitions when the context setup asks; the UE stays connected', async () => {
    const { ue, imsi } = await s.registered(3);
    const errorsBefore = s.received.filter((x) => x.messageType === 'ErrorIndication').length;
    assert.ok(s.ues.reportRrcState(ue, 'inactive'), 'the Initial Context Setup asked for reports');
    assert.ok(s.ues.reportRrcState(ue, 'connected'));
    await s.t.records.flush();
    const events = await s.until(async () => {
      const { items } = await s.get<{ items: { direction: string }[] }>(
        '/api/v1/ran/events?message_type=RRCInactiveTransitionReport',
      );
      return items.length >= 2 ? items : undefined;
    }, 'both reports as radio events');
    assert.ok(events.every((e) => e.direction === 'inbound'));
    assert.equal(
      s.received.filter((x) => x.messageType === 'ErrorIndication').length,
      errorsBefore,
      'no Error Indication for the reports',
    );
    // RRC_INACTIVE is CM-CONNECTED (TS 23.502 4.8.2): no release, the connection stays.
    assert.ok(ue.connected);
    assert.ok(imsi.length > 0);
  });
});
