import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeNasMessage } from '../../src/network/nas/index.ts';
import { XnHandover } from '../../src/simulator/gnb-handover.ts';
import { N2Handover } from '../../src/simulator/gnb-handover-n2.ts';
import type { ServingCell } from '../../src/simulator/ue/ran-ue-messages.ts';
import type { RegistrationOutcome } from '../../src/simulator/ue/simulated-ue.ts';
import { assertTsharkAgrees, OPERATOR_PLMN } from './n2-service.ts';
import { startSessionService, type SessionService } from './session-service.ts';

/**
 * A mobility registration update after an N2 handover (TS 23.502 4.9.1.3.3 step 9, TS 24.501 5.5.1.3.2 a):
 * a UE registered while the operator served TAC 1 only is handed over, with a session carrying its user
 * plane, to a gNB of TAC 2, which the operator added since. TAC 2 is outside the UE's registration area,
 * so the simulated UE updates its registration over the target's connection. The AMF accepts it in a
 * Downlink NAS Transport with the new registration area, a new 5G-GUTI (network.md section 5: one at every
 * registration) and the session's status, and keeps the connection: the UE was in CM-CONNECTED with its
 * user plane up before the request, so the update does not end in an AN release. tshark reads every PDU
 * the service sent.
 */

const CELL_TAC_2: ServingCell = { plmn: OPERATOR_PLMN, nrCellIdentity: 0x8002, tac: 2 };

