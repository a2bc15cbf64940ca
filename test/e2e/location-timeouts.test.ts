import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GnbLocation } from '../../src/simulator/gnb-location.ts';
import { GnbUes } from '../../src/simulator/ue/gnb-ues.ts';
import type { UePositioning } from '../../src/simulator/ue/ue-positioning.ts';
import { gnbConfig, OPERATOR_PLMN } from './n2-service.ts';
import type { LocationAnswer, TimedLocationService } from './location-service.ts';
import { startTimedLocationService } from './location-service.ts';

/**
 * The LMF's timeouts as the API shows them (network.md section 8, docs/location.md), through the real
 * service on manual time (location-service.ts): a radio that never answers E-CID Measurement Initiation
 * (10 s) and a device that never answers Request Location Information for GNSS (20 s). Either way the
 * request is answered, at that time and not before, with the Cell ID estimate and the method `UNSUCCESS`.
 */

/** gnb-1's cell 0x4001 answers NRPPa; gnb-2's cell 0x8001 does not. */
const CELL_1 = { id: '000004001', latitude: 53.5461, longitude: 9.9661, uncertainty: 300 };
const CELL_2 = { id: '000008001', latitude: 53.56, longitude: 10.01, uncertainty: 500 };

const DEVICE: UePositioning = {
  capabilities: { nrEcid: true, ecid: false, agnss: true },
  nrCells: [{ pci: 201, ssbArfcn: 632628, ssRsrpDbm: -85, ssRsrqDb: -10.5 }],
  gnss: { kind: 'silent' },
  radio: { distanceMetres: 800, bearingDegrees: 45, rsrpDbm: -90, rsrqDb: -11 },
};

const CELL_ID_USED = {
  method: 'CELLID',
  mode: 'CONVENTIONAL',
  usage: 'SUCCESS_RESULTS_USED_TO_GENERATE_LOCATION',
};

describe('E-CID and GNSS timeouts as the API shows them (real service, manual time)', () => {
  let l: TimedLocationService;
  let ues2: GnbUes;
  before(async () => {
    l = await startTimedLocationService();
    new GnbLocation(l.s.ues, { pci: 101, arfcn: 632628 });
    const gnb2 = l.s.gnb(gnbConfig(2, { name: 'gnb-2' }));
    ues2 = new GnbUes(gnb2, { plmn: OPERATOR_PLMN, nrCellIdentity: 0x8001, tac: 1 });
    new GnbLocation(ues2, { pci: 201, arfcn: 632628, ecid: 'silent' });
    await gnb2.connect();
    assert.equal((await gnb2.ngSetup()).outcome, 'accepted');
    for (const cell of [CELL_1, CELL_2])
      await l.provisionCell(cell.id, cell.latitude, cell.longitude, cell.uncertainty);
  });
  after(async () => {
    await l.s.close();
  });

  const sent = (messageType: string) => l.s.received.filter((e) => e.messageType === messageType).length;

  /**
   * Starts `payload`'s request, waits until `asked` says the service has sent its last question, then
   * moves the time to 1 ms before `timeoutMs` (still unanswered) and to `timeoutMs` (answered).
   */
  async function answeredAfter(
    payload: Record<string, unknown>,
    asked: () => boolean,
    what: string,
    timeoutMs: number,
  ): Promise<LocationAnswer> {
    let answered = false;
    const answer = l.locate(payload).finally(() => (answered = true));
    await l.s.until(async () => (asked() ? true : undefined), what);
    await l.advance(timeoutMs - 1);
    assert.equal(answered, false, `unanswered 1 ms before ${timeoutMs} ms`);
    await l.advance(1);
    return answer;
  }

  it('E-CID network based, the radio silent: after 10 s the Cell ID estimate, NR_ECID UNSUCCESS', async () => {
    const { supi } = await l.registered(71, { positioning: DEVICE }, { radio: ues2 });
    const before = sent('DownlinkUEAssociatedNRPPaTransport');
    const { status, body, result } = await answeredAfter(
      { request_type: 'immediate', supi, method: 'ecid', mode: 'network_based' },
      () => sent('DownlinkUEAssociatedNRPPaTransport') > before,
      'E-CID Measurement Initiation sent',
      10_000,
    );
    assert.equal(status, 200, body);
    assert.deepEqual(result?.locationEstimate, {
      shape: 'POINT_UNCERTAINTY_CIRCLE',
      point: { lat: CELL_2.latitude, lon: CELL_2.longitude },
      uncertainty: CELL_2.uncertainty,
    });
    assert.deepEqual(result?.positioningDataList, [
      CELL_ID_USED,
      { method: 'NR_ECID', mode: 'CONVENTIONAL', usage: 'UNSUCCESS' },
    ]);
    assert.equal(result?.radioMeasurements, undefined, 'the radio measured nothing');

    // The measurement ID was freed: the next request asks again (and times out again).
    const again = sent('DownlinkUEAssociatedNRPPaTransport');
    const second = await answeredAfter(
      { request_type: 'immediate', supi, method: 'ecid', mode: 'network_based' },
      () => sent('DownlinkUEAssociatedNRPPaTransport') > again,
      'a second E-CID Measurement Initiation',
      10_000,
    );
    assert.equal(second.status, 200, second.body);
  });

  it('E-CID without a mode, the radio silent: the device’s measurements come at once, the answer after 10 s', async () => {
    const { supi } = await l.registered(72, { positioning: DEVICE }, { radio: ues2 });
    const before = sent('DownlinkUEAssociatedNRPPaTransport');
    const { status, body, result } = await answeredAfter(
      { request_type: 'immediate', supi, method: 'ecid' },
      () => sent('DownlinkUEAssociatedNRPPaTransport') > before,
      'E-CID Measurement Initiation sent',
      10_000,
    );
    assert.equal(status, 200, body);
    assert.deepEqual(result?.positioningDataList.slice(0, 2), [
      CELL_ID_USED,
      { method: 'NR_ECID', mode: 'CONVENTIONAL', usage: 'UNSUCCESS' },
    ]);
    assert.equal(result?.positioningDataList[2]?.mode, 'UE_ASSISTED');
    assert.notEqual(result?.positioningDataList[2]?.usage, 'UNSUCCESS');
    assert.deepEqual(
      result?.radioMeasurements?.map((m) => [m.source, m.pci, m.ssRsrp]),
      [['UE', 201, -85]],
    );
  });

  it('GNSS, the device silent after its capabilities: after 20 s the Cell ID estimate, GNSS UNSUCCESS', async () => {
    const { ue, supi } = await l.registered(73, { positioning: DEVICE });
    // Request Capabilities (answered), then Request Location Information (never answered), as the device saw them.
    let lppReceived = 0;
    ue.on((event) => {
      if (event.type === 'nas' && event.exchange.direction === 'downlink')
        if (event.exchange.messageType === 'dlNasTransport') lppReceived++;
    });
    const { status, body, result } = await answeredAfter(
      { request_type: 'immediate', supi, method: 'gnss' },
      () => lppReceived === 2,
      'Request Location Information received by the device',
      20_000,
    );
    assert.equal(status, 200, body);
    assert.deepEqual(result?.locationEstimate.point, { lat: CELL_1.latitude, lon: CELL_1.longitude });
    assert.deepEqual(result?.positioningDataList, [CELL_ID_USED]);
    assert.deepEqual(result?.gnssPositioningDataList, [
      { mode: 'UE_BASED', gnss: 'GPS', usage: 'UNSUCCESS' },
    ]);
  });
});
