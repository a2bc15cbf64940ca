import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_ACTIVE_SESSIONS } from '../../src/resources/positioning/positioning.service.ts';
import { created, errorOf, imsi, newSubscriber } from '../helpers/network.ts';
import {
  connectIn,
  locationRequest,
  nrCell,
  openSession,
  provisionCell,
  session,
  supi,
} from '../helpers/location.ts';
import {
  auditEntries,
  createTestApp,
  initialize,
  manualClock,
  result,
  type TestApp,
} from '../helpers/test-app.ts';

const clock = manualClock();
let t: TestApp;
let token: string;

const CELL_A = nrCell('00000001f');
const CELL_B = nrCell('000000020');
const CELL_UNPROVISIONED = nrCell('0000000ff');
const CELL_EUTRA = { ...nrCell('0000a01'), rat: 'eutra' as const };

/** Subscribers: 1 in cell A, 2 in a cell without position, 3 not connected, 4 connected without a cell. */
before(async () => {
  t = await createTestApp({ clock, timers: clock });
  token = await initialize(t);
  for (let n = 1; n <= 9; n += 1) await created(t, token, '/api/v1/subscribers', newSubscriber(n));
  await provisionCell(t, token, CELL_A, {
    latitude: 53.5461,
    longitude: 9.9661,
    uncertainty_semi_major: 300,
    uncertainty_semi_minor: 150,
  });
  await provisionCell(t, token, CELL_B, { latitude: 53.55, longitude: 9.97 });
  await provisionCell(t, token, CELL_EUTRA, {
    latitude: -23.5,
    longitude: -46.6,
    uncertainty_semi_major: 800,
  });
  connectIn(t, 1, CELL_A);
  connectIn(t, 2, CELL_UNPROVISIONED);
  t.network.subscriberRegistered(imsi(4), 'gnb-1', {
    radioAccessTypes: ['5G'],
    imei: '',
    cipheringAlgorithm: 'NEA0',
    integrityAlgorithm: 'NIA2',
  });
});
after(() => t.close());

const CELL_ID_DATA = [
  { method: 'CELLID', mode: 'CONVENTIONAL', usage: 'SUCCESS_RESULTS_USED_TO_GENERATE_LOCATION' },
];