describe('registration update after an N2 handover into a new tracking area (real service)', () => {
  let s: SessionService;
  let n2A: N2Handover;
  let xnA: XnHandover;
  before(async () => {
    s = await startSessionService();
    n2A = new N2Handover(s.gnb, s.ues, { pci: 1, arfcnDl: 632628 });
    xnA = new XnHandover(s.gnb, s.ues, { pci: 1, arfcnDl: 632628 });
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  it('updates to the new registration area over the target; sessions and the connection stay', async () => {
    const { imsi, ue, sessions } = await s.registered(1);
    assert.equal(
      (await sessions.establish({ type: 'IPv4', dnn: 'internet', sNssai: { sst: 1 } })).outcome,
      'accepted',
    );
    const upfSession = await s.until(
      async () => [...s.rules.sessions.values()].find((r) => r.downlink?.startsWith('127.0.0.2:') === true),
      'the downlink towards gnb-1',
    );
    const tmsi = ue.guti?.tmsi;

    // The operator adds TAC 2; the AMF tells gnb-1 (TS 38.413 8.7.3); the UE's area stays TAC 1.
    const applied = s.gnb.next((event) => (event.type === 'amf-configuration-update' ? event : undefined));
    assert.equal(
      await s.request('PUT', '/api/v1/operator/tracking', { supportedTacs: ['000001', '000002'] }),
      200,
    );
    await applied;
    const { gnb: gnb2, ues: ues2 } = await s.anotherGnb(2, CELL_TAC_2, '127.0.0.3', {
      supportedTas: [{ tac: 2, plmns: [{ plmn: OPERATOR_PLMN, slices: [{ sst: 1 }] }] }],
    });
    const n2B = new N2Handover(gnb2, ues2, { pci: 2, arfcnDl: 632628 });

    const updated = ue.next((event) => (event.type === 'mobility-registration' ? event.outcome : undefined));
    let released = 0;
    ue.on((event) => {
      if (event.type === 'released') released += 1;
    });
    const handover = await n2A.handOver(ue, n2B);
    assert.equal(handover.outcome, 'handed-over', JSON.stringify(handover));
    assert.equal(ue.radio, ues2);

    const outcome: RegistrationOutcome = await updated;
    assert.ok(outcome.outcome === 'accepted', JSON.stringify(outcome));
    assert.deepEqual(
      outcome.taiList.flatMap((list) => ('tacs' in list ? list.tacs : [])),
      [1, 2],
    );
    assert.notEqual(ue.guti?.tmsi, tmsi, 'a new 5G-GUTI at every registration');
    assert.equal(ue.inRegistrationArea, true);
    const accept = ue.log.findLast((exchange) => exchange.messageType === 'registrationAccept');
    assert.ok(accept !== undefined);
    const decoded = decodeNasMessage(accept.plain);
    assert.ok(decoded.ok && decoded.message.messageType === 'registrationAccept');
    // TS 24.501 5.5.1.3.4: the PDU session status the UE sent is answered with the network's: session 1.
    assert.deepEqual(decoded.message.pduSessionStatus, [1]);
    // The connection stays: NAS goes on through gnb-2 (a second session comes up there), and no release
    // reached the UE. Had the AMF released it after Registration Complete, its UE Context Release
    // Command would have come before the second session's accept.
    const second = await sessions.establish({ type: 'IPv4', dnn: 'internet', sNssai: { sst: 1 } });
    assert.equal(second.outcome, 'accepted');
    assert.equal(released, 0, 'the UE was not released');
    assert.equal(ue.connected, true);
    assert.equal(ues2.sessions.of(ue).length, 2);
    const [first] = ues2.sessions.of(ue).filter((session) => session.pduSessionId === 1);
    assert.ok(first !== undefined);
    assert.equal(upfSession.downlink, `127.0.0.3:2152 teid ${first.downlink.teid} qfi 1`);
    await s.until(async () => {
      const statuses = (await s.sessionsOf(imsi)).map((session) => session.status);
      return statuses.join() === 'active,active' ? true : undefined;
    }, 'both sessions active in the API');
    const status = await s.get<{ status: { registered: boolean; last_seen_radio: string } }>(
      `/api/v1/subscribers/${imsi}`,
    );
    assert.equal(status.status.registered, true);
    assert.equal(status.status.last_seen_radio, 'gnb-2');
  });

  it('after an Xn handover (path switch) into a new tracking area too', async () => {
    // Registered while the operator serves TACs 1 and 2 (the test before added TAC 2).
    const { ue, sessions } = await s.registered(2);
    assert.equal(
      (await sessions.establish({ type: 'IPv4', dnn: 'internet', sNssai: { sst: 1 } })).outcome,
      'accepted',
    );
    const applied = s.gnb.next((event) => (event.type === 'amf-configuration-update' ? event : undefined));
    assert.equal(
      await s.request('PUT', '/api/v1/operator/tracking', { supportedTacs: ['000001', '000002', '000003'] }),
      200,
    );
    await applied;
    const { gnb: gnb3, ues: ues3 } = await s.anotherGnb(
      3,
      { plmn: OPERATOR_PLMN, nrCellIdentity: 0xc003, tac: 3 },
      '127.0.0.4',
      { supportedTas: [{ tac: 3, plmns: [{ plmn: OPERATOR_PLMN, slices: [{ sst: 1 }] }] }] },
    );
    const xnC = new XnHandover(gnb3, ues3, { pci: 3, arfcnDl: 632628 });

    const updated = ue.next((event) => (event.type === 'mobility-registration' ? event.outcome : undefined));
    let released = 0;
    ue.on((event) => {
      if (event.type === 'released') released += 1;
    });
    const handover = await xnA.handOver(ue, xnC);
    assert.equal(handover.outcome, 'switched', JSON.stringify(handover));
    const outcome = await updated;
    assert.ok(outcome.outcome === 'accepted', JSON.stringify(outcome));
    assert.deepEqual(
      outcome.taiList.flatMap((list) => ('tacs' in list ? list.tacs : [])),
      [1, 2, 3],
    );
    const second = await sessions.establish({ type: 'IPv4', dnn: 'internet', sNssai: { sst: 1 } });
    assert.equal(second.outcome, 'accepted');
    assert.equal(released, 0, 'the UE was not released');
    assert.equal(ues3.sessions.of(ue).length, 2);
  });
});
