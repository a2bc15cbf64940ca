import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GnbLocation } from '../../src/simulator/gnb-location.ts';
import type { ServingCell } from '../../src/simulator/ue/ran-ue-messages.ts';
import type { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import { assertTsharkAgrees, OPERATOR_PLMN } from './n2-service.ts';
import type { LocationResult, TimedLocationService } from './location-service.ts';
import { startTimedLocationService } from './location-service.ts';

/**
 * Periodic positioning sessions through the real service on manual time (location-service.ts,
 * docs/location.md "Positioning sessions"): the first estimate at creation, one per interval as the time
 * moves (from live signalling: a released connection's cell, a Location Report when the cell has grown
 * stale, the device's GNSS fix over LPP), completion after `report_count`, and nothing after the end.
 */

const CELL_B: ServingCell = { plmn: OPERATOR_PLMN, nrCellIdentity: 0x4002, tac: 1 };

interface Session {
  id: string;
  session_type: number;
  method: string;
  status: number;
  updated_at: number;
  last_result: LocationResult | null;
}

describe('Periodic positioning sessions as time moves (real service, manual time)', () => {
  let l: TimedLocationService;
  before(async () => {
    l = await startTimedLocationService();
    new GnbLocation(l.s.ues, { pci: 101, arfcn: 632628 });
    await l.provisionCell('000004001', 53.5461, 9.9661, 300);
    await l.provisionCell('000004002', 53.55, 9.97, 200);
  });
  after(async () => {
    await assertTsharkAgrees(l.s.received);
    await l.s.close();
  });

  async function create(payload: Record<string, unknown>): Promise<string> {
    const { status, body } = await l.locate(payload);
    assert.equal(status, 201, body);
    return (JSON.parse(body) as { result: { id: string } }).result.id;
  }

  async function session(id: string): Promise<Session> {
    const { status, body } = await l.api('GET', `/api/beta/positioning/sessions/${id}`);
    assert.equal(status, 200, body);
    return (JSON.parse(body) as { result: Session }).result;
  }

  /** Moves the time and waits for the evaluations it started (LPP and NGAP answers come as real I/O). */
  async function advance(ms: number): Promise<void> {
    await l.advance(ms);
    await l.s.t.positioning.settled();
  }

  /** Waits until the network state has the device in `cellId` (an immediate request answers from it). */
  async function reported(supi: string, cellId: string): Promise<void> {
    await l.s.until(async () => {
      const { result } = await l.locate({ request_type: 'immediate', supi });
      return result?.ncgi?.nrCellId === cellId ? true : undefined;
    }, `the core has ${supi} in ${cellId}`);
  }

  const cellOf = (s: Session) => s.last_result?.ncgi?.nrCellId;
  const seconds = (ms: number) => Math.floor(ms / 1000);

  async function idle(ue: SimulatedUe): Promise<void> {
    const released = ue.next((e) => (e.type === 'released' ? e : undefined));
    assert.equal(l.s.ues.requestRelease(ue), true);
    await released;
  }

  it('Cell ID every 60 s: one estimate per interval from the cell the network reported, completed after 3', async () => {
    const { ue, supi } = await l.registered(81);
    const id = await create({ request_type: 'periodic', supi, interval_seconds: 60, report_count: 3 });
    const created = await session(id);
    assert.equal(cellOf(created), '000004001', 'the first estimate at creation');
    assert.equal(created.status, 0);

    // Handed over inside gnb-1 and released: the UE Context Release Complete names cell B.
    assert.equal(l.s.ues.changeCell(ue, CELL_B), true);
    await idle(ue);
    await reported(supi, '000004002');
    await advance(59_999);
    const early = await session(id);
    assert.equal(cellOf(early), '000004001', 'no evaluation before the interval');
    assert.equal(early.updated_at, created.updated_at);

    await advance(1);
    const second = await session(id);
    assert.equal(cellOf(second), '000004002');
    assert.equal(second.updated_at, created.updated_at + 60);
    assert.equal(second.status, 0);

    // Idle, it camps on gnb-1's own cell A again: its Service Request tells the core.
    assert.deepEqual(await ue.serviceRequest(), { outcome: 'accepted' });
    await advance(60_000);
    const third = await session(id);
    assert.equal(cellOf(third), '000004001');
    assert.equal(third.status, 1, 'completed after its third report');
    assert.equal(third.updated_at, created.updated_at + 120);

    // Over: moving on changes nothing.
    await advance(600_000);
    assert.deepEqual(await session(id), third);
  });

  it('every 400 s: the cell is stale at each evaluation, so Location Reporting Control fetches it first', async () => {
    const { ue, supi } = await l.registered(82);
    const id = await create({ request_type: 'periodic', supi, interval_seconds: 400, report_count: 2 });
    assert.equal(cellOf(await session(id)), '000004001');
    const controls = l.s.received.filter((e) => e.messageType === 'LocationReportingControl').length;
    // Moved inside gnb-1 while connected: nothing tells the core until it asks.
    assert.equal(l.s.ues.changeCell(ue, CELL_B), true);
    await advance(400_000);
    const done = await session(id);
    assert.equal(cellOf(done), '000004002');
    assert.equal(done.status, 1);
    assert.equal(
      l.s.received.filter((e) => e.messageType === 'LocationReportingControl').length,
      controls + 1,
    );
  });

  it('GNSS every 30 s until cancelled: each estimate is the device’s fix over LPP; none after the cancel', async () => {
    const { supi } = await l.registered(83, {
      positioning: {
        capabilities: { nrEcid: false, ecid: false, agnss: true },
        gnss: { kind: 'fix', latitude: 53.551, longitude: 9.975, uncertaintyMetres: 12 },
      },
    });
    const id = await create({ request_type: 'periodic', supi, method: 'gnss', interval_seconds: 30 });
    const created = await session(id);
    assert.equal(created.method, 'gnss');
    const point = created.last_result?.locationEstimate.point;
    // TS 23.032 codes: latitude steps of 90/2^23 degree, longitude 360/2^24.
    assert.ok(point && Math.abs(point.lat - 53.551) < 2e-5 && Math.abs(point.lon - 9.975) < 3e-5);
    assert.deepEqual(created.last_result?.gnssPositioningDataList, [
      { mode: 'UE_BASED', gnss: 'GPS', usage: 'SUCCESS_RESULTS_USED_TO_GENERATE_LOCATION' },
    ]);

    const start = l.time.now();
    for (let i = 1; i <= 3; i++) {
      await advance(30_000);
      assert.equal((await session(id)).updated_at, seconds(start) + 30 * i, `report ${i + 1}`);
    }
    const { status } = await l.api('DELETE', `/api/beta/positioning/sessions/${id}`);
    assert.equal(status, 204);
    const cancelled = await session(id);
    assert.equal(cancelled.status, 3);
    await advance(120_000);
    assert.deepEqual(await session(id), cancelled);
    assert.equal(l.s.t.positioning.pendingTimers, 0, 'no timer left for an ended session');
  });
});
