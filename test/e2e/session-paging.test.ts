import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ieValue } from '../helpers/ie-value.ts';
import { nasOf, psisOf } from '../helpers/nas-psis.ts';
import { newProfile } from '../helpers/network.ts';
import { tsharkTree } from '../helpers/tshark.ts';
import { assertTsharkAgrees } from './n2-service.ts';
import { startSessionService, type SessionService } from './session-service.ts';

/**
 * PDU sessions of idle devices end to end (TS 23.502 4.2.3.3, TS 24.501 5.6.1.4.1, 5.6.2, 6.4.2): the
 * UPF's downlink data notification pages the device, its Service Request brings the user plane back;
 * the PDU session status IEs of Service Request and Service Accept; a UE-requested modification; the
 * cause of a deregistration the device was paged for. Against the real service (session-service.ts);
 * tshark reads every NGAP PDU the gNB received and the NAS messages these procedures added.
 */

describe('PDU sessions of idle devices through the simulator against the real service', () => {
  let s: SessionService;
  before(async () => {
    s = await startSessionService();
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  const statusOf = async (imsi: string, id = 1): Promise<string | undefined> =>
    (await s.sessionsOf(imsi)).find((x) => x.id === id)?.status;
  const until = (imsi: string, status: string): Promise<true> =>
    s.until(async () => ((await statusOf(imsi)) === status ? true : undefined), `session ${status}`);
  /** Registers device `n`, gives it an active session 1 and lets it go idle. */
  const idleWithSession = async (n: number) => {
    const device = await s.registered(n);
    const established = await device.sessions.establish({ pduSessionId: 1, type: 'IPv4' });
    assert.ok(established.outcome === 'accepted');
    await until(device.imsi, 'active');
    const released = device.ue.next((e) => (e.type === 'released' ? true : undefined));
    assert.ok(s.ues.requestRelease(device.ue));
    await released;
    await until(device.imsi, 'inactive');
    return { ...device, address: established.session.ipv4 };
  };

  /** The 5G-TMSI a Paging named. */
  const tmsiOfPaging = (pdu: (typeof s.received)[number]['pdu'] | undefined): number => {
    assert.ok(pdu?.choice === 'initiatingMessage' && pdu.value.name === 'Paging');
    const identity = ieValue(pdu.value.value.protocolIEs, 'UEPagingIdentity');
    assert.ok(identity?.choice === 'fiveG-S-TMSI');
    return Buffer.from(identity.value.fiveGTMSI).readUInt32BE(0);
  };
  /** The 5G-TMSI the last Paging named. */
  const pagedTmsi = (): number =>
    tmsiOfPaging(s.received.filter((exchange) => exchange.messageType === 'Paging').at(-1)?.pdu);

  it('downlink data for an idle device: paged, its Service Request brings the user plane back in Initial Context Setup; both carry PDU session status', async () => {
    const { imsi, ue, address } = await idleWithSession(21);
    const [forwarderId, rule] = [...s.rules.sessions].find(([, r]) => r.ipv4 === address) ?? [];
    assert.ok(forwarderId !== undefined && rule !== undefined);
    assert.equal(rule.downlink, undefined); // idle: no tunnel, the forwarder drops downlink
    const paged = ue.next((e) => (e.type === 'paged' ? e.outcome : undefined));
    const up = new Promise<void>((resolve) => {
      const off = s.ues.sessions.on((event) => {
        if (event.type === 'up' && event.session.ue === ue) {
          off();
          resolve();
        }
      });
    });
    const setups = (): number =>
      s.received.filter((exchange) => exchange.messageType === 'PDUSessionResourceSetupRequest').length;
    const setupsBefore = setups();
    // A downlink packet found no tunnel: the UPF tells the SMF, which has the AMF page the device.
    s.rules.downlinkData.push(forwarderId);
    assert.deepEqual(await paged, { outcome: 'accepted' });
    await up;
    await until(imsi, 'active');
    assert.match(rule.downlink ?? '', /^127\.0\.0\.2:2152 teid \d+ qfi 1$/);
    assert.ok(s.received.some((exchange) => exchange.messageType === 'Paging'));
    // The user plane came back inside Initial Context Setup (its PDU Session Resource Setup List, with
    // the UE-AMBR), not in a PDU Session Resource Setup of its own.
    assert.equal(setups(), setupsBefore);
    const context = s.received
      .filter((exchange) => exchange.messageType === 'InitialContextSetupRequest')
      .at(-1)?.pdu;
    assert.ok(context?.choice === 'initiatingMessage' && context.value.name === 'InitialContextSetup');
    const ies = context.value.value.protocolIEs;
    assert.deepEqual(
      ieValue(ies, 'PDUSessionResourceSetupListCxtReq')?.map((item) => item.pDUSessionID),
      [1],
    );
    const ueAmbr = ieValue(ies, 'UEAggregateMaximumBitRate');
    assert.deepEqual(
      [ueAmbr?.uEAggregateMaximumBitRateDL, ueAmbr?.uEAggregateMaximumBitRateUL],
      [1e9, 1e9], // the default profile's bit rates
    );

    // The Service Request went with its cleartext IEs and the ciphered NAS message container (TS 24.501
    // 4.4.6); `nasOf` gives the whole message the container held.
    const sent = ue.log.find((exchange) => exchange.messageType === 'serviceRequest');
    assert.ok(sent?.contained !== undefined);
    const [request] = nasOf(ue, 'serviceRequest');
    const [accept] = nasOf(ue, 'serviceAccept');
    assert.ok(request !== undefined && accept !== undefined);
    const [heardOuter, heardRequest, heardAccept] = await tsharkTree('nas-5gs', [
      sent.plain,
      request,
      accept,
    ]);
    // tshark reads the container's ciphered value as a NAS message of its own: only the outer one is checked.
    assert.match(heardOuter?.info ?? '', /^Service request/);
    const outerIes = Object.keys(heardOuter?.layer['Plain NAS 5GS Message'] as Record<string, unknown>);
    assert.ok(
      outerIes.some((ie) => ie.startsWith('NAS message container')),
      outerIes.join(', '),
    );
    assert.ok(!outerIes.some((ie) => /PDU session status|Uplink data status/.test(ie)), outerIes.join(', '));
    assert.equal(heardRequest?.info, 'Service request');
    assert.equal(heardRequest.expert, '');
    assert.deepEqual(psisOf(heardRequest.layer, 'PDU session status', 'pdu_ses_sts_psi_'), [1]);
    assert.equal(heardAccept?.info, 'Service accept');
    assert.equal(heardAccept.expert, '');
    assert.deepEqual(psisOf(heardAccept.layer, 'PDU session status', 'pdu_ses_sts_psi_'), [1]);
  });

  it('a Service Request without Uplink data status leaves the user plane down; one with it brings only the sessions it names back', async () => {
    const { imsi, ue, sessions } = await s.registered(22);
    for (const pduSessionId of [1, 2])
      assert.equal((await sessions.establish({ pduSessionId, type: 'IPv4' })).outcome, 'accepted');
    await s.until(
      async () => ((await statusOf(imsi, 2)) === 'active' ? true : undefined),
      'session 2 active',
    );
    let released = ue.next((e) => (e.type === 'released' ? true : undefined));
    assert.ok(s.ues.requestRelease(ue));
    await released;
    await until(imsi, 'inactive');

    assert.equal((await ue.serviceRequest('signalling')).outcome, 'accepted');
    released = ue.next((e) => (e.type === 'released' ? true : undefined));
    assert.ok(s.ues.requestRelease(ue));
    await released;
    assert.equal(await statusOf(imsi, 1), 'inactive');
    assert.equal(await statusOf(imsi, 2), 'inactive');

    assert.equal((await ue.serviceRequest('data', { uplinkData: [2] })).outcome, 'accepted');
    await s.until(
      async () => ((await statusOf(imsi, 2)) === 'active' ? true : undefined),
      'session 2 active again',
    );
    assert.equal(await statusOf(imsi, 1), 'inactive');
    const accept = nasOf(ue, 'serviceAccept').at(-1);
    assert.ok(accept !== undefined);
    const [heard] = await tsharkTree('nas-5gs', [accept]);
    assert.deepEqual(psisOf(heard?.layer ?? {}, 'PDU session status', 'pdu_ses_sts_psi_'), [1, 2]);
    // Session 2 came back: nothing failed (PDU session reactivation result all zero).
    assert.deepEqual(
      psisOf(heard?.layer ?? {}, 'PDU session reactivation result', 'pdu_ses_rect_res_psi_'),
      [],
    );
  });

  it('UE-requested modification: served without a QoS change (Modification Command), rejected #37 for another 5QI', async () => {
    const { ue, sessions } = await s.registered(23);
    assert.equal((await sessions.establish({ pduSessionId: 1, type: 'IPv4' })).outcome, 'accepted');
    const modified = sessions.next((e) => (e.type === 'modified' ? e.session : undefined));
    assert.ok(sessions.requestModification(1));
    assert.equal((await modified).pduSessionId, 1);
    const rejected = sessions.next((e) => (e.type === 'modification-rejected' ? e.cause : undefined));
    assert.ok(
      sessions.requestModification(1, {
        requestedQosFlowDescriptions: [
          {
            qfi: 1,
            operationCode: 3,
            eBit: true,
            parameters: [{ identifier: 1, contents: Uint8Array.of(8) }],
          },
        ],
      }),
    );
    assert.equal(await rejected, 37);
    // The Command (the request's PTI) and the Reject, as tshark reads them inside DL NAS Transport.
    const heard = await tsharkTree('nas-5gs', nasOf(ue, 'dlNasTransport').slice(-2));
    assert.deepEqual(
      heard.map((verdict) => [verdict.info, verdict.malformed, verdict.expert]),
      [
        ['DL NAS transport, PDU session modification command', false, ''],
        ['DL NAS transport, PDU session modification reject (Unknown)', false, ''],
      ],
    );
  });

  it('a device paged for a #62 deregistration hears #62 (no slice left in its new profile), not #7', async () => {
    const { imsi, ue } = await s.registered(24);
    const released = ue.next((e) => (e.type === 'released' ? true : undefined));
    assert.ok(s.ues.requestRelease(ue));
    await released;
    const away = ue.next((e) => (e.type === 'deregistered-by-network' ? e.cause : undefined));
    assert.equal(await s.request('POST', '/api/v1/profiles', newProfile('no-policy')), 201);
    assert.equal(await s.request('PUT', `/api/v1/subscribers/${imsi}`, { profile_name: 'no-policy' }), 200);
    assert.equal(await away, 62);
  });

  it('a session the network released while the device was idle: Service Accept`s PDU session status lacks it and the device releases it locally', async () => {
    // Last: the pool change releases every session of the default profile.
    const { imsi, ue, sessions } = await idleWithSession(25);
    await s.putDefaultProfile({ 'ue-ip-pool': '10.47.0.0/16' });
    // Idle: not paged for it, released at once in the core.
    await s.until(async () => ((await statusOf(imsi)) === undefined ? true : undefined), 'no session');
    const local = sessions.next((e) => (e.type === 'released-locally' ? e.pduSessionId : undefined));
    assert.equal((await ue.serviceRequest('data', { uplinkData: [1] })).outcome, 'accepted');
    assert.equal(await local, 1);
    assert.equal(sessions.get(1), undefined);
    const accept = nasOf(ue, 'serviceAccept').at(-1);
    assert.ok(accept !== undefined);
    const [heard] = await tsharkTree('nas-5gs', [accept]);
    assert.equal(heard?.expert, '');
    assert.deepEqual(psisOf(heard.layer, 'PDU session status', 'pdu_ses_sts_psi_'), []);
    assert.deepEqual(psisOf(heard.layer, 'PDU session reactivation result', 'pdu_ses_rect_res_psi_'), [1]);
  });

  it('a Service Request that answered paging: a new 5G-GUTI by Configuration Update; the device comes back with it, not with the old one', async () => {
    const { imsi, ue } = await idleWithSession(26);
    const [forwarderId] =
      [...s.rules.sessions].find(([, r]) => r.ipv4 !== undefined && r.downlink === undefined) ?? [];
    assert.ok(forwarderId !== undefined);
    const old = ue.guti;
    assert.ok(old !== undefined);
    const paged = ue.next((e) => (e.type === 'paged' ? e.outcome : undefined));
    const updated = ue.next((e) => (e.type === 'configuration-update' ? e.guti : undefined));
    s.rules.downlinkData.push(forwarderId);
    assert.deepEqual(await paged, { outcome: 'accepted' });
    // TS 24.501 5.4.4.1 a, TS 33.501 6.12.3: reassigned before the connection is released.
    const guti = await updated;
    assert.ok(guti !== undefined && guti.tmsi !== old.tmsi);
    assert.deepEqual({ ...guti, tmsi: old.tmsi }, old);
    await s.until(async () => {
      const page = await s.get<{ items: { event: string }[] }>(`/api/v1/logs/subscribers?imsi=${imsi}`);
      return page.items.some((row) => row.event === 'Configuration Update Complete') ? true : undefined;
    }, 'Configuration Update Complete logged');
    const [command] = nasOf(ue, 'configurationUpdateCommand');
    assert.ok(command !== undefined);
    const [heard] = await tsharkTree('nas-5gs', [command]);
    assert.equal(heard?.info, 'Configuration update command');
    assert.equal(heard.expert, '');
    const ies = Object.keys(heard.layer['Plain NAS 5GS Message'] as Record<string, unknown>);
    assert.ok(
      ies.some((ie) => ie.startsWith('5GS mobile identity')),
      ies.join(', '),
    );

    // Idle again, it is paged under the new 5G-GUTI, and answers under it.
    assert.equal(pagedTmsi(), old.tmsi);
    const released = ue.next((e) => (e.type === 'released' ? true : undefined));
    assert.ok(s.ues.requestRelease(ue));
    await released;
    await until(imsi, 'inactive');
    const pagedAgain = ue.next((e) => (e.type === 'paged' ? e.outcome : undefined));
    const updatedAgain = ue.next((e) => (e.type === 'configuration-update' ? e.guti : undefined));
    s.rules.downlinkData.push(forwarderId);
    assert.deepEqual(await pagedAgain, { outcome: 'accepted' });
    assert.equal(pagedTmsi(), guti.tmsi);
    assert.notEqual((await updatedAgain)?.tmsi, guti.tmsi);
  });

  it('the Configuration Update Command is lost with the connection: both 5G-GUTIs stay valid, paged under both, the one the device answers with is kept (TS 24.501 5.4.4.5 a)', async () => {
    const { imsi, ue, address } = await idleWithSession(27);
    const [forwarderId] = [...s.rules.sessions].find(([, r]) => r.ipv4 === address) ?? [];
    assert.ok(forwarderId !== undefined);
    const old = ue.guti;
    assert.ok(old !== undefined);
    // The radio delivers the Service Accept and loses what follows it: the Configuration Update Command.
    const deliver = ue.downlink.bind(ue);
    let downlinks = 0;
    ue.downlink = (pdu) => {
      if (++downlinks !== 2) deliver(pdu);
    };
    const paged = ue.next((e) => (e.type === 'paged' ? e.outcome : undefined));
    s.rules.downlinkData.push(forwarderId);
    assert.deepEqual(await paged, { outcome: 'accepted' });
    await s.until(async () => (downlinks >= 2 ? true : undefined), 'the command lost');
    ue.downlink = deliver;
    const released = ue.next((e) => (e.type === 'released' ? true : undefined));
    assert.ok(s.ues.requestRelease(ue));
    await released;
    await until(imsi, 'inactive');
    assert.equal(ue.guti?.tmsi, old.tmsi);

    // Both stay valid: paged under both, it answers under the old one, which names it from now on, and
    // it is owed a new 5G-GUTI again.
    const pagings = s.received.filter((exchange) => exchange.messageType === 'Paging').length;
    const pagedAgain = ue.next((e) => (e.type === 'paged' ? e.outcome : undefined));
    const updated = ue.next((e) => (e.type === 'configuration-update' ? e.guti : undefined));
    s.rules.downlinkData.push(forwarderId);
    assert.deepEqual(await pagedAgain, { outcome: 'accepted' });
    const named = s.received
      .filter((exchange) => exchange.messageType === 'Paging')
      .slice(pagings)
      .map((exchange) => tmsiOfPaging(exchange.pdu));
    assert.equal(named.length, 2);
    assert.ok(named.includes(old.tmsi), JSON.stringify(named));
    const guti = await updated;
    assert.ok(guti !== undefined && guti.tmsi !== old.tmsi && !named.includes(guti.tmsi));
  });
});
