import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeNasMessage, encodeNasMessage } from '../../src/network/nas/index.ts';
import { ieValue } from '../helpers/ie-value.ts';
import { nasOf, psisOf } from '../helpers/nas-psis.ts';
import { tsharkTree } from '../helpers/tshark.ts';
import { assertTsharkAgrees } from './n2-service.ts';
import { startSessionService, type SessionService } from './session-service.ts';

/**
 * PDU sessions across a mobility or periodic registration from idle (TS 24.501 5.5.1.3.2, 5.5.1.3.4;
 * TS 23.502 4.2.2.2.2 steps 17, 21): the Registration Request's PDU session status releases in the
 * core what the device no longer holds (address, UPF rules, the API's session); its Uplink data status
 * brings those sessions' user plane back in the Initial Context Setup that carries Registration Accept,
 * with the PDU session reactivation result; Registration Accept carries the network's PDU session
 * status. The device sends those IEs in the ciphered NAS message container (TS 24.501 4.4.6), which
 * the AMF deciphers. Against the real service (session-service.ts); tshark reads what the gNB received,
 * the Registration Request (outside and inside its container) and the Registration Accepts.
 */

describe('PDU sessions across a registration update through the simulator against the real service', () => {
  let s: SessionService;
  before(async () => {
    s = await startSessionService();
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  const statuses = async (imsi: string): Promise<string> =>
    (await s.sessionsOf(imsi))
      .sort((a, b) => a.id - b.id)
      .map((x) => `${x.id} ${x.status}`)
      .join(', ');
  const until = (imsi: string, expected: string): Promise<true> =>
    s.until(async () => ((await statuses(imsi)) === expected ? true : undefined), expected);

  /** Registers device `n` with active sessions `ids` and lets it go idle. */
  const idleWithSessions = async (n: number, ids: number[]) => {
    const device = await s.registered(n);
    for (const pduSessionId of ids)
      assert.equal((await device.sessions.establish({ pduSessionId, type: 'IPv4' })).outcome, 'accepted');
    await until(device.imsi, ids.map((id) => `${id} active`).join(', '));
    const released = device.ue.next((e) => (e.type === 'released' ? true : undefined));
    assert.ok(s.ues.requestRelease(device.ue));
    await released;
    await until(device.imsi, ids.map((id) => `${id} inactive`).join(', '));
    return device;
  };

  it('mobility registration: a session the device dropped is released in the core; Uplink data status brings a session back in Initial Context Setup', async () => {
    const { imsi, ue, sessions } = await idleWithSessions(31, [1, 2, 3]);
    const dropped = sessions.get(2)?.ipv4;
    assert.ok(dropped !== undefined && [...s.rules.sessions.values()].some((r) => r.ipv4 === dropped));
    // The device lost session 2 on its own (no signalling): its PDU session status says 1 and 3.
    assert.ok(sessions.releaseLocally(2));
    const contextsBefore = s.received.filter((x) => x.messageType === 'InitialContextSetupRequest').length;

    // Uplink data for session 1, and for 4, which the network never had.
    assert.equal((await ue.registrationUpdate('mobility', { uplinkData: [1, 4] })).outcome, 'accepted');
    await until(imsi, '1 active, 3 inactive');
    // Session 2's address and forwarder rules went with it (network.md 6).
    assert.ok(![...s.rules.sessions.values()].some((r) => r.ipv4 === dropped));

    const contexts = s.received.filter((x) => x.messageType === 'InitialContextSetupRequest');
    assert.equal(contexts.length, contextsBefore + 1);
    const context = contexts.at(-1)?.pdu;
    assert.ok(context?.choice === 'initiatingMessage' && context.value.name === 'InitialContextSetup');
    const ies = context.value.value.protocolIEs;
    assert.deepEqual(
      ieValue(ies, 'PDUSessionResourceSetupListCxtReq')?.map((item) => item.pDUSessionID),
      [1],
    );
    assert.equal(ieValue(ies, 'UEAggregateMaximumBitRate')?.uEAggregateMaximumBitRateDL, 1e9);

    // TS 24.501 4.4.6: the request went with its cleartext IEs and the ciphered NAS message container,
    // which holds the whole message (tshark cannot decipher it: the outer layer and the IE are checked).
    const sent = ue.log.filter((x) => x.messageType === 'registrationRequest').at(-1);
    assert.ok(sent?.contained !== undefined);
    // tshark dissects the container's value as a NAS message, which ciphered it is not: the outer
    // message is also read with the container's value in the clear (as NEA0 would send it).
    const decodedOuter = decodeNasMessage(sent.plain);
    assert.ok(decodedOuter.ok && decodedOuter.message.messageType === 'registrationRequest');
    const clear = encodeNasMessage({ ...decodedOuter.message, nasMessageContainer: sent.contained });
    const [outer, outerInClear, whole] = await tsharkTree('nas-5gs', [sent.plain, clear, sent.contained]);
    assert.equal(outer?.info, 'Registration request');
    // ... where tshark reads the Registration Request inside the container too.
    assert.equal(outerInClear?.info, 'Registration request, Registration request');
    assert.equal(outerInClear.malformed, false);
    assert.equal(outerInClear.expert, '');
    const outerIes = Object.keys(outer.layer['Plain NAS 5GS Message'] as Record<string, unknown>);
    assert.ok(
      outerIes.some((ie) => ie.startsWith('NAS message container')),
      outerIes.join(', '),
    );
    assert.ok(
      !outerIes.some((ie) => /PDU session status|Uplink data status|NSSAI/.test(ie)),
      outerIes.join(', '),
    );
    assert.equal(whole?.expert, '');
    assert.deepEqual(psisOf(whole.layer, 'PDU session status', 'pdu_ses_sts_psi_'), [1, 3]);
    assert.deepEqual(psisOf(whole.layer, 'Uplink data status', 'ul_data_sts_psi_'), [1, 4]);

    const accept = nasOf(ue, 'registrationAccept').at(-1);
    assert.ok(accept !== undefined);
    const [heard] = await tsharkTree('nas-5gs', [accept]);
    assert.equal(heard?.info, 'Registration accept');
    assert.equal(heard.expert, '');
    assert.deepEqual(psisOf(heard.layer, 'PDU session status', 'pdu_ses_sts_psi_'), [1, 3]);
    // Session 4 could not come back: the network holds no such session.
    assert.deepEqual(psisOf(heard.layer, 'PDU session reactivation result', 'pdu_ses_rect_res_psi_'), [4]);
    // The device keeps what the network holds.
    assert.deepEqual(
      sessions
        .all()
        .map((x) => x.pduSessionId)
        .sort(),
      [1, 3],
    );
  });

  it('periodic registration without Uplink data status: the sessions stay inactive, Registration Accept lists them, the connection is released', async () => {
    const { imsi, ue } = await idleWithSessions(32, [1]);
    const released = ue.next((e) => (e.type === 'released' ? true : undefined));
    assert.equal((await ue.registrationUpdate('periodic')).outcome, 'accepted');
    await released;
    assert.equal(await statuses(imsi), '1 inactive');
    const accept = nasOf(ue, 'registrationAccept').at(-1);
    assert.ok(accept !== undefined);
    const [heard] = await tsharkTree('nas-5gs', [accept]);
    assert.equal(heard?.expert, '');
    assert.deepEqual(psisOf(heard.layer, 'PDU session status', 'pdu_ses_sts_psi_'), [1]);
    assert.equal(
      (heard.layer['Plain NAS 5GS Message'] as Record<string, unknown>)['PDU session reactivation result'],
      undefined,
    );
  });
});
