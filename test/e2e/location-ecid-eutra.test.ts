import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GnbLocation } from '../../src/simulator/gnb-location.ts';
import { GnbUes } from '../../src/simulator/ue/gnb-ues.ts';
import type { ServingCell } from '../../src/simulator/ue/ran-ue-messages.ts';
import type { UePositioning } from '../../src/simulator/ue/ue-positioning.ts';
import { tshark } from '../helpers/tshark.ts';
import { assertTsharkAgrees, gnbConfig, OPERATOR_PLMN } from './n2-service.ts';
import type { RegistrationService } from './registration-service.ts';
import { imsiOf, startRegistrationService, statusUntil } from './registration-service.ts';

/**
 * E-CID over E-UTRA end to end (network.md section 8, docs/location.md): a device served by an ng-eNB
 * (User Location Information with an E-UTRA CGI) is located by E-CID, UE assisted (LPP ECID: the device's
 * E-UTRA RSRP/RSRQ) and network based (NRPPa E-CID: the ng-eNB's E-UTRA timing advance and angle of
 * arrival). Expected values are the simulator's configuration in physical units.
 */

const CELL_E: ServingCell = { plmn: OPERATOR_PLMN, eutraCellIdentity: 0x12345a1, tac: 1 };
const ANTENNA = { latitude: 53.57, longitude: 10.02, uncertaintyMetres: 10 };
const METRES_PER_DEGREE_LATITUDE = 111_320;

const DEVICE: UePositioning = {
  capabilities: { nrEcid: false, ecid: true, agnss: false },
  eutraCells: [
    { pci: 7, earfcn: 1850, rsrpDbm: -95, rsrqDb: -9.5 },
    { pci: 8, earfcn: 1850, rsrpDbm: -110, rsrqDb: -14 },
  ],
  // 1000 m east of the antenna, as the ng-eNB measures it.
  radio: { distanceMetres: 1000, bearingDegrees: 90, rsrpDbm: -96, rsrqDb: -10 },
};

interface LocationResult {
  locationEstimate: { shape: string; point: { lat: number; lon: number }; uncertainty: number };
  positioningDataList: { method: string; mode: string; usage: string }[];
  ecgi?: { plmnId: { mcc: string; mnc: string }; eutraCellId: string };
  radioMeasurements?: {
    source: string;
    rat: string;
    serving: boolean;
    pci: number;
    arfcn: number;
    rsrp?: number;
    rsrq?: number;
  }[];
}

describe('E-CID through a simulated ng-eNB and an E-UTRA device (real service)', () => {
  let s: RegistrationService;
  let enbUes: GnbUes;
  before(async () => {
    s = await startRegistrationService();
    const enb = s.gnb(
      gnbConfig(3, { name: 'ng-enb-3', node: { kind: 'ng-eNB', variant: 'macro', value: 0x12345 } }),
    );
    enbUes = new GnbUes(enb, CELL_E);
    new GnbLocation(enbUes, { pci: 7, arfcn: 1850, accessPoint: ANTENNA });
    await enb.connect();
    assert.equal((await enb.ngSetup()).outcome, 'accepted');
    const response = await s.t.request({
      method: 'POST',
      url: '/api/beta/cell-positions',
      token: s.token,
      payload: {
        rat: 'eutra',
        mcc: '001',
        mnc: '01',
        cell_identity: '12345a1',
        latitude: ANTENNA.latitude,
        longitude: ANTENNA.longitude,
        uncertainty_semi_major: 800,
      },
    });
    assert.equal(response.statusCode, 201, response.body);
  });
  after(async () => {
    const nrppa = s.received.filter((e) => e.messageType === 'DownlinkUEAssociatedNRPPaTransport');
    await assertTsharkAgrees(s.received.filter((e) => !nrppa.includes(e)));
    for (const verdict of await tshark(
      'ngap',
      nrppa.map((e) => e.bytes),
    )) {
      assert.equal(verdict.info, 'id-e-CIDMeasurementInitiation');
      assert.equal(verdict.malformed, false);
    }
    await s.close();
  });

  async function device(n: number): Promise<string> {
    const imsi = imsiOf(n);
    await s.provision(imsi);
    const ue = s.ue({ imsi, positioning: DEVICE }, { radio: enbUes });
    assert.equal((await ue.register()).outcome, 'accepted');
    await statusUntil(s, imsi, (st) => st.registered, 'registered');
    return `imsi-${imsi}`;
  }

  async function locate(supi: string, mode: string) {
    const response = await s.t.request({
      method: 'POST',
      url: '/api/beta/location',
      token: s.token,
      payload: { request_type: 'immediate', supi, method: 'ecid', mode },
    });
    return {
      status: response.statusCode,
      body: response.body,
      result: response.json<{ result?: LocationResult }>().result,
    };
  }

  it('UE assisted: the device’s E-UTRA RSRP/RSRQ as radioMeasurements with source UE; the ECGI of the ng-eNB', async () => {
    const supi = await device(61);
    const { status, body, result } = await locate(supi, 'ue_assisted');
    assert.equal(status, 200, body);
    assert.ok(result !== undefined);
    assert.deepEqual(result.ecgi, { plmnId: { mcc: '001', mnc: '01' }, eutraCellId: '12345a1' });
    const measured = (result.radioMeasurements ?? []).filter((m) => m.source === 'UE');
    assert.deepEqual(
      measured.map(({ rat, serving, pci, arfcn, rsrp, rsrq }) => ({ rat, serving, pci, arfcn, rsrp, rsrq })),
      [
        { rat: 'EUTRA', serving: true, pci: 7, arfcn: 1850, rsrp: -95, rsrq: -9.5 },
        { rat: 'EUTRA', serving: false, pci: 8, arfcn: 1850, rsrp: -110, rsrq: -14 },
      ],
    );
    assert.ok(
      result.positioningDataList.some((d) => d.mode === 'UE_ASSISTED' && d.usage.startsWith('SUCCESS')),
      JSON.stringify(result.positioningDataList),
    );
  });

  it('network based: the estimate lies the E-UTRA timing advance distance away, in the angle of arrival', async () => {
    const supi = await device(62);
    const { status, body, result } = await locate(supi, 'network_based');
    assert.equal(status, 200, body);
    assert.ok(result !== undefined);
    const north = (result.locationEstimate.point.lat - ANTENNA.latitude) * METRES_PER_DEGREE_LATITUDE;
    const east =
      (result.locationEstimate.point.lon - ANTENNA.longitude) *
      METRES_PER_DEGREE_LATITUDE *
      Math.cos((ANTENNA.latitude * Math.PI) / 180);
    assert.ok(Math.abs(east - 1000) < 40, `${east.toFixed(1)} m east, expected about 1000`);
    assert.ok(Math.abs(north) < 40, `${north.toFixed(1)} m north, expected about 0`);
    const network = (result.radioMeasurements ?? []).filter((m) => m.source === 'NETWORK');
    assert.ok(
      network.some((m) => m.rat === 'EUTRA' && m.serving && m.pci === 7 && m.rsrp === -96 && m.rsrq === -10),
      JSON.stringify(network),
    );
  });
});
