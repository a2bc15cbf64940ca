import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NgapExchange } from '../../src/simulator/gnb.ts';
import { assertTsharkAgrees, OPERATOR_PLMN } from './n2-service.ts';
import type { RegistrationService } from './registration-service.ts';
import { imsiOf, startRegistrationService, statusOf, statusUntil } from './registration-service.ts';

/**
 * What the AMF does with an RRC Inactive Transition Report (TS 38.413 8.3.5; docs/n2.md), seen through
 * the API: the report's User Location Information is the UE's serving cell from then on (the Cell ID
 * location answers with the new cell's position, last seen moves on), the UE stays CM-CONNECTED (TS
 * 23.502 4.8.2: RRC_INACTIVE is CM-CONNECTED), so the AMF reaches it over the connection the radio
 * holds and does not page it (the radio does RAN paging): a GNSS location request for it gets its LPP
 * exchange with no Paging, where the same request for the UE once idle pages it. tshark reads every PDU
 * the service sent.
 */

/** gnb-1's cell and another cell of the same node, each with a provisioned position. */
const CELLS = [
  { nci: 0x4001, latitude: 53.5461, longitude: 9.9661 },
  { nci: 0x4002, latitude: 53.55, longitude: 9.97 },
] as const;
/** Where the device's GNSS receiver puts it: neither cell's centre. */
const FIX = { latitude: 53.5512, longitude: 9.9733 };

interface LocationResult {
  locationEstimate: { point: { lat: number; lon: number } };
  positioningDataList?: { method: string; usage: string }[];
  gnssPositioningDataList?: { usage: string }[];
  ncgi?: { nrCellId: string };
}

/** Within GNSS coding's quantisation (TS 37.355: about 2e-6 degrees) of the device's fix. */
function atFix(result: LocationResult): void {
  const { lat, lon } = result.locationEstimate.point;
  assert.ok(
    Math.abs(lat - FIX.latitude) < 1e-4 && Math.abs(lon - FIX.longitude) < 1e-4,
    JSON.stringify(result),
  );
  assert.equal(result.gnssPositioningDataList?.[0]?.usage, 'SUCCESS_RESULTS_USED_TO_GENERATE_LOCATION');
}

const pagings = (received: readonly NgapExchange[]): number =>
  received.filter((e) => e.messageType === 'Paging').length;

describe('RRC Inactive Transition Report: what the AMF does with it (real service)', () => {
  let s: RegistrationService;
  before(async () => {
    s = await startRegistrationService();
    for (const cell of CELLS) {
      const status = await s.request('POST', '/api/beta/cell-positions', {
        rat: 'nr',
        mcc: OPERATOR_PLMN.mcc,
        mnc: OPERATOR_PLMN.mnc,
        cell_identity: cell.nci.toString(16).padStart(9, '0'),
        latitude: cell.latitude,
        longitude: cell.longitude,
        uncertainty_semi_major: 300,
      });
      assert.equal(status, 201);
    }
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  async function locate(imsi: string, method: 'cell_id' | 'gnss'): Promise<LocationResult> {
    const response = await s.t.request({
      method: 'POST',
      url: '/api/beta/location',
      token: s.token,
      payload: { request_type: 'immediate', supi: `imsi-${imsi}`, method },
    });
    assert.equal(response.statusCode, 200, response.body);
    const { result } = response.json<{ result?: LocationResult }>();
    assert.ok(result !== undefined);
    return result;
  }

  const at = (result: LocationResult): [number, number] => [
    result.locationEstimate.point.lat,
    result.locationEstimate.point.lon,
  ];

  it('a report from another cell is the serving cell; the UE in RRC_INACTIVE is reached without paging', async () => {
    const imsi = imsiOf(1);
    await s.provision(imsi);
    const ue = s.ue({
      imsi,
      positioning: {
        capabilities: { nrEcid: false, ecid: false, agnss: true },
        gnss: { kind: 'fix', ...FIX, uncertaintyMetres: 12 },
      },
    });
    assert.equal((await ue.register()).outcome, 'accepted');
    await statusUntil(s, imsi, (st) => st.registered, 'registered');
    // Registered in the node's first cell.
    const [first, second] = CELLS;
    assert.deepEqual(at(await locate(imsi, 'cell_id')), [first.latitude, first.longitude]);
    const seenBefore = (await statusOf(s, imsi)).last_seen_at;

    // The UE moved to the node's other cell and went RRC_INACTIVE: the report names the new cell.
    assert.ok(s.ues.changeCell(ue, { plmn: OPERATOR_PLMN, nrCellIdentity: second.nci, tac: 1 }));
    assert.ok(s.ues.reportRrcState(ue, 'inactive'), 'the Initial Context Setup asked for reports');
    await s.until(async () => {
      const result = await locate(imsi, 'cell_id');
      return at(result)[0] === second.latitude ? result : undefined;
    }, 'the Cell ID location at the reported cell');
    const moved = await locate(imsi, 'cell_id');
    assert.deepEqual(at(moved), [second.latitude, second.longitude]);
    assert.equal(moved.ncgi?.nrCellId, '000004002');
    const status = await statusOf(s, imsi);
    assert.equal(status.registered, true);
    assert.equal(status.last_seen_radio, 'gnb-1');
    assert.ok(status.last_seen_at > seenBefore, `last seen ${status.last_seen_at} after ${seenBefore}`);
    assert.ok(ue.connected, 'no release: RRC_INACTIVE is CM-CONNECTED');

    // The AMF needs the UE (the LMF's GNSS request): the held connection carries it, no Paging.
    const pagedBefore = pagings(s.received);
    atFix(await locate(imsi, 'gnss'));
    assert.equal(pagings(s.received), pagedBefore, 'no Paging for a UE in RRC_INACTIVE');
    assert.ok(ue.connected);

    // The same request once the UE is CM-IDLE pages it (what the test would see had the AMF paged above).
    const released = ue.next((e) => (e.type === 'released' ? true : undefined));
    assert.ok(s.ues.requestRelease(ue));
    await released;
    // The AMF has handled the release once it recorded the UE Context Release Complete.
    await s.until(async () => {
      await s.t.records.flush();
      const { items } = await s.get<{ items: unknown[] }>(
        '/api/v1/ran/events?message_type=UEContextReleaseComplete',
      );
      return items.length > 0 ? true : undefined;
    }, 'the release complete');
    atFix(await locate(imsi, 'gnss'));
    assert.equal(pagings(s.received), pagedBefore + 1, 'the idle UE was paged');
  });
});