describe('POST /api/beta/location: immediate', () => {
  it('answers 200 with the Cell ID estimate of the serving cell', async () => {
    const response = await locationRequest(t, token, { request_type: 'immediate', supi: supi(1) });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(result(response), {
      locationEstimate: {
        shape: 'POINT_UNCERTAINTY_CIRCLE',
        point: { lat: 53.5461, lon: 9.9661 },
        uncertainty: 300,
      },
      positioningDataList: CELL_ID_DATA,
      ncgi: { plmnId: { mcc: '001', mnc: '01' }, nrCellId: '00000001f' },
    });
  });

  it('takes method cell_id and its mode network_based explicitly', async () => {
    const response = await locationRequest(t, token, {
      request_type: 'immediate',
      supi: supi(1),
      method: 'cell_id',
      mode: 'network_based',
    });
    assert.equal(response.statusCode, 200, response.body);
  });

  it('gives uncertainty 0 for a cell provisioned without one', async () => {
    connectIn(t, 5, CELL_B);
    const response = await locationRequest(t, token, { request_type: 'immediate', supi: supi(5) });
    const estimate = result<{ locationEstimate: { uncertainty: number } }>(response).locationEstimate;
    assert.equal(estimate.uncertainty, 0);
  });

  it('names an E-UTRA serving cell with ecgi instead of ncgi', async () => {
    connectIn(t, 7, CELL_EUTRA);
    const response = await locationRequest(t, token, { request_type: 'immediate', supi: supi(7) });
    assert.deepEqual(result(response), {
      locationEstimate: {
        shape: 'POINT_UNCERTAINTY_CIRCLE',
        point: { lat: -23.5, lon: -46.6 },
        uncertainty: 800,
      },
      positioningDataList: CELL_ID_DATA,
      ecgi: { plmnId: { mcc: '001', mnc: '01' }, eutraCellId: '0000a01' },
    });
  });

  it('writes one locate_subscriber audit entry naming the subscriber, method and cell', async () => {
    await locationRequest(t, token, { request_type: 'immediate', supi: supi(1) });
    const [entry] = await auditEntries(t, token);
    assert.deepEqual(
      [entry?.action, entry?.details, entry?.actor],
      [
        'locate_subscriber',
        `Subscriber ${supi(1)} located by cell_id (nr 001-01 cell 00000001f)`,
        'admin@example.com',
      ],
    );
  });

  it('answers 404 for a subscriber that does not exist, and audits nothing', async () => {
    const before = (await auditEntries(t, token)).length;
    const response = await locationRequest(t, token, { request_type: 'immediate', supi: supi(99) });
    assert.equal(errorOf(response, 404), `subscriber ${supi(99)} not found`);
    assert.equal((await auditEntries(t, token)).length, before);
  });

  it('answers 409 for a subscriber that is not connected', async () => {
    const response = await locationRequest(t, token, { request_type: 'immediate', supi: supi(3) });
    assert.equal(errorOf(response, 409), `subscriber ${supi(3)} is not connected to the network`);
  });

  it('answers 409 for a connected subscriber whose serving cell the network has not reported', async () => {
    const response = await locationRequest(t, token, { request_type: 'immediate', supi: supi(4) });
    assert.equal(
      errorOf(response, 409),
      `the network has not reported the serving cell of subscriber ${supi(4)} yet`,
    );
  });

  it('answers 409 naming the serving cell when it has no provisioned position', async () => {
    const response = await locationRequest(t, token, { request_type: 'immediate', supi: supi(2) });
    assert.equal(
      errorOf(response, 409),
      `the serving cell of subscriber ${supi(2)} (nr 001-01 cell 0000000ff) has no provisioned position; ` +
        'add one under /api/beta/cell-positions',
    );
  });

  it('answers 409 once the subscriber deregisters', async () => {
    connectIn(t, 8, CELL_A);
    t.network.subscriberDeregistered(imsi(8));
    const response = await locationRequest(t, token, { request_type: 'immediate', supi: supi(8) });
    assert.equal(errorOf(response, 409), `subscriber ${supi(8)} is not connected to the network`);
  });
});

describe('POST /api/beta/location: methods and modes', () => {
  it('answers 409 for ecid in either mode: the radio cannot serve it until the network side provides measurements', async () => {
    for (const mode of [undefined, 'network_based', 'ue_assisted']) {
      const response = await locationRequest(t, token, {
        request_type: 'immediate',
        supi: supi(1),
        method: 'ecid',
        ...(mode ? { mode } : {}),
      });
      const message = errorOf(response, 409);
      assert.match(message, /^method ecid cannot be served for subscriber imsi-001010000000001: its radio /);
      assert.match(message, /until the network side provides them/);
    }
  });

  it('answers 409 for gnss: the device cannot serve it until the network side provides measurements', async () => {
    for (const mode of [undefined, 'standalone']) {
      const response = await locationRequest(t, token, {
        request_type: 'immediate',
        supi: supi(1),
        method: 'gnss',
        ...(mode ? { mode } : {}),
      });
      const message = errorOf(response, 409);
      assert.match(message, /^method gnss cannot be served for subscriber imsi-001010000000001: its device /);
      assert.match(message, /until the network side provides them/);
    }
  });

  it('answers 404 before 409 for an unknown subscriber with ecid or gnss', async () => {
    for (const method of ['ecid', 'gnss']) {
      const response = await locationRequest(t, token, { request_type: 'immediate', supi: supi(99), method });
      assert.equal(errorOf(response, 404), `subscriber ${supi(99)} not found`);
    }
  });

  it('answers 400 for a mode the method does not have', async () => {
    const cases: [string, string, string][] = [
      ['cell_id', 'ue_assisted', 'mode ue_assisted is not a mode of method cell_id (network_based)'],
      ['cell_id', 'standalone', 'mode standalone is not a mode of method cell_id (network_based)'],
      ['ecid', 'standalone', 'mode standalone is not a mode of method ecid (network_based, ue_assisted)'],
      ['gnss', 'network_based', 'mode network_based is not a mode of method gnss (standalone)'],
      ['gnss', 'ue_assisted', 'mode ue_assisted is not a mode of method gnss (standalone)'],
    ];
    for (const request_type of ['immediate', 'periodic', 'triggered']) {
      for (const [method, mode, message] of cases) {
        const response = await locationRequest(t, token, { request_type, supi: supi(1), method, mode });
        assert.equal(errorOf(response, 400), message, `${request_type} ${method} ${mode}`);
      }
    }
  });

  it('checks the mode against the default method cell_id', async () => {
    const response = await locationRequest(t, token, {
      request_type: 'immediate',
      supi: supi(1),
      mode: 'ue_assisted',
    });
    assert.equal(errorOf(response, 400), 'mode ue_assisted is not a mode of method cell_id (network_based)');
  });

  it('answers 409 for ecid and gnss sessions too, and opens none', async () => {
    for (const request_type of ['periodic', 'triggered']) {
      for (const method of ['ecid', 'gnss']) {
        const response = await locationRequest(t, token, { request_type, supi: supi(9), method });
        assert.match(errorOf(response, 409), new RegExp(`^method ${method} cannot be served`));
      }
    }
    const list = await t.request({
      method: 'GET',
      url: `/api/beta/positioning/sessions?supi=${supi(9)}`,
      token,
    });
    assert.deepEqual(result(list), []);
  });
});

