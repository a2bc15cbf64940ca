import assert from 'node:assert/strict';
import type { ServingCell } from '../../src/network/network-state.ts';
import { imsi } from './network.ts';
import { result, type TestApp } from './test-app.ts';

/** The SUPI of test subscriber `n`. */
export const supi = (n: number): string => `imsi-${imsi(n)}`;

/** An NR cell of the default PLMN. */
export const nrCell = (cellIdentity: string): ServingCell => ({
  rat: 'nr',
  mcc: '001',
  mnc: '01',
  tac: '000001',
  cellIdentity,
});

/** Registers subscriber `n` through gnb-1 and reports it seen in `cell` (as the AMF would). */
export function connectIn(t: TestApp, n: number, cell: ServingCell): void {
  t.network.subscriberRegistered(imsi(n), 'gnb-1', {
    radioAccessTypes: ['5G'],
    imei: '356938035643809',
    cipheringAlgorithm: 'NEA2',
    integrityAlgorithm: 'NIA2',
  });
  t.network.subscriberSeen(imsi(n), 'gnb-1', cell);
}

/** Provisions the position of a cell and returns its id. */
export async function provisionCell(
  t: TestApp,
  token: string,
  cell: ServingCell,
  position: Record<string, unknown>,
): Promise<string> {
  const response = await t.request({
    method: 'POST',
    url: '/api/beta/cell-positions',
    token,
    payload: { rat: cell.rat, mcc: cell.mcc, mnc: cell.mnc, cell_identity: cell.cellIdentity, ...position },
  });
  assert.equal(response.statusCode, 201, response.body);
  return result<{ id: string }>(response).id;
}

export const locationRequest = (t: TestApp, token: string, payload: Record<string, unknown>) =>
  t.request({ method: 'POST', url: '/api/beta/location', token, payload });

/** Opens a periodic or triggered session and returns its id. */
export async function openSession(
  t: TestApp,
  token: string,
  payload: Record<string, unknown>,
): Promise<string> {
  const response = await locationRequest(t, token, payload);
  assert.equal(response.statusCode, 201, response.body);
  return result<{ id: string }>(response).id;
}

export interface SessionView {
  id: string;
  supi: string;
  session_type: number;
  method: string;
  status: number;
  created_at: number;
  updated_at: number;
  last_result: {
    locationEstimate: { shape: string; point: { lat: number; lon: number }; uncertainty: number };
  } | null;
}

export async function session(t: TestApp, token: string, id: string): Promise<SessionView> {
  const response = await t.request({ method: 'GET', url: `/api/beta/positioning/sessions/${id}`, token });
  assert.equal(response.statusCode, 200, response.body);
  return result<SessionView>(response);
}

/** The point of a session's latest estimate, or null. */
export async function lastPoint(t: TestApp, token: string, id: string) {
  return (await session(t, token, id)).last_result?.locationEstimate.point ?? null;
}
