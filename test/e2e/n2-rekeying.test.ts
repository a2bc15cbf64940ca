import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ACCESS_TYPE, deriveKgnb, deriveNh } from '../../src/crypto/key-hierarchy.ts';
import { decodeComplete } from '../../src/network/asn1/complete.ts';
import { decodeNasMessage, decodeNasPdu } from '../../src/network/nas/index.ts';
import { decodePathSwitchRequestUnsuccessfulTransfer } from '../../src/network/ngap/generated/codec.ts';
import {
  readPathSwitchRequestFailure,
  readUEContextModificationRequest,
} from '../../src/network/ngap/generated/messages.ts';
import { deriveKgnbStar } from '../../src/network/security/handover-keys.ts';
import { XnHandover } from '../../src/simulator/gnb-handover.ts';
import { N2Handover } from '../../src/simulator/gnb-handover-n2.ts';
import type { SimulatedGnb } from '../../src/simulator/gnb.ts';
import type { GnbUes } from '../../src/simulator/ue/gnb-ues.ts';
import type { ServingCell } from '../../src/simulator/ue/ran-ue-messages.ts';
import type { SimulatedUe, UeEvent } from '../../src/simulator/ue/simulated-ue.ts';
import { ueKamf } from '../../src/simulator/ue/ue-handover.ts';
import { assertTsharkAgrees, OPERATOR_PLMN } from './n2-service.ts';
import { startSessionService, type SessionService } from './session-service.ts';

/**
 * NAS and AS key re-keying of a connected UE (TS 33.501 6.9.4.2, 6.9.4.4) through the real service: with
 * a low `nasRekeyCount`, a registered UE with a PDU session whose NAS COUNT crosses it is authenticated
 * again (Authentication Request protected under the current context) and takes the new KAMF into use by
 * Security Mode Command, while connected; then the gNB gets UE Context Modification Request with a KgNB
 * that is the one the UE derives itself, from the KAMF of its own USIM's authentication and the uplink
 * NAS COUNT of its Security Mode Complete (0: the first message under the new context). The session stays,
 * the NH chain starts over from the new KgNB (the next Xn handovers' KgNB* agree with the UE's, the
 * vertical one through the AMF's first NH of the new chain), a Service Request after a release gets a
 * KgNB from the new KAMF, the radio event of the modification holds no key, and tshark reads every PDU.
 * While the radio has not answered the new KgNB, a handover would get an {NH, NCC} that neither the radio's
 * key nor the UE's follows (TS 33.501 6.9.5): Handover Required and Path Switch Request are refused
 * (interaction-with-other-procedure); once answered, N2 handovers follow the new chain as the UE checks.
 */

const CELL_B: ServingCell = { plmn: OPERATOR_PLMN, nrCellIdentity: 0x8001, tac: 1 };
/** Above the COUNTs a registration uses (uplink 0, 1; downlink 0, 1); the second session crosses it. */
const REKEY_COUNT = 3;
const KEY_CHANGING = { choice: 'radioNetwork', value: 'interaction-with-other-procedure' } as const;

interface RadioEvent {
  id: number;
}

