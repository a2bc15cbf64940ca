import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GnbLocation } from '../../src/simulator/gnb-location.ts';
import type { UePositioning } from '../../src/simulator/ue/ue-positioning.ts';
import { tshark } from '../helpers/tshark.ts';
import { assertTsharkAgrees } from './n2-service.ts';
import type { RegistrationService } from './registration-service.ts';
import { imsiOf, startRegistrationService, statusUntil } from './registration-service.ts';

/**
 * E-CID and GNSS location end to end (network.md section 8, docs/location.md): the API asks, the AMF and
 * LMF send NRPPa to the simulated gNB and LPP to the simulated device, and their answers become the
 * result. The expected values come from the simulator's configuration in physical units (distance,
 * bearing, dBm, degrees), not from the codes on the wire, so a coding error on either side shows.
 */

/** gnb-1's cell (0x4001) and its antenna. */
const CELL = { latitude: 53.5461, longitude: 9.9661, uncertainty: 300 };
const ANTENNA = { latitude: 53.5461, longitude: 9.9661, uncertaintyMetres: 10 };
const METRES_PER_DEGREE_LATITUDE = 111_320;

const DEVICE: UePositioning = {
  capabilities: { nrEcid: true, ecid: true, agnss: true },
  nrCells: [
    {
      pci: 101,
      ssbArfcn: 632628,
      ssRsrpDbm: -85,
      ssRsrqDb: -10.5,
      ssbBeams: [{ index: 3, rsrpDbm: -84, rsrqDb: -10 }],
    },
    { pci: 102, ssbArfcn: 632628, ssRsrpDbm: -101, ssRsrqDb: -15 },
  ],
  gnss: { kind: 'fix', latitude: 53.55, longitude: 9.97, uncertaintyMetres: 12 },
  // 1000 m east of the antenna, as the radio measures it.
  radio: { distanceMetres: 1000, bearingDegrees: 90, rsrpDbm: -90, rsrqDb: -11 },
};

interface LocationResult {
  locationEstimate: { shape: string; point: { lat: number; lon: number }; uncertainty: number };
  positioningDataList: { method: string; mode: string; usage: string }[];
  radioMeasurements?: {
    source: string;
    rat: string;
    serving: boolean;
    pci: number;
    arfcn: number;
    ssRsrp?: number;
    ssRsrq?: number;
    ssbBeams?: { index: number; rsrp: number; rsrq: number }[];
  }[];
}

