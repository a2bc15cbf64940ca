import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ieValue } from '../helpers/ie-value.ts';
import { GnbLocation } from '../../src/simulator/gnb-location.ts';
import { GnbUes } from '../../src/simulator/ue/gnb-ues.ts';
import type { ServingCell } from '../../src/simulator/ue/ran-ue-messages.ts';
import { assertTsharkAgrees, gnbConfig, OPERATOR_PLMN } from './n2-service.ts';
import type { LocationAnswer, TimedLocationService } from './location-service.ts';
import { startTimedLocationService } from './location-service.ts';

/**
 * A stale serving cell refreshed before a Cell ID answer (network.md section 8, docs/location.md "Serving
 * cell"), through the real service on manual time (location-service.ts): the 300 s age and the 5 s wait
 * pass when the test moves the time. The simulated radios answer Location Reporting Control (gnb-1),
 * stay silent (gnb-2) or refuse it (gnb-3); a device moved to another cell without telling the core
 * shows whether the answer comes from a fresh report or from the last known cell.
 */

const nr = (nrCellIdentity: number): ServingCell => ({ plmn: OPERATOR_PLMN, nrCellIdentity, tac: 1 });
/** gnb-1's own cell and a second one, gnb-2's pair, gnb-3's pair. */
const CELLS = {
  a1: nr(0x4001),
  a2: nr(0x4002),
  b1: nr(0x8001),
  b2: nr(0x8002),
  c1: nr(0xc001),
  c2: nr(0xc002),
};
const hex = (cell: ServingCell): string =>
  ('nrCellIdentity' in cell ? cell.nrCellIdentity : 0).toString(16).padStart(9, '0');

/** Each cell provisioned 0.01 degree further north, so the estimate names the cell it came from. */
const LATITUDE = new Map(Object.values(CELLS).map((cell, i) => [hex(cell), 53.5 + i / 100]));

