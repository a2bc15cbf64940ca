import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimulatedGnb } from '../../src/simulator/gnb.ts';
import { GnbUes } from '../../src/simulator/ue/gnb-ues.ts';
import type { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import { assertTsharkAgrees, gnbConfig, OPERATOR_PLMN } from './n2-service.ts';
import type { Page, RegistrationService } from './registration-service.ts';
import { imsiOf, logsOf, startRegistrationService, statusUntil } from './registration-service.ts';

/**
 * Mobility registration update (TS 24.501 5.5.1.3.2 a: the UE enters a tracking area outside its
 * registration area) end to end: a device registered through gnb-1 (TAC 1) goes idle, reselects a cell of
 * gnb-2 (TAC 2) and updates its registration there. What the API shows afterwards: the serving radio in
 * the status and the radio filter, the request's radio in the subscriber logs, the radio events of the
 * Initial UE Message from gnb-2 with the NAS inside.
 */

interface RadioEvent {
  id: number;
  message_type: string;
  details: string;
}

const detailsOf = (row: { details: string } | undefined): Record<string, unknown> =>
  JSON.parse(row?.details ?? '{}') as Record<string, unknown>;

describe('mobility registration update to a second simulated gNB against the real service', () => {
  let s: RegistrationService;
  let gnb2: SimulatedGnb;
  let cell2: GnbUes;
  before(async () => {
    s = await startRegistrationService();
    // The operator serves TAC 1 and TAC 2; gnb-2 serves TAC 2 only. The AMF reads the change after the
    // API's answer: its AMF Configuration Update to gnb-1 (TS 38.413 8.7.3) says it now serves TAC 2.
    const applied = s.gnb1.next((event) => (event.type === 'amf-configuration-update' ? event : undefined));
    assert.equal(
      await s.request('PUT', '/api/v1/operator/tracking', { supportedTacs: ['000001', '000002'] }),
      200,
    );
    await applied;
    gnb2 = s.gnb(
      gnbConfig(2, {
        name: 'gnb-2',
        supportedTas: [{ tac: 2, plmns: [{ plmn: OPERATOR_PLMN, slices: [{ sst: 1 }] }] }],
      }),
    );
    await gnb2.connect();
    assert.equal((await gnb2.ngSetup()).outcome, 'accepted');
    cell2 = new GnbUes(gnb2, { plmn: OPERATOR_PLMN, nrCellIdentity: 0x8001, tac: 2 });
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  /** Releases the UE's connection at the radio's request and waits until the UE is idle. */
  async function idle(ues: GnbUes, ue: SimulatedUe): Promise<void> {
    const released = ue.next((e) => (e.type === 'released' ? e : undefined));
    assert.equal(ues.requestRelease(ue), true);
    await released;
  }

  const imsisOn = async (radio: string): Promise<string[]> =>
    (await s.get<Page<{ imsi: string }>>(`/api/v1/subscribers?radio=${radio}`)).items.map((i) => i.imsi);

  it('registered through gnb-1, idle, moved to gnb-2 (TAC 2): mobility update accepted; the API follows it', async () => {
    const imsi = imsiOf(71);
    await s.provision(imsi);
    const ue = s.ue({ imsi });
    const first = await ue.register();
    assert.equal(first.outcome, 'accepted');
    await statusUntil(
      s,
      imsi,
      (st) => st.registered && st.last_seen_radio === 'gnb-1',
      'registered on gnb-1',
    );
    assert.deepEqual(await imsisOn('gnb-1'), [imsi]);
    const tmsi = ue.guti?.tmsi;
    await idle(s.ues, ue);

    ue.moveTo(cell2);
    const update = await ue.registrationUpdate('mobility');
    assert.equal(update.outcome, 'accepted', JSON.stringify(update));
    assert.ok(update.outcome === 'accepted');
    assert.notEqual(ue.guti?.tmsi, tmsi, 'a new 5G-GUTI at every registration');
    // The registration area now lists both TACs of the operator.
    assert.deepEqual(
      update.taiList.flatMap((list) => ('tacs' in list ? list.tacs : [])),
      [1, 2],
    );

    const status = await statusUntil(
      s,
      imsi,
      (st) => st.registered && st.last_seen_radio === 'gnb-2',
      'last seen on gnb-2',
    );
    assert.equal(status.radio_access_types.join(), '5G');
    assert.deepEqual(await imsisOn('gnb-2'), [imsi]);
    assert.deepEqual(await imsisOn('gnb-1'), [], 'no longer served by gnb-1');

    const logs = await s.until(async () => {
      const rows = await logsOf(s, imsi);
      return rows.filter((row) => row.event === 'Registration Complete').length >= 2 ? rows : undefined;
    }, 'the update logged');
    const requests = logs.filter((row) => row.event === 'Registration Request');
    assert.deepEqual(
      requests.map((row) => detailsOf(row).radio),
      ['gnb-1', 'gnb-2'],
    );
    assert.ok(typeof detailsOf(requests[1]).guti === 'string', 'the update names the UE by its 5G-GUTI');
    // No new authentication: the request was integrity protected under the current context.
    assert.equal(logs.filter((row) => row.event === 'Authentication Request').length, 1);

    const events = await s.get<Page<RadioEvent>>(
      '/api/v1/ran/events?message_type=InitialUEMessage&per_page=100',
    );
    // Radio events carry the radio and the NAS inside (this service has no other UE on gnb-2).
    const fromGnb2 = events.items.filter((event) => detailsOf(event).radio === 'gnb-2');
    assert.deepEqual(
      fromGnb2.map((event) => detailsOf(event).nas),
      ['Registration Request'],
    );
  });
});