describe('E-CID and GNSS location through the simulated gNB and device (real service)', () => {
  let s: RegistrationService;
  before(async () => {
    s = await startRegistrationService();
    new GnbLocation(s.ues, { pci: 101, arfcn: 632628, accessPoint: ANTENNA });
    const response = await s.t.request({
      method: 'POST',
      url: '/api/beta/cell-positions',
      token: s.token,
      payload: {
        rat: 'nr',
        mcc: '001',
        mnc: '01',
        cell_identity: '000004001',
        latitude: CELL.latitude,
        longitude: CELL.longitude,
        uncertainty_semi_major: CELL.uncertainty,
      },
    });
    assert.equal(response.statusCode, 201, response.body);
  });
  after(async () => {
    // Wireshark names a Downlink UE Associated NRPPa Transport by the NRPPa procedure inside it.
    const nrppa = s.received.filter((e) => e.messageType === 'DownlinkUEAssociatedNRPPaTransport');
    await assertTsharkAgrees(s.received.filter((e) => !nrppa.includes(e)));
    assert.ok(nrppa.length > 0);
    for (const verdict of await tshark(
      'ngap',
      nrppa.map((e) => e.bytes),
    )) {
      assert.equal(verdict.info, 'id-e-CIDMeasurementInitiation');
      assert.equal(verdict.malformed, false);
      assert.equal(verdict.expert, '');
    }
    await s.close();
  });

  async function device(n: number, positioning: UePositioning): Promise<string> {
    const imsi = imsiOf(n);
    await s.provision(imsi);
    const ue = s.ue({ imsi, positioning });
    assert.equal((await ue.register()).outcome, 'accepted');
    await statusUntil(s, imsi, (st) => st.registered, 'registered');
    return `imsi-${imsi}`;
  }

  async function locate(supi: string, method: string, mode?: string) {
    const response = await s.t.request({
      method: 'POST',
      url: '/api/beta/location',
      token: s.token,
      payload: { request_type: 'immediate', supi, method, ...(mode === undefined ? {} : { mode }) },
    });
    return {
      status: response.statusCode,
      body: response.body,
      result: response.json<{ result?: LocationResult }>().result,
    };
  }

  it('E-CID network based: the estimate lies the timing advance distance away, in the angle of arrival', async () => {
    const supi = await device(51, DEVICE);
    const { status, body, result } = await locate(supi, 'ecid', 'network_based');
    assert.equal(status, 200, body);
    assert.ok(result !== undefined);
    const north = (result.locationEstimate.point.lat - ANTENNA.latitude) * METRES_PER_DEGREE_LATITUDE;
    const east =
      (result.locationEstimate.point.lon - ANTENNA.longitude) *
      METRES_PER_DEGREE_LATITUDE *
      Math.cos((ANTENNA.latitude * Math.PI) / 180);
    // TADV steps of 2 Ts (about 10 m of range) and AoA steps of 0.1 degree: within 30 m of the truth.
    assert.ok(Math.abs(east - 1000) < 30, `${east.toFixed(1)} m east, expected about 1000`);
    assert.ok(Math.abs(north) < 30, `${north.toFixed(1)} m north, expected about 0`);
    assert.ok(result.locationEstimate.uncertainty < CELL.uncertainty, 'tighter than the cell');
    assert.ok(
      result.positioningDataList.some(
        (d) => d.method === 'NR_ECID' && d.usage === 'SUCCESS_RESULTS_USED_TO_GENERATE_LOCATION',
      ),
      JSON.stringify(result.positioningDataList),
    );
    const network = (result.radioMeasurements ?? []).filter((m) => m.source === 'NETWORK');
    assert.ok(network.some((m) => m.serving && m.pci === 101 && m.ssRsrp === -90 && m.ssRsrq === -11));
  });

  it('E-CID UE assisted: the device’s NR measurements as radioMeasurements with source UE', async () => {
    const supi = await device(52, DEVICE);
    const { status, body, result } = await locate(supi, 'ecid', 'ue_assisted');
    assert.equal(status, 200, body);
    const measured = (result?.radioMeasurements ?? []).filter((m) => m.source === 'UE');
    assert.deepEqual(
      measured.map(({ rat, serving, pci, arfcn, ssRsrp, ssRsrq }) => ({
        rat,
        serving,
        pci,
        arfcn,
        ssRsrp,
        ssRsrq,
      })),
      [
        { rat: 'NR', serving: true, pci: 101, arfcn: 632628, ssRsrp: -85, ssRsrq: -10.5 },
        { rat: 'NR', serving: false, pci: 102, arfcn: 632628, ssRsrp: -101, ssRsrq: -15 },
      ],
    );
    assert.deepEqual(measured[0]?.ssbBeams, [{ index: 3, rsrp: -84, rsrq: -10 }]);
    assert.ok(result?.positioningDataList.some((d) => d.method === 'NR_ECID' && d.mode === 'UE_ASSISTED'));
  });

  it('E-CID UE assisted with a placed neighbour: the RSRP-weighted centroid of the two cells (worked numbers)', async () => {
    // Cell 0x4002, 400 m east of gnb-1's cell, radius 200 m; the device names it by its NCGI.
    const metresPerDegree = (6_371_000 * Math.PI) / 180;
    const cosLat = Math.cos((CELL.latitude * Math.PI) / 180);
    const created = await s.t.request({
      method: 'POST',
      url: '/api/beta/cell-positions',
      token: s.token,
      payload: {
        rat: 'nr',
        mcc: '001',
        mnc: '01',
        cell_identity: '000004002',
        latitude: CELL.latitude,
        longitude: CELL.longitude + 400 / (metresPerDegree * cosLat),
        uncertainty_semi_major: 200,
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const supi = await device(56, {
      ...DEVICE,
      nrCells: [
        { pci: 101, ssbArfcn: 632628, ssRsrpDbm: -85, ssRsrqDb: -10.5 },
        { pci: 102, ssbArfcn: 632628, ssRsrpDbm: -88, ssRsrqDb: -12, nrCellIdentity: 0x4002 },
      ],
    });
    const { status, body, result } = await locate(supi, 'ecid', 'ue_assisted');
    assert.equal(status, 200, body);
    // Weights 10^(-8.5) : 10^(-8.8) = 1 : 0.501187: 400 x 0.501187 / 1.501187 = 133.54 m east; the bound
    // min(133.54 + 300, 266.46 + 200) = 433.54 m (ue-ecid-estimate.test.ts works the same numbers).
    const { point, uncertainty } = result!.locationEstimate;
    const east = (point.lon - CELL.longitude) * metresPerDegree * cosLat;
    const north = (point.lat - CELL.latitude) * metresPerDegree;
    assert.ok(Math.abs(east - 133.54) < 0.01 && Math.abs(north) < 0.01, `${east} m east, ${north} m north`);
    assert.ok(Math.abs(uncertainty - 433.54) < 0.01, String(uncertainty));
    assert.deepEqual(result?.positioningDataList, [
      { method: 'CELLID', mode: 'CONVENTIONAL', usage: 'SUCCESS_RESULTS_USED_TO_GENERATE_LOCATION' },
      { method: 'NR_ECID', mode: 'UE_ASSISTED', usage: 'SUCCESS_RESULTS_USED_TO_GENERATE_LOCATION' },
    ]);
  });

  it('GNSS standalone: the device’s fix is the estimate (uncertainty code K = 9: 13.6 m)', async () => {
    const supi = await device(53, DEVICE);
    const { status, body, result } = await locate(supi, 'gnss');
    assert.equal(status, 200, body);
    const { point, uncertainty } = result!.locationEstimate;
    // TS 23.032 codes: latitude steps of 90/2^23 degree, longitude 360/2^24 (about 2 m).
    assert.ok(Math.abs(point.lat - 53.55) < 2e-5 && Math.abs(point.lon - 9.97) < 3e-5, JSON.stringify(point));
    assert.ok(Math.abs(uncertainty - 10 * (1.1 ** 9 - 1)) < 0.1, String(uncertainty));
  });

  it('GNSS failure: the Cell ID result, GNSS unsuccessful', async () => {
    const supi = await device(54, { ...DEVICE, gnss: { kind: 'error' } });
    const { status, body, result } = await locate(supi, 'gnss');
    assert.equal(status, 200, body);
    assert.deepEqual(result?.locationEstimate.point, { lat: CELL.latitude, lon: CELL.longitude });
    assert.match(body, /UNSUCCESS/);
  });

  it('a device that cannot do GNSS or E-CID: 409 saying so', async () => {
    const supi = await device(55, { capabilities: { nrEcid: false, ecid: false, agnss: false } });
    const gnss = await locate(supi, 'gnss');
    assert.equal(gnss.status, 409, gnss.body);
    assert.match(gnss.body, /cannot/);
    const ecid = await locate(supi, 'ecid', 'ue_assisted');
    assert.equal(ecid.status, 409, ecid.body);
  });
});