describe('POST /api/beta/location: body rules', () => {
  const invalid: [string, Record<string, unknown>, string][] = [
    ['no request_type', { supi: supi(1) }, 'request_type is required'],
    [
      'unknown request_type',
      { request_type: 'once', supi: supi(1) },
      'request_type must be one of immediate, periodic, triggered, cancel',
    ],
    [
      'supi missing (immediate)',
      { request_type: 'immediate' },
      'supi is required unless request_type is cancel',
    ],
    [
      'supi missing (periodic)',
      { request_type: 'periodic' },
      'supi is required unless request_type is cancel',
    ],
    [
      'supi missing (triggered)',
      { request_type: 'triggered' },
      'supi is required unless request_type is cancel',
    ],
    [
      'supi without prefix',
      { request_type: 'immediate', supi: imsi(1) },
      'supi must be "imsi-" followed by 15 digits',
    ],
    [
      'supi too short',
      { request_type: 'immediate', supi: 'imsi-00101' },
      'supi must be "imsi-" followed by 15 digits',
    ],
    [
      'supi in upper case',
      { request_type: 'immediate', supi: `IMSI-${imsi(1)}` },
      'supi must be "imsi-" followed by 15 digits',
    ],
    [
      'unknown method',
      { request_type: 'immediate', supi: supi(1), method: 'wifi' },
      'method must be one of cell_id, ecid, gnss',
    ],
    [
      'unknown mode',
      { request_type: 'immediate', supi: supi(1), mode: 'ue_based' },
      'mode must be one of network_based, ue_assisted, standalone',
    ],
    [
      'cancel without session_id',
      { request_type: 'cancel' },
      'session_id is required when request_type is cancel',
    ],
    [
      'session_id outside cancel',
      { request_type: 'immediate', supi: supi(1), session_id: 'x' },
      'session_id is only for request_type cancel',
    ],
    [
      'interval_seconds 0',
      { request_type: 'periodic', supi: supi(1), interval_seconds: 0 },
      'interval_seconds must be an integer 1..86400',
    ],
    [
      'interval_seconds over a day',
      { request_type: 'periodic', supi: supi(1), interval_seconds: 86401 },
      'interval_seconds must be an integer 1..86400',
    ],
    [
      'interval_seconds as text',
      { request_type: 'periodic', supi: supi(1), interval_seconds: '60' },
      'interval_seconds must be an integer 1..86400',
    ],
    [
      'interval_seconds with a fraction',
      { request_type: 'periodic', supi: supi(1), interval_seconds: 1.5 },
      'interval_seconds must be an integer 1..86400',
    ],
    [
      'interval_seconds for triggered',
      { request_type: 'triggered', supi: supi(1), interval_seconds: 60 },
      'interval_seconds is only for request_type periodic',
    ],
    [
      'interval_seconds for immediate',
      { request_type: 'immediate', supi: supi(1), interval_seconds: 60 },
      'interval_seconds is only for request_type periodic',
    ],
    [
      'report_count 0',
      { request_type: 'periodic', supi: supi(1), report_count: 0 },
      'report_count must be an integer 1..1000000',
    ],
    [
      'report_count for immediate',
      { request_type: 'immediate', supi: supi(1), report_count: 3 },
      'report_count is only for request_type periodic or triggered',
    ],
    [
      'report_count for cancel',
      { request_type: 'cancel', session_id: 'x', report_count: 3 },
      'report_count is only for request_type periodic or triggered',
    ],
    ['unknown field', { request_type: 'immediate', supi: supi(1), accuracy: 10 }, 'unknown field "accuracy"'],
  ];

  for (const [name, body, message] of invalid) {
    it(`answers 400: ${name}`, async () => {
      assert.equal(errorOf(await locationRequest(t, token, body), 400), message);
    });
  }
});

