import assert from 'node:assert/strict';
import type { UeOptions } from '../../src/simulator/ue/simulated-ue.ts';
import type { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import type { UeConfig } from '../../src/simulator/ue/ue-config.ts';
import { ManualTime, oneTurn } from '../helpers/manual-time.ts';
import type { RegistrationService } from './registration-service.ts';
import { imsiOf, K, OPC, startRegistrationService } from './registration-service.ts';

/**
 * The real service with simulated radios and devices (registration-service.ts) on manual time, for the
 * location tests of timed behaviour: the core and the AMF share one `ManualTime`, so the 300 s cell age,
 * the 5 s, 10 s and 20 s waits and the periodic sessions' intervals pass when a test moves it. Requests
 * go with the service's API token, which never expires (n2-service.ts).
 */

/** A location result as the API answers it (spec: Location result). */
export interface LocationResult {
  locationEstimate: { shape: string; point: { lat: number; lon: number }; uncertainty: number };
  positioningDataList: { method: string; mode: string; usage: string }[];
  gnssPositioningDataList?: { mode: string; gnss: string; usage: string }[];
  ncgi?: { plmnId: { mcc: string; mnc: string }; nrCellId: string };
  radioMeasurements?: { source: string; rat: string; serving: boolean; pci: number; ssRsrp?: number }[];
}

export interface LocationAnswer {
  status: number;
  body: string;
  result: LocationResult | undefined;
}

export interface TimedLocationService {
  s: RegistrationService;
  time: ManualTime;
  /** Moves the manual time by `ms`, letting packets flow between the timers it fires. */
  advance(ms: number): Promise<void>;
  /** A request with the never-expiring token; the status and the JSON body. */
  api(
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    payload?: Record<string, unknown>,
  ): Promise<LocationAnswer>;
  /** POST /api/beta/location; it may wait on the network until time moves, so it is not awaited here. */
  locate(payload: Record<string, unknown>): Promise<LocationAnswer>;
  /** POST /api/beta/cell-positions for an NR cell of PLMN 001-01. */
  provisionCell(
    cellIdentity: string,
    latitude: number,
    longitude: number,
    uncertainty: number,
  ): Promise<void>;
  /** Provisions subscriber `n`, registers its device and waits until the API says it is registered. */
  registered(
    n: number,
    config?: Partial<UeConfig>,
    options?: Partial<UeOptions>,
  ): Promise<{ ue: SimulatedUe; supi: string }>;
}

export async function startTimedLocationService(): Promise<TimedLocationService> {
  const time = new ManualTime();
  const s = await startRegistrationService({ time });
  const token = s.token;
  const api: TimedLocationService['api'] = async (method, url, payload) => {
    const response = await s.t.request({ method, url, token, ...(payload === undefined ? {} : { payload }) });
    const body = response.body;
    return {
      status: response.statusCode,
      body,
      result: body === '' ? undefined : response.json<{ result?: LocationResult }>().result,
    };
  };

  return {
    s,
    time,
    advance: (ms) => time.advance(ms, oneTurn),
    api,
    locate: (payload) => api('POST', '/api/beta/location', payload),
    async provisionCell(cellIdentity, latitude, longitude, uncertainty) {
      const { status, body } = await api('POST', '/api/beta/cell-positions', {
        rat: 'nr',
        mcc: '001',
        mnc: '01',
        cell_identity: cellIdentity,
        latitude,
        longitude,
        uncertainty_semi_major: uncertainty,
      });
      assert.equal(status, 201, body);
    },
    async registered(n, config = {}, options = {}) {
      const imsi = imsiOf(n);
      const { status, body } = await api('POST', '/api/v1/subscribers', {
        imsi,
        key: K,
        opc: OPC,
        sequenceNumber: '000000000000',
        profile_name: 'default',
      });
      assert.equal(status, 201, body);
      const ue = s.ue({ imsi, ...config }, options);
      assert.equal((await ue.register()).outcome, 'accepted');
      await s.until(async () => {
        const detail = await s.t.request({ method: 'GET', url: `/api/v1/subscribers/${imsi}`, token });
        return detail.json<{ result: { status: { registered: boolean } } }>().result.status.registered
          ? true
          : undefined;
      }, `${imsi} registered`);
      return { ue, supi: `imsi-${imsi}` };
    },
  };
}
