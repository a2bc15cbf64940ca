import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GnbUes } from '../../src/simulator/ue/gnb-ues.ts';
import type { ServingCell } from '../../src/simulator/ue/ran-ue-messages.ts';
import type { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import { assertTsharkAgrees, gnbConfig, OPERATOR_PLMN } from './n2-service.ts';
import type { RegistrationService } from './registration-service.ts';
import { imsiOf, startRegistrationService, statusUntil } from './registration-service.ts';

/**
 * Cell ID location end to end (network.md section 8, docs/location.md): the serving cell comes from the
 * User Location Information of real signalling from the simulated radios (Initial UE Message, UE Context
 * Release Complete after an intra-gNB handover, a Service Request through another gNB, an ng-eNB's
 * E-UTRA CGI), and the API resolves it to the provisioned cell position, for immediate requests and for a
 * triggered session that each cell change drives.
 */

/** A second cell of gnb-1 (whose own is 0x4001, the registration helper's), gnb-2's cell, an ng-eNB's cell. */
const CELL_B: ServingCell = { plmn: OPERATOR_PLMN, nrCellIdentity: 0x4002, tac: 1 };
const CELL_C: ServingCell = { plmn: OPERATOR_PLMN, nrCellIdentity: 0x8001, tac: 1 };
const CELL_E: ServingCell = { plmn: OPERATOR_PLMN, eutraCellIdentity: 0x12345a1, tac: 1 };

const POSITIONS = [
  {
    rat: 'nr',
    cell_identity: '000004001',
    latitude: 53.5461,
    longitude: 9.9661,
    uncertainty_semi_major: 300,
  },
  { rat: 'nr', cell_identity: '000004002', latitude: 53.55, longitude: 9.97, uncertainty_semi_major: 200 },
  { rat: 'nr', cell_identity: '000008001', latitude: 53.56, longitude: 10.01, uncertainty_semi_major: 500 },
  { rat: 'eutra', cell_identity: '12345a1', latitude: 53.57, longitude: 10.02, uncertainty_semi_major: 800 },
];

interface LocationResult {
  locationEstimate: { shape: string; point: { lat: number; lon: number }; uncertainty: number };
  positioningDataList: { method: string; mode: string; usage: string }[];
  ncgi?: { plmnId: { mcc: string; mnc: string }; nrCellId: string };
  ecgi?: { plmnId: { mcc: string; mnc: string }; eutraCellId: string };
}

interface Session {
  status: number;
  last_result: LocationResult | null;
}

describe('Cell ID location from live signalling of the simulated radios (real service)', () => {
  let s: RegistrationService;
  let ues2: GnbUes;
  let ues3: GnbUes;
  before(async () => {
    s = await startRegistrationService();
    const gnb2 = s.gnb(gnbConfig(2, { name: 'gnb-2' }));
    ues2 = new GnbUes(gnb2, CELL_C);
    const enb = s.gnb(
      gnbConfig(3, { name: 'ng-enb-3', node: { kind: 'ng-eNB', variant: 'macro', value: 0x12345 } }),
    );
    ues3 = new GnbUes(enb, CELL_E);
    for (const node of [gnb2, enb]) {
      await node.connect();
      assert.equal((await node.ngSetup()).outcome, 'accepted');
    }
    for (const position of POSITIONS) {
      const response = await s.t.request({
        method: 'POST',
        url: '/api/beta/cell-positions',
        token: s.token,
        payload: { mcc: '001', mnc: '01', ...position },
      });
      assert.equal(response.statusCode, 201, response.body);
    }
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  async function locate(supi: string): Promise<{ status: number; result: LocationResult | undefined }> {
    const response = await s.t.request({
      method: 'POST',
      url: '/api/beta/location',
      token: s.token,
      payload: { request_type: 'immediate', supi },
    });
    return { status: response.statusCode, result: response.json<{ result?: LocationResult }>().result };
  }

  /** Waits until the API answers from `cellId` (the network state is written as the PDUs arrive). */
  async function locatedIn(supi: string, cellId: string): Promise<LocationResult> {
    return s.until(async () => {
      const { status, result } = await locate(supi);
      return status === 200 && (result?.ncgi?.nrCellId ?? result?.ecgi?.eutraCellId) === cellId
        ? result
        : undefined;
    }, `${supi} located in ${cellId}`);
  }

  /** The radio asks for the UE's release: its UE Context Release Complete carries the UE's cell. */
  async function idle(ue: SimulatedUe, ues: GnbUes): Promise<void> {
    const released = ue.next((e) => (e.type === 'released' ? e : undefined));
    assert.equal(ues.requestRelease(ue), true);
    await released;
  }

  it('a registered device is located in the cell of its Initial UE Message; a moving one follows its cells', async () => {
    const imsi = imsiOf(41);
    const supi = `imsi-${imsi}`;
    await s.provision(imsi);
    const ue = s.ue({ imsi });
    assert.equal((await ue.register()).outcome, 'accepted');
    await statusUntil(s, imsi, (st) => st.registered, 'registered');

    const first = await locatedIn(supi, '000004001');
    assert.deepEqual(first, {
      locationEstimate: {
        shape: 'POINT_UNCERTAINTY_CIRCLE',
        point: { lat: 53.5461, lon: 9.9661 },
        uncertainty: 300,
      },
      positioningDataList: [
        { method: 'CELLID', mode: 'CONVENTIONAL', usage: 'SUCCESS_RESULTS_USED_TO_GENERATE_LOCATION' },
      ],
      ncgi: { plmnId: { mcc: '001', mnc: '01' }, nrCellId: '000004001' },
    });

    // A handover inside gnb-1: no NGAP of its own; the UE Context Release Complete names the new cell.
    assert.equal(s.ues.changeCell(ue, CELL_B), true);
    await idle(ue, s.ues);
    assert.deepEqual((await locatedIn(supi, '000004002')).locationEstimate.point, { lat: 53.55, lon: 9.97 });

    // Idle, it camps on gnb-2's cell; its Service Request comes in an Initial UE Message from there.
    ue.moveTo(ues2);
    assert.deepEqual(await ue.serviceRequest(), { outcome: 'accepted' });
    assert.equal((await locatedIn(supi, '000008001')).locationEstimate.uncertainty, 500);

    // An ng-eNB's E-UTRA CGI: the result names the cell as an ECGI.
    await idle(ue, ues2);
    ue.moveTo(ues3);
    assert.deepEqual(await ue.serviceRequest(), { outcome: 'accepted' });
    const eutra = await locatedIn(supi, '12345a1');
    assert.deepEqual(eutra.ecgi, { plmnId: { mcc: '001', mnc: '01' }, eutraCellId: '12345a1' });
    assert.equal(eutra.ncgi, undefined);
  });

  it('a triggered session reports on each real cell change and completes after report_count', async () => {
    const imsi = imsiOf(42);
    const supi = `imsi-${imsi}`;
    await s.provision(imsi);
    const ue = s.ue({ imsi });
    assert.equal((await ue.register()).outcome, 'accepted');
    await locatedIn(supi, '000004001');
    const created = await s.t.request({
      method: 'POST',
      url: '/api/beta/location',
      token: s.token,
      payload: { request_type: 'triggered', supi, report_count: 3 },
    });
    assert.equal(created.statusCode, 201, created.body);
    const { id } = created.json<{ result: { id: string } }>().result;
    const session = () => s.get<Session>(`/api/beta/positioning/sessions/${id}`);
    const reported = (cellId: string) =>
      s.until(async () => {
        const now = await session();
        return now.last_result?.ncgi?.nrCellId === cellId ? now : undefined;
      }, `session reports ${cellId}`);
    assert.equal((await reported('000004001')).status, 0);

    s.ues.changeCell(ue, CELL_B);
    await idle(ue, s.ues);
    assert.equal((await reported('000004002')).status, 0);

    ue.moveTo(ues2);
    assert.deepEqual(await ue.serviceRequest(), { outcome: 'accepted' });
    const last = await reported('000008001');
    assert.equal(last.status, 1, 'completed after its third report');
    const listed = await s.get<Session[]>(`/api/beta/positioning/sessions?supi=${supi}`);
    assert.deepEqual(
      listed.map((item) => item.status),
      [1],
    );
    // A later move is not reported: the session is over.
    await idle(ue, ues2);
    ue.moveTo(s.ues);
    assert.deepEqual(await ue.serviceRequest(), { outcome: 'accepted' });
    await locatedIn(supi, '000004001');
    assert.equal((await session()).last_result?.ncgi?.nrCellId, '000008001');
  });

  it('a device that is not registered cannot be located (409)', async () => {
    const imsi = imsiOf(43);
    await s.provision(imsi);
    const { status } = await locate(`imsi-${imsi}`);
    assert.equal(status, 409);
  });
});
