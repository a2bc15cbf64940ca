import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createN2, DEFAULT_N2_SETTINGS } from '../../src/core/n2.wiring.ts';
import { runSimulator } from '../../src/simulator/cli.ts';
import type { TestApp } from '../helpers/test-app.ts';
import { createTestApp, initialize } from '../helpers/test-app.ts';
import { K, OPC } from './registration-service.ts';

/**
 * `npm run sim -- ue` with location options against the real service (the AMF's N2 as main.ts wires it,
 * udp): an operator's try by hand, as docs/simulator.md shows it. The UE's GNSS fix (--gnss), its NR
 * E-CID measurements (--nr-cell) and what its gNB measures (--radio, --antenna) come back through the
 * location API; bad location options print the usage.
 */

const ANTENNA = { lat: 53.5461, lon: 9.9661 };

describe('npm run sim -- ue with location options, against the real service', () => {
  let t: TestApp;
  let token: string;
  let n2: ReturnType<typeof createN2>;
  let stop: () => void;
  let run: Promise<number>;
  const lines: string[] = [];

  before(async () => {
    t = await createTestApp();
    token = await initialize(t);
    for (const [url, payload] of [
      [
        '/api/v1/subscribers',
        {
          imsi: '001010000000001',
          key: K,
          opc: OPC,
          sequenceNumber: '000000000000',
          profile_name: 'default',
        },
      ],
      // The simulator's gNB 1 serves NR cell 0x4001 (gNB id << 14 | 1).
      [
        '/api/beta/cell-positions',
        {
          rat: 'nr',
          mcc: '001',
          mnc: '01',
          cell_identity: '000004001',
          latitude: ANTENNA.lat,
          longitude: ANTENNA.lon,
          uncertainty_semi_major: 300,
        },
      ],
    ] as const) {
      const response = await t.request({ method: 'POST', url, token, payload });
      assert.equal(response.statusCode, 201, response.body);
    }
    n2 = createN2(t.core, {
      ...DEFAULT_N2_SETTINGS,
      transport: 'udp',
      addresses: ['127.0.0.1'],
      port: 0,
      udpPort: 0,
    });
    await n2.start();
    const endpoint = n2.endpoint();
    assert.ok(endpoint?.local[0] && endpoint.udpPort !== undefined);
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    run = runSimulator(
      [
        'ue',
        ...['--amf', `127.0.0.1:${endpoint.local[0].port}`, '--udp-port', String(endpoint.udpPort)],
        ...['--key', K, '--opc', OPC, '--quiet'],
        ...['--gnss', '53.55,9.97,12', '--radio', '1000:90', '--antenna', `${ANTENNA.lat},${ANTENNA.lon}`],
        ...['--nr-cell', '1:632628:-85:-10.5', '--nr-cell', '2:632628:-101:-15'],
      ],
      (line) => lines.push(line),
      stopped,
    );
    const deadline = Date.now() + 20_000;
    while (!lines.some((line) => line.startsWith('holding'))) {
      assert.ok(Date.now() < deadline, `the simulator did not register: ${lines.join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
  after(async () => {
    stop();
    await run;
    await n2.stop();
    await t.close();
  });

  async function locate(method: string, mode?: string) {
    const response = await t.request({
      method: 'POST',
      url: '/api/beta/location',
      token,
      payload: { request_type: 'immediate', supi: 'imsi-001010000000001', method, ...(mode ? { mode } : {}) },
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json<{
      result: {
        locationEstimate: { point: { lat: number; lon: number }; uncertainty: number };
        radioMeasurements?: { source: string; pci: number; ssRsrp?: number }[];
      };
    }>().result;
  }

  it('--gnss: the device’s fix is the GNSS estimate', async () => {
    const { point } = (await locate('gnss')).locationEstimate;
    assert.ok(Math.abs(point.lat - 53.55) < 2e-5 && Math.abs(point.lon - 9.97) < 3e-5, JSON.stringify(point));
  });

  it('--radio and --antenna: E-CID network based puts the device 1000 m east of the antenna', async () => {
    const { point } = (await locate('ecid', 'network_based')).locationEstimate;
    const metresPerDegree = (6_371_000 * Math.PI) / 180;
    const east = (point.lon - ANTENNA.lon) * metresPerDegree * Math.cos((ANTENNA.lat * Math.PI) / 180);
    assert.ok(Math.abs(east - 1000) < 30, `${east} m east`);
  });

  it('--nr-cell: the device’s measurements come as UE radio measurements', async () => {
    const measured = (await locate('ecid', 'ue_assisted')).radioMeasurements ?? [];
    assert.deepEqual(
      measured.map((m) => [m.source, m.pci, m.ssRsrp]),
      [
        ['UE', 1, -85],
        ['UE', 2, -101],
      ],
    );
  });

  it('bad location options print the usage (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-positioning-'));
    const file = join(dir, 'positioning.json');
    writeFileSync(file, JSON.stringify({ gnss: { kind: 'silent' } }));
    for (const [args, message] of [
      [['--gnss', '53.5'], '--gnss must be <lat>,<lon>, got 53.5'],
      [
        ['--nr-cell', '1:632628:-85'],
        '--nr-cell must be <pci>:<ssb-arfcn>:<rsrp>:<rsrq>[:<nci hex>], got 1:632628:-85',
      ],
      [['--gnss', '95,10'], 'positioning: GNSS fix outside -90..90, -180..180'],
      [['--positioning', file], '--positioning needs capabilities {nrEcid, ecid, agnss} (booleans)'],
    ] as const) {
      const said: string[] = [];
      const status = await runSimulator(
        ['ue', '--key', K, '--opc', OPC, ...args],
        (l) => said.push(l),
        Promise.resolve(),
      );
      assert.equal(status, 2, said.join('\n'));
      assert.equal(said[0], message);
    }
    rmSync(dir, { recursive: true });
  });
});