describe('POST /api/beta/location: periodic and triggered', () => {
  it('answers 201 with the id of a new active session, for periodic and triggered', async () => {
    for (const [request_type, session_type] of [
      ['periodic', 1],
      ['triggered', 2],
    ] as const) {
      const response = await locationRequest(t, token, { request_type, supi: supi(1) });
      assert.equal(response.statusCode, 201, response.body);
      const { id } = result<{ id: string }>(response);
      assert.deepEqual(Object.keys(result(response)), ['id']);
      const opened = await session(t, token, id);
      assert.deepEqual(
        [opened.supi, opened.session_type, opened.method, opened.status],
        [supi(1), session_type, 'cell_id', 0],
      );
      await t.request({ method: 'DELETE', url: `/api/beta/positioning/sessions/${id}`, token });
    }
  });

  it('opens a session for a subscriber that cannot be located yet; it waits for its first estimate', async () => {
    const id = await openSession(t, token, { request_type: 'periodic', supi: supi(3) });
    const opened = await session(t, token, id);
    assert.deepEqual([opened.status, opened.last_result], [0, null]);
    await t.request({ method: 'DELETE', url: `/api/beta/positioning/sessions/${id}`, token });
  });

  it('answers 404 for a subscriber that does not exist', async () => {
    for (const request_type of ['periodic', 'triggered']) {
      const response = await locationRequest(t, token, { request_type, supi: supi(99) });
      assert.equal(errorOf(response, 404), `subscriber ${supi(99)} not found`);
    }
  });

  it('writes one create_positioning_session audit entry with the session terms', async () => {
    const id = await openSession(t, token, {
      request_type: 'periodic',
      supi: supi(1),
      interval_seconds: 30,
      report_count: 4,
    });
    const [entry] = await auditEntries(t, token);
    assert.deepEqual(
      [entry?.action, entry?.details],
      [
        'create_positioning_session',
        `Positioning session ${id} opened for subscriber ${supi(1)} (periodic, cell_id, every 30 s, 4 reports)`,
      ],
    );
    await t.request({ method: 'DELETE', url: `/api/beta/positioning/sessions/${id}`, token });
  });

  it(`answers 409 beyond ${MAX_ACTIVE_SESSIONS} active sessions of one subscriber`, async () => {
    const ids: string[] = [];
    for (let i = 0; i < MAX_ACTIVE_SESSIONS; i += 1) {
      ids.push(
        await openSession(t, token, { request_type: i % 2 ? 'periodic' : 'triggered', supi: supi(5) }),
      );
    }
    const response = await locationRequest(t, token, { request_type: 'triggered', supi: supi(5) });
    assert.equal(
      errorOf(response, 409),
      `subscriber ${supi(5)} already has ${MAX_ACTIVE_SESSIONS} active positioning sessions; cancel one first`,
    );
    await t.request({ method: 'DELETE', url: `/api/beta/positioning/sessions/${ids[0]}`, token });
    await openSession(t, token, { request_type: 'triggered', supi: supi(5) });
  });
});