describe('re-keying a connected UE (real service)', () => {
  let s: SessionService;
  let gnb2: SimulatedGnb;
  let ues2: GnbUes;
  let xnA: XnHandover;
  let xnB: XnHandover;
  let n2A: N2Handover;
  let n2B: N2Handover;
  before(async () => {
    s = await startSessionService({ amf: { nasRekeyCount: REKEY_COUNT } });
    ({ gnb: gnb2, ues: ues2 } = await s.anotherGnb(2, CELL_B, '127.0.0.3'));
    xnA = new XnHandover(s.gnb, s.ues, { pci: 1, arfcnDl: 632628 });
    xnB = new XnHandover(gnb2, ues2, { pci: 2, arfcnDl: 632628 });
    n2A = new N2Handover(s.gnb, s.ues, { pci: 1, arfcnDl: 632628 });
    n2B = new N2Handover(gnb2, ues2, { pci: 2, arfcnDl: 632628 });
  });
  after(async () => {
    await assertTsharkAgrees([...s.received]);
    await s.close();
  });

  const authenticationRequests = (ue: SimulatedUe) =>
    ue.log.filter((e) => e.direction === 'downlink' && e.messageType === 'authenticationRequest');

  /**
   * UE `n` registered, its gNB holding UE Context Modification Requests unanswered, and sessions until
   * its re-keying's request with the new KgNB reached the gNB: the AS key change is under way.
   */
  async function keyChangeUnanswered(n: number) {
    const { ue, sessions } = await s.registered(n);
    const events: UeEvent[] = [];
    ue.on((event) => void events.push(event));
    const mark = s.received.length;
    s.ues.holdContextModifications = true;
    for (let i = 0; i < 2; i++)
      assert.equal(
        (await sessions.establish({ type: 'IPv4', dnn: 'internet', sNssai: { sst: 1 } })).outcome,
        'accepted',
      );
    const held = await s.until(async () => {
      for (const exchange of s.received.slice(mark)) {
        if (exchange.messageType !== 'UEContextModificationRequest' || exchange.pdu === undefined) continue;
        const read = readUEContextModificationRequest(exchange.pdu);
        if (
          read.ok &&
          read.message.securityKey !== undefined &&
          s.ues.link(read.message.ranUeNgapId)?.ue === ue
        )
          return read.message;
      }
      return undefined;
    }, 'the re-keying UE Context Modification Request at the gNB');
    assert.equal(authenticationRequests(ue).length, 2);
    assert.equal(events.filter((e) => e.type === 'key-changed').length, 0, 'not answered yet');
    return { ue, events, held };
  }

  it('re-authenticates, re-keys NAS and gives the gNB the KgNB the UE derives; keys hold afterwards', async () => {
    const { imsi, ue, sessions } = await s.registered(1);
    const events: UeEvent[] = [];
    ue.on((event) => void events.push(event));
    assert.equal(authenticationRequests(ue).length, 1);
    const firstKamf = ueKamf(ue);

    // A session (and a second one) move the NAS COUNTs past the threshold.
    const first = await sessions.establish({ type: 'IPv4', dnn: 'internet', sNssai: { sst: 1 } });
    assert.equal(first.outcome, 'accepted');
    const second = await sessions.establish({ type: 'IPv4', dnn: 'internet', sNssai: { sst: 1 } });
    assert.equal(second.outcome, 'accepted');

    const modification = await s.until(
      async () => s.ues.contextModifications.find((m) => m.securityKey !== undefined),
      'UE Context Modification Request with a Security Key',
    );
    assert.equal(modification.refused, undefined);
    const requests = authenticationRequests(ue);
    assert.equal(requests.length, 2, 'one new authentication');
    const rekeying = requests[1]!;
    // Under the current context: integrity protected and ciphered, not plain (TS 24.501 4.4.4.2).
    const outer = decodeNasPdu(rekeying.pdu);
    assert.ok(outer.ok && outer.pdu.kind === 'protected');
    const challenge = decodeNasMessage(rekeying.plain);
    assert.ok(challenge.ok && challenge.message.messageType === 'authenticationRequest');
    // A new ngKSI, not the one of the context it replaces.
    const firstChallenge = decodeNasMessage(requests[0]!.plain);
    assert.ok(firstChallenge.ok && firstChallenge.message.messageType === 'authenticationRequest');
    assert.notEqual(challenge.message.ngKsi.ksi, firstChallenge.message.ngKsi.ksi);
    const commands = ue.log.filter((e) => e.messageType === 'securityModeCommand');
    assert.equal(commands.length, 2);

    // The KgNB the gNB got is A.9 from the KAMF the UE's own USIM gives for the second challenge and the
    // uplink NAS COUNT of its Security Mode Complete under it: 0.
    const newKamf = ueKamf(ue);
    assert.ok(newKamf !== undefined && firstKamf !== undefined);
    assert.notDeepEqual(newKamf, firstKamf);
    assert.deepEqual(Buffer.from(modification.securityKey!), deriveKgnb(newKamf, 0, ACCESS_TYPE.threeGpp));
    await s.until(async () => events.find((e) => e.type === 'key-changed'), 'the UE told of the key change');
    assert.deepEqual(
      events.filter((e) => e.type === 'key-changed'),
      [{ type: 'key-changed', kgnbMatches: true }],
    );
    assert.equal(ue.connected, true, 'still connected');
    const status = await s.get<{ status: { registered: boolean } }>(`/api/v1/subscribers/${imsi}`);
    assert.equal(status.status.registered, true);

    // NAS goes on under the new context: a third session, and the two before are still there.
    const third = await sessions.establish({ type: 'IPv4', dnn: 'internet', sNssai: { sst: 1 } });
    assert.equal(third.outcome, 'accepted');
    assert.equal(s.ues.sessions.of(ue).length, 3);

    // The NH chain starts over from the new KgNB at NCC 0: horizontal, then vertical with the AMF's NH.
    const away = await xnA.handOver(ue, xnB);
    assert.ok(away.outcome === 'switched');
    assert.equal(away.ncc, 0);
    assert.deepEqual(away.ueKgnbStar, away.kgnbStar);
    assert.equal(away.answer.ncc, 1);
    const back = await xnB.handOver(ue, xnA);
    assert.ok(back.outcome === 'switched');
    assert.equal(back.ncc, 1);
    assert.ok(back.ueKgnbStar !== undefined);
    assert.deepEqual(back.ueKgnbStar, back.kgnbStar);

    // Released and back by Service Request: Initial Context Setup's KgNB is the UE's, from the new KAMF.
    const released = new Promise<void>((resolve) =>
      ue.on((event) => {
        if (event.type === 'released') resolve();
      }),
    );
    assert.equal(s.ues.requestRelease(ue), true);
    await released;
    assert.deepEqual(await ue.serviceRequest(), { outcome: 'accepted' });
    const setUp = events.filter((e) => e.type === 'context-setup');
    assert.deepEqual(setUp.at(-1), { type: 'context-setup', kgnbMatches: true });
    assert.equal(authenticationRequests(ue).length, 2, 'no further re-keying yet');

    // The radio event of the modification holds the PDU with its key zeroed.
    await s.t.records.flush();
    const stored = await s.get<{ items: RadioEvent[] }>(
      '/api/v1/ran/events?protocol=NGAP&message_type=UEContextModificationRequest',
    );
    assert.ok(stored.items.length >= 1);
    const key = Buffer.from(modification.securityKey!);
    for (const item of stored.items) {
      const detail = await s.get<{ raw: string; decoded: unknown }>(`/api/v1/ran/events/${item.id}`);
      const text = JSON.stringify(detail);
      assert.ok(!text.toLowerCase().includes(key.toString('hex')), 'no KgNB in hex');
      assert.ok(!text.includes(key.toString('base64').replace(/=+$/, '')), 'no KgNB in base64');
      assert.match(text, /redacted/i);
    }
    // The PDU on the wire carried it (so the check above looked at a key that was there).
    const wire = s.received.find((e) => e.messageType === 'UEContextModificationRequest');
    assert.ok(wire?.pdu !== undefined);
    const read = readUEContextModificationRequest(wire.pdu);
    assert.ok(read.ok);
    assert.deepEqual(Buffer.from(read.message.securityKey!.bytes), key);
  });

  it('refuses an N2 handover while the new KgNB is unanswered; the N2 handovers after follow the new chain', async () => {
    const { ue, events } = await keyChangeUnanswered(2);
    const refused = await n2A.handOver(ue, n2B);
    assert.deepEqual(refused, { outcome: 'failed', cause: KEY_CHANGING });
    assert.equal(ue.connected, true, 'still served by the source');

    s.ues.answerHeldContextModifications();
    await s.until(async () => events.find((e) => e.type === 'key-changed'), 'the key change answered');
    assert.deepEqual(
      events.filter((e) => e.type === 'key-changed'),
      [{ type: 'key-changed', kgnbMatches: true }],
    );

    // Right after: the target's KgNB* comes from NH 1 of the new chain, KDF(new KAMF, the new KgNB), and
    // the UE derives the same from its own keys.
    const kamf = ueKamf(ue);
    assert.ok(kamf !== undefined);
    const nh1 = deriveNh(kamf, deriveKgnb(kamf, 0, ACCESS_TYPE.threeGpp));
    const away = await n2A.handOver(ue, n2B);
    assert.ok(away.outcome === 'handed-over', JSON.stringify(away));
    assert.equal(away.ncc, 1);
    assert.deepEqual(away.kgnbStar, deriveKgnbStar(nh1, n2B.cell.pci, n2B.cell.arfcnDl));
    assert.ok(away.ueKgnbStar !== undefined);
    assert.deepEqual(away.ueKgnbStar, away.kgnbStar);
    const back = await n2B.handOver(ue, n2A);
    assert.ok(back.outcome === 'handed-over', JSON.stringify(back));
    assert.equal(back.ncc, 2);
    assert.deepEqual(back.kgnbStar, deriveKgnbStar(deriveNh(kamf, nh1), n2A.cell.pci, n2A.cell.arfcnDl));
    assert.deepEqual(back.ueKgnbStar, back.kgnbStar);
    assert.equal(ue.connected, true);
  });

  it('refuses a path switch while the new KgNB is unanswered (interaction-with-other-procedure)', async () => {
    const { ue } = await keyChangeUnanswered(3);
    const failure = gnb2.next((event) =>
      event.type === 'received' && event.exchange.messageType === 'PathSwitchRequestFailure'
        ? event.exchange.pdu
        : undefined,
    );
    const switched = await xnA.handOver(ue, xnB);
    assert.equal(switched.outcome, 'failed');
    const read = readPathSwitchRequestFailure(await failure);
    assert.ok(read.ok);
    const released = read.message.pduSessionResourceReleasedListPsFail ?? [];
    assert.equal(released.length, 2);
    for (const item of released) {
      const transfer = decodeComplete(
        item.pathSwitchRequestUnsuccessfulTransfer,
        true,
        decodePathSwitchRequestUnsuccessfulTransfer,
      );
      assert.ok(transfer.ok);
      assert.deepEqual(transfer.value.cause, KEY_CHANGING);
    }
    s.ues.answerHeldContextModifications();
  });
});
