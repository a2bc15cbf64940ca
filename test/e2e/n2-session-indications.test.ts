import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeComplete } from '../../src/network/asn1/complete.ts';
import {
  decodePDUSessionResourceModifyConfirmTransfer,
  decodePDUSessionResourceModifyIndicationUnsuccessfulTransfer,
} from '../../src/network/ngap/generated/codec.ts';
import { readPDUSessionResourceModifyConfirm } from '../../src/network/ngap/generated/messages.ts';
import {
  pduSessionResourceModifyIndication,
  pduSessionResourceNotify,
  secondaryRatDataUsageReport,
} from '../../src/simulator/ue/gnb-session-indications.ts';
import type { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import type { UeSessions } from '../../src/simulator/ue/ue-sessions.ts';
import { assertTsharkAgrees } from './n2-service.ts';
import { startSessionService, type SessionService } from './session-service.ts';

/**
 * PDU Session Resource Modify Indication / Confirm (TS 38.413 8.2.5) and PDU Session Resource Notify
 * (8.2.4) end to end: the gNB's new downlink tunnel reaches the UPF and is confirmed with the uplink
 * tunnel; sessions the AMF does not know, and repeated ids, fail with their causes; the default QoS
 * flow or the session released by the radio releases the session (the UE hears the Release Command,
 * the API no longer shows it). tshark reads every PDU the service sent.
 */
describe('PDU session resource indications from the radio (real service)', () => {
  let s: SessionService;
  before(async () => {
    s = await startSessionService();
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  async function withActiveSession(
    n: number,
  ): Promise<{ imsi: string; ue: SimulatedUe; sessions: UeSessions }> {
    const registered = await s.registered(n);
    assert.equal((await registered.sessions.establish({ type: 'IPv4' })).outcome, 'accepted');
    await s.until(
      async () => ((await s.sessionsOf(registered.imsi))[0]?.status === 'active' ? true : undefined),
      'active',
    );
    return registered;
  }

  /** The forwarder's downlink rule of the UE's one session. */
  const downlinkRule = (): string[] => [...s.rules.sessions.values()].map((rule) => rule.downlink ?? '');

  async function modifyConfirm(
    ue: SimulatedUe,
    build: Parameters<typeof pduSessionResourceModifyIndication>[1],
  ) {
    const answer = s.gnb.nextReceived('PDUSessionResourceModifyConfirm');
    assert.ok(s.ues.sendAboutUe(ue, (ids) => pduSessionResourceModifyIndication(ids, build)));
    const { pdu } = await answer;
    assert.ok(pdu !== undefined);
    const read = readPDUSessionResourceModifyConfirm(pdu);
    assert.ok(read.ok);
    return read.message;
  }

  const failureCause = (transfer: Uint8Array) => {
    const decoded = decodeComplete(
      transfer,
      true,
      decodePDUSessionResourceModifyIndicationUnsuccessfulTransfer,
    );
    assert.ok(decoded.ok);
    return decoded.value.cause;
  };

  it('Modify Indication moves the downlink to the new tunnel and is confirmed; unknown sessions and repeated ids fail', async () => {
    const { imsi, ue } = await withActiveSession(1);
    const confirm = await modifyConfirm(ue, [
      { pduSessionId: 1, downlink: { address: '127.0.0.9', teid: 0x4242 }, qfis: [1] },
      { pduSessionId: 7, downlink: { address: '127.0.0.9', teid: 0x4343 }, qfis: [1] },
    ]);
    assert.deepEqual(
      confirm.pduSessionResourceModifyListModCfm?.map((item) => item.pDUSessionID),
      [1],
    );
    const confirmed = decodeComplete(
      confirm.pduSessionResourceModifyListModCfm[0]!.pDUSessionResourceModifyConfirmTransfer,
      true,
      decodePDUSessionResourceModifyConfirmTransfer,
    );
    assert.ok(confirmed.ok);
    assert.deepEqual(
      confirmed.value.qosFlowModifyConfirmList.map((flow) => flow.qosFlowIdentifier),
      [1],
    );
    assert.equal(confirmed.value.uLNGUUPTNLInformation.choice, 'gTPTunnel');
    assert.ok(downlinkRule().includes(`127.0.0.9:2152 teid ${0x4242} qfi 1`), downlinkRule().join());
    const failed = confirm.pduSessionResourceFailedToModifyListModCfm ?? [];
    assert.deepEqual(
      failed.map((item) => [
        item.pDUSessionID,
        failureCause(item.pDUSessionResourceModifyIndicationUnsuccessfulTransfer),
      ]),
      [[7, { choice: 'radioNetwork', value: 'unknown-PDU-session-ID' }]],
    );
    assert.equal((await s.sessionsOf(imsi))[0]?.status, 'active');

    // The same session twice: neither is modified (the downlink stays where it is).
    const repeated = await modifyConfirm(ue, [
      { pduSessionId: 1, downlink: { address: '127.0.0.8', teid: 1 }, qfis: [1] },
      { pduSessionId: 1, downlink: { address: '127.0.0.8', teid: 2 }, qfis: [1] },
    ]);
    assert.equal(repeated.pduSessionResourceModifyListModCfm, undefined);
    assert.deepEqual(
      (repeated.pduSessionResourceFailedToModifyListModCfm ?? []).map((item) =>
        failureCause(item.pDUSessionResourceModifyIndicationUnsuccessfulTransfer),
      ),
      [
        { choice: 'radioNetwork', value: 'multiple-PDU-session-ID-instances' },
        { choice: 'radioNetwork', value: 'multiple-PDU-session-ID-instances' },
      ],
    );
    assert.ok(downlinkRule().includes(`127.0.0.9:2152 teid ${0x4242} qfi 1`));
  });

  it('Notify: a not-fulfilled notification changes nothing; the default QoS flow released releases the session', async () => {
    const { imsi, ue, sessions } = await withActiveSession(2);
    assert.ok(
      s.ues.sendAboutUe(ue, (ids) =>
        pduSessionResourceNotify(ids, {
          sessions: [{ pduSessionId: 1, notified: [{ qfi: 1, cause: 'not-fulfilled' }] }],
        }),
      ),
    );
    const released = sessions.next((e) => (e.type === 'released' ? e.pduSessionId : undefined));
    assert.ok(
      s.ues.sendAboutUe(ue, (ids) =>
        pduSessionResourceNotify(ids, {
          sessions: [
            {
              pduSessionId: 1,
              released: [
                { qfi: 1, cause: { choice: 'radioNetwork', value: 'radio-resources-not-available' } },
              ],
            },
          ],
        }),
      ),
    );
    assert.equal(await released, 1);
    await s.until(async () => ((await s.sessionsOf(imsi)).length === 0 ? true : undefined), 'released');
  });

  it("Notify's released list releases the session; an unknown one changes nothing", async () => {
    const { imsi, ue, sessions } = await withActiveSession(3);
    const released = sessions.next((e) => (e.type === 'released' ? e.pduSessionId : undefined));
    assert.ok(
      s.ues.sendAboutUe(ue, (ids) =>
        pduSessionResourceNotify(ids, {
          released: [
            { pduSessionId: 9, cause: { choice: 'radioNetwork', value: 'unspecified' } },
            { pduSessionId: 1, cause: { choice: 'radioNetwork', value: 'radio-connection-with-ue-lost' } },
          ],
        }),
      ),
    );
    assert.equal(await released, 1);
    await s.until(async () => ((await s.sessionsOf(imsi)).length === 0 ? true : undefined), 'released');
  });

  /** `pmn_secondary_rat_octets_total` of NR, uplink and downlink, from one read of the metrics (0 before any). */
  async function nrOctets(): Promise<[number, number]> {
    const response = await s.t.request({ method: 'GET', url: '/api/v1/metrics', token: s.token });
    assert.equal(response.statusCode, 200);
    const of = (direction: string) => {
      const line = new RegExp(
        `^pmn_secondary_rat_octets_total\\{rat_type="nr",direction="${direction}"\\} (\\d+)$`,
        'm',
      ).exec(response.body);
      return line === null ? 0 : Number(line[1]);
    };
    return [of('uplink'), of('downlink')];
  }

  it('Secondary RAT Data Usage Report: counted per RAT type and direction; an unknown session is not', async () => {
    const { ue } = await withActiveSession(4);
    const before = await nrOctets();
    const window = { startMs: Date.UTC(2026, 11, 7, 5, 0, 0), endMs: Date.UTC(2026, 11, 7, 5, 1, 0) };
    assert.ok(
      s.ues.sendAboutUe(ue, (ids) =>
        secondaryRatDataUsageReport(
          ids,
          [
            { pduSessionId: 1, ratType: 'nr', uplinkOctets: 1000, downlinkOctets: 250_000 },
            { pduSessionId: 5, ratType: 'nr', uplinkOctets: 7, downlinkOctets: 7 },
          ],
          window,
        ),
      ),
    );
    // Both directions from one read: the report is counted in one go, so they move together.
    const after = await s.until(async () => {
      const counted = await nrOctets();
      return counted[1] > before[1] ? counted : undefined;
    }, 'counted');
    assert.deepEqual([after[0] - before[0], after[1] - before[1]], [1000, 250_000]);
  });
});