describe('POST /api/beta/location: cancel', () => {
  it('cancels an active session: 204 with no body, status 3', async () => {
    const id = await openSession(t, token, { request_type: 'periodic', supi: supi(1) });
    const response = await locationRequest(t, token, { request_type: 'cancel', session_id: id });
    assert.equal(response.statusCode, 204, response.body);
    assert.equal(response.body, '');
    assert.equal((await session(t, token, id)).status, 3);
  });

  it('accepts the session’s own supi, and refuses another subscriber’s with 400', async () => {
    const id = await openSession(t, token, { request_type: 'triggered', supi: supi(1) });
    const other = await locationRequest(t, token, { request_type: 'cancel', session_id: id, supi: supi(2) });
    assert.equal(errorOf(other, 400), `supi ${supi(2)} is not the subscriber of positioning session ${id}`);
    const own = await locationRequest(t, token, { request_type: 'cancel', session_id: id, supi: supi(1) });
    assert.equal(own.statusCode, 204, own.body);
  });

  it('answers 404 for an unknown session and 409 for one no longer active', async () => {
    const unknown = await locationRequest(t, token, { request_type: 'cancel', session_id: 'nothing' });
    assert.equal(errorOf(unknown, 404), 'positioning session nothing not found');
    const id = await openSession(t, token, { request_type: 'triggered', supi: supi(1) });
    await locationRequest(t, token, { request_type: 'cancel', session_id: id });
    const again = await locationRequest(t, token, { request_type: 'cancel', session_id: id });
    assert.equal(errorOf(again, 409), `positioning session ${id} is not active (cancelled)`);
  });

  it('writes one cancel_positioning_session audit entry', async () => {
    const id = await openSession(t, token, { request_type: 'triggered', supi: supi(1) });
    await locationRequest(t, token, { request_type: 'cancel', session_id: id });
    const [entry] = await auditEntries(t, token);
    assert.deepEqual(
      [entry?.action, entry?.details],
      ['cancel_positioning_session', `Positioning session ${id} of subscriber ${supi(1)} cancelled`],
    );
  });
});

describe('GET /api/v1/openapi.json: location', () => {
  const ROUTES: [string, string][] = [
    ['post', '/api/beta/location'],
    ['get', '/api/beta/positioning/sessions'],
    ['get', '/api/beta/positioning/sessions/{id}'],
    ['delete', '/api/beta/positioning/sessions/{id}'],
    ['get', '/api/beta/cell-positions'],
    ['post', '/api/beta/cell-positions'],
    ['get', '/api/beta/cell-positions/{id}'],
    ['put', '/api/beta/cell-positions/{id}'],
    ['delete', '/api/beta/cell-positions/{id}'],
  ];
  type Operation = { summary?: string; responses: Record<string, { content?: unknown }> };

  it('describes every location route with a summary', async () => {
    const response = await t.request({ method: 'GET', url: '/api/v1/openapi.json' });
    const paths = response.json<{ paths: Record<string, Record<string, Operation>> }>().paths;
    for (const [method, path] of ROUTES) {
      assert.ok(paths[path]?.[method]?.summary, `${method.toUpperCase()} ${path} has no summary`);
    }
  });

  it('gives the location request its 200, 201 and 204 answers, the 204s without content', async () => {
    const response = await t.request({ method: 'GET', url: '/api/v1/openapi.json' });
    const paths = response.json<{ paths: Record<string, Record<string, Operation>> }>().paths;
    const responses = paths['/api/beta/location']?.post?.responses ?? {};
    assert.deepEqual(
      ['200', '201', '204', '400', '404', '409'].filter((code) => !(code in responses)),
      [],
      'missing statuses',
    );
    assert.equal(responses['204']?.content, undefined);
    assert.equal(paths['/api/beta/cell-positions/{id}']?.delete?.responses['204']?.content, undefined);
    const deleteSession = paths['/api/beta/positioning/sessions/{id}']?.delete?.responses ?? {};
    assert.ok('409' in deleteSession, 'DELETE of a session documents its 409');
  });
});