describe('Cell ID with a stale serving cell: Location Reporting Control, Paging, the 5 s wait (real service, manual time)', () => {
  let l: TimedLocationService;
  let ues2: GnbUes;
  let ues3: GnbUes;
  before(async () => {
    l = await startTimedLocationService();
    const { s } = l;
    new GnbLocation(s.ues, { pci: 101, arfcn: 632628 });
    const gnb2 = s.gnb(gnbConfig(2, { name: 'gnb-2' }));
    ues2 = new GnbUes(gnb2, CELLS.b1);
    new GnbLocation(ues2, { pci: 201, arfcn: 632628, locationReporting: 'silent' });
    const gnb3 = s.gnb(gnbConfig(3, { name: 'gnb-3' }));
    ues3 = new GnbUes(gnb3, CELLS.c1);
    new GnbLocation(ues3, { pci: 301, arfcn: 632628, locationReporting: 'fail' });
    for (const node of [gnb2, gnb3]) {
      await node.connect();
      assert.equal((await node.ngSetup()).outcome, 'accepted');
    }
    for (const [cellIdentity, latitude] of LATITUDE) await l.provisionCell(cellIdentity, latitude, 10, 100);
  });
  after(async () => {
    await assertTsharkAgrees(l.s.received);
    await l.s.close();
  });

  const locate = (supi: string) => l.locate({ request_type: 'immediate', supi });

  /** The answer's cell, checked against the provisioned position of that cell. */
  function cellOf(answer: LocationAnswer): string | undefined {
    assert.equal(answer.status, 200, answer.body);
    const cell = answer.result?.ncgi?.nrCellId;
    assert.equal(
      answer.result?.locationEstimate.point.lat,
      cell === undefined ? undefined : LATITUDE.get(cell),
    );
    assert.deepEqual(answer.result?.positioningDataList, [
      { method: 'CELLID', mode: 'CONVENTIONAL', usage: 'SUCCESS_RESULTS_USED_TO_GENERATE_LOCATION' },
    ]);
    return cell;
  }

  const sent = (messageType: string) => l.s.received.filter((e) => e.messageType === messageType);

  it('up to 300 s the last reported cell answers; older, Location Reporting Control (direct, cell) fetches the current one', async () => {
    const { ue, supi } = await l.registered(61);
    // An intra-gNB handover has no NGAP of its own: the core still holds cell a1.
    assert.equal(l.s.ues.changeCell(ue, CELLS.a2), true);
    const controls = sent('LocationReportingControl').length;

    await l.advance(300_000);
    assert.equal(cellOf(await locate(supi)), hex(CELLS.a1), 'a cell 300 s old is still fresh');
    assert.equal(sent('LocationReportingControl').length, controls, 'no refresh of a fresh cell');

    await l.advance(1_000);
    assert.equal(cellOf(await locate(supi)), hex(CELLS.a2), 'the Location Report names the current cell');
    const [control] = sent('LocationReportingControl').slice(controls);
    assert.ok(
      control?.pdu?.choice === 'initiatingMessage' && control.pdu.value.name === 'LocationReportingControl',
    );
    const requestType = ieValue(control.pdu.value.value.protocolIEs, 'LocationReportingRequestType');
    assert.equal(requestType?.eventType, 'direct');
    assert.equal(requestType.reportArea, 'cell');

    // The report made the cell fresh again: the next request asks nothing.
    assert.equal(cellOf(await locate(supi)), hex(CELLS.a2));
    assert.equal(sent('LocationReportingControl').length, controls + 1);
  });

  it('a silent radio: the request waits 5 s for the Location Report, then answers with the last known cell', async () => {
    const { ue, supi } = await l.registered(62, {}, { radio: ues2 });
    assert.equal(ues2.changeCell(ue, CELLS.b2), true);
    await l.advance(301_000);
    const controls = sent('LocationReportingControl').length;

    let answered = false;
    const answer = locate(supi).finally(() => (answered = true));
    await l.s.until(
      async () => (sent('LocationReportingControl').length > controls ? true : undefined),
      'Location Reporting Control to gnb-2',
    );
    await l.advance(4_999);
    assert.equal(answered, false, 'still waiting for the Location Report before 5 s');
    await l.advance(1);
    // network.md 8: the wait never fails the request; the estimate holds what the network knows.
    assert.equal(cellOf(await answer), hex(CELLS.b1));
  });

  it('a radio that refuses (Location Reporting Failure Indication) ends the wait at once: the last known cell', async () => {
    const { ue, supi } = await l.registered(63, {}, { radio: ues3 });
    assert.equal(ues3.changeCell(ue, CELLS.c2), true);
    await l.advance(301_000);
    const failures = sent('LocationReportingControl').length;
    // No time moves: only the Failure Indication can end this wait.
    assert.equal(cellOf(await locate(supi)), hex(CELLS.c1));
    assert.equal(sent('LocationReportingControl').length, failures + 1);
  });

  it('an idle device is paged; the Service Request from the cell it camps on now gives the cell', async () => {
    const { ue, supi } = await l.registered(64);
    const released = ue.next((e) => (e.type === 'released' ? e : undefined));
    assert.equal(l.s.ues.requestRelease(ue), true);
    await released;
    assert.equal(cellOf(await locate(supi)), hex(CELLS.a1));
    // Idle, it reselects gnb-2's cell; being idle, it tells the core nothing.
    ue.moveTo(ues2);
    const pagings = sent('Paging').length;
    const tmsi = ue.guti?.tmsi;
    const updated = ue.next((e) => (e.type === 'configuration-update' ? e.guti : undefined));
    await l.advance(301_000);
    assert.equal(cellOf(await locate(supi)), hex(CELLS.b1));
    assert.ok(sent('Paging').length > pagings, 'paged');
    // Back by a Service Request that answered paging: a new 5G-GUTI (TS 24.501 5.4.4.1 a).
    const guti = await updated;
    assert.ok(tmsi !== undefined && guti !== undefined && guti.tmsi !== tmsi);
  });
});
