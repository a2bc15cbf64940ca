import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { N2Handover } from '../../src/simulator/gnb-handover-n2.ts';
import {
  handoverCancel,
  handoverRequired,
  readN2HandoverAnswer,
} from '../../src/simulator/gnb-handover-n2-messages.ts';
import { globalRanNodeId } from '../../src/simulator/gnb-config.ts';
import type { SimulatedGnb } from '../../src/simulator/gnb.ts';
import type { GnbUes } from '../../src/simulator/ue/gnb-ues.ts';
import type { ServingCell } from '../../src/simulator/ue/ran-ue-messages.ts';
import { ManualTime } from '../helpers/manual-time.ts';
import { assertTsharkAgrees, gnbConfig, OPERATOR_PLMN } from './n2-service.ts';
import { startSessionService, type SessionService } from './session-service.ts';

/**
 * The AMF's guards of an N2 handover on manual time (n2/handover.ts, after TS 38.413 TNGRELOCprep and
 * TNGRELOCoverall): a target that never answers Handover Request -> Handover Preparation Failure
 * `tngrelocprep-expiry` to the source; a UE that never reaches the target after Handover Command -> the
 * target's context released with `tngrelocoverall-expiry`, the UE staying at the source. Nothing is
 * left behind either way.
 */

const CELL_B: ServingCell = { plmn: OPERATOR_PLMN, nrCellIdentity: 0x8001, tac: 1 };
const GUARD_MS = 10_000;

describe('N2 handover guards (real service, manual time)', () => {
  const time = new ManualTime();
  // One turn of the event loop after each timer lets what is already received be handled.
  const advance = (ms: number) => time.advance(ms, () => new Promise<void>((r) => setImmediate(r)));
  let s: SessionService;
  let gnb2: SimulatedGnb;
  let ues2: GnbUes;
  let n2A: N2Handover;
  let n2B: N2Handover;
  before(async () => {
    s = await startSessionService({ time });
    ({ gnb: gnb2, ues: ues2 } = await s.anotherGnb(2, CELL_B, '127.0.0.3'));
    n2A = new N2Handover(s.gnb, s.ues, { pci: 1, arfcnDl: 632628 });
    n2B = new N2Handover(gnb2, ues2, { pci: 2, arfcnDl: 632628 });
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  /** Subscriber `n` registered with one session whose downlink the UPF holds towards gnb-1. */
  async function withSession(n: number) {
    const registered = await s.registered(n);
    const { ue, sessions } = registered;
    assert.equal(
      (await sessions.establish({ type: 'IPv4', dnn: 'internet', sNssai: { sst: 1 } })).outcome,
      'accepted',
    );
    const [own] = s.ues.sessions.of(ue);
    assert.ok(own !== undefined);
    const downlink = `127.0.0.2:2152 teid ${own.downlink.teid} qfi 1`;
    await s.until(
      async () => [...s.rules.sessions.values()].find((r) => r.downlink === downlink),
      'the downlink towards gnb-1',
    );
    return registered;
  }

  it('a target silent to Handover Request: Handover Preparation Failure tngrelocprep-expiry', async () => {
    const { ue } = await withSession(1);
    const connections = s.held().connections;
    const rules = JSON.stringify([...s.rules.sessions.entries()]);
    n2B.behaviour = 'silent';
    try {
      const asked = gnb2.nextReceived('HandoverRequest');
      const outcome = n2A.handOver(ue, n2B);
      await asked;
      await advance(GUARD_MS);
      assert.deepEqual(await outcome, {
        outcome: 'failed',
        cause: { choice: 'radioNetwork', value: 'tngrelocprep-expiry' },
      });
    } finally {
      n2B.behaviour = 'admit';
    }
    assert.deepEqual(s.held(), { connections, handovers: 0, smfHandovers: 0 });
    assert.equal(JSON.stringify([...s.rules.sessions.entries()]), rules);
    assert.equal(ue.radio, s.ues);
  });

  it('a UE that never reaches the target: its context there released with tngrelocoverall-expiry', async () => {
    const { ue } = await withSession(2);
    const connections = s.held().connections;
    const rules = JSON.stringify([...s.rules.sessions.entries()]);
    const outcome = await n2A.handOver(ue, n2B, { stop: 'after-command' });
    assert.equal(outcome.outcome, 'commanded');
    assert.equal(s.held().connections, connections + 1, 'the target’s connection waits for the UE');
    const released = gnb2.nextReceived('UEContextReleaseCommand');
    await advance(GUARD_MS);
    const release = await released;
    assert.ok(release.pdu?.choice === 'initiatingMessage' && release.pdu.value.name === 'UEContextRelease');
    const cause = release.pdu.value.value.protocolIEs.find((ie) => ie.name === 'Cause');
    assert.deepEqual(cause?.value, { choice: 'radioNetwork', value: 'tngrelocoverall-expiry' });
    await s.until(async () => (s.held().connections === connections ? true : undefined), 'connections back');
    assert.deepEqual(s.held(), { connections, handovers: 0, smfHandovers: 0 });
    assert.equal(JSON.stringify([...s.rules.sessions.entries()]), rules, 'the downlink stays at the source');
    assert.equal(ues2.sessions.of(ue).length, 0, 'the target released the tunnels it had set up');
    assert.equal(ue.radio, s.ues);
  });

  it('cancelled while the target has not answered: the source may hand over again at once', async () => {
    const { ue } = await withSession(3);
    const connections = s.held().connections;
    let ids: { amfUeNgapId: number; ranUeNgapId: number } | undefined;
    for (let ran = 1; ran < 1000 && ids === undefined; ran += 1) {
      const link = s.ues.link(ran);
      if (link?.ue === ue && link.amfUeNgapId !== undefined)
        ids = { amfUeNgapId: link.amfUeNgapId, ranUeNgapId: ran };
    }
    assert.ok(ids !== undefined);
    // Handover Required by hand, so that the target (silent) hears of no incoming UE.
    n2B.behaviour = 'silent';
    const asked = gnb2.nextReceived('HandoverRequest');
    s.gnb.send(
      handoverRequired({
        ids,
        target: globalRanNodeId(gnbConfig(2)),
        sourceCell: s.ues.cell,
        targetCell: CELL_B,
        pduSessionIds: [1],
      }),
      1,
    );
    await asked;
    const acknowledged = s.gnb.next((event) =>
      event.type === 'received' && event.exchange.pdu !== undefined
        ? readN2HandoverAnswer(event.exchange.pdu)
        : undefined,
    );
    s.gnb.send(handoverCancel(ids, { choice: 'radioNetwork', value: 'handover-cancelled' }), 1);
    assert.equal((await acknowledged).kind, 'cancel-acknowledge');
    n2B.behaviour = 'admit';
    // TS 38.413 8.4.5: the cancelled preparation is over for the source; a new one goes through.
    const again = await n2A.handOver(ue, n2B);
    assert.equal(again.outcome, 'handed-over');
    // The first one's reservation goes with its guard; nothing is left.
    await advance(GUARD_MS);
    await s.until(async () => (s.held().connections === connections ? true : undefined), 'connections back');
    assert.deepEqual(s.held(), { connections, handovers: 0, smfHandovers: 0 });
  });
});
