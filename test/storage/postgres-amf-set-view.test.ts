import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createN2, DEFAULT_N2_SETTINGS, type N2Component } from '../../src/core/n2.wiring.ts';
import type { PduSession } from '../../src/network/network-state.ts';
import { createUdpTransport } from '../../src/network/transport/udp/udp-transport.ts';
import { SimulatedGnb } from '../../src/simulator/gnb.ts';
import { GnbUes } from '../../src/simulator/ue/gnb-ues.ts';
import { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import { gnbConfig, OPERATOR_PLMN } from '../e2e/n2-service.ts';
import { IMEI, imsiOf, K, OPC, testUeConfig } from '../e2e/registration-service.ts';
import { postgresBinDir } from '../helpers/postgres-cluster.ts';
import { freshPostgresDatabase, onPostgres } from '../helpers/postgres-test-database.ts';
import { createTestApp, initialize, manualClock, result, type TestApp } from '../helpers/test-app.ts';

// On PostgreSQL runs only (npm run test:postgres, or PMN_TEST_DB=postgres for one file), which start a cluster.
const skip = !onPostgres
  ? 'a PostgreSQL test: npm run test:postgres'
  : !postgresBinDir() && !process.env.PMN_TEST_POSTGRES_URL && 'no PostgreSQL server installed';

const TIMING = { heartbeatMs: 5_000, leaseMs: 15_000 };
const IMSI = '001010000000042';
const RADIO = { id: '001:01:b1', name: 'gnb-b', address: '192.0.2.7:38412', ranNodeType: 'gNB' };
const SESSION: PduSession = {
  id: 5,
  radioAccessType: '5G',
  status: 'active',
  ipType: 'IPv4',
  ipv4Address: '10.45.0.9',
  ipv6Prefix: '',
  dataNetwork: 'internet',
  slice: { sst: 1, sd: '' },
  ambrUplink: '100 Mbps',
  ambrDownlink: '200 Mbps',
};

interface Detail {
  status: {
    registered: boolean;
    radio_access_types: string[];
    imei: string;
    ciphering_algorithm: string;
    integrity_algorithm: string;
    last_seen_at: string | null;
    last_seen_radio: string;
    serving_amf: string;
  };
  sessions: Record<string, unknown>[];
}
type ListItem = { imsi: string; status: { registered: boolean; num_sessions: number } };

/**
 * The AMF set's read model (docs/amf-set.md, "One view of the network"): two whole services on one
 * PostgreSQL database, each its own member (amf-a, amf-b) on its own manual clock. What B's network
 * functions report (its network events: a radio connected, a UE registered through it with a PDU
 * session) is what A's API shows, B named; once B's lease has run out, A shows none of it.
 */
describe('every member of the AMF set shows the subscribers another member serves', { skip }, () => {
  const [clockA, clockB] = [manualClock(), manualClock()];
  let a: TestApp;
  let b: TestApp;
  let n2A: N2Component;
  let n2B: N2Component;
  let token: string;

  before(async () => {
    const database = await freshPostgresDatabase();
    const secretKey = randomBytes(32);
    a = await createTestApp({ database, secretKey, clock: clockA, timers: clockA });
    b = await createTestApp({ database, secretKey, clock: clockB, timers: clockB });
    token = await initialize(a);
    const settings = (name: string, pointer: number) => ({
      ...DEFAULT_N2_SETTINGS,
      transport: 'udp' as const,
      port: 0,
      udpPort: 0,
      amf: { ...DEFAULT_N2_SETTINGS.amf, name, pointer },
      amfSet: TIMING,
    });
    n2A = createN2(a.core, settings('amf-a', 1), { clock: clockA, timers: clockA });
    n2B = createN2(b.core, settings('amf-b', 2), { clock: clockB, timers: clockB });
    await n2A.start();
    await n2B.start();
    const created = await a.request({
      method: 'POST',
      url: '/api/v1/subscribers',
      token,
      payload: {
        imsi: IMSI,
        key: '465b5ce8b199b49faa5f0a2ee238a6bc',
        sequenceNumber: '000000000001',
        profile_name: 'default',
      },
    });
    assert.equal(created.statusCode, 201, created.body);
  });

  after(async () => {
    await n2A?.stop();
    await n2B?.stop();
    await a?.close();
    await b?.close();
  });

  const get = async <T>(app: TestApp, url: string): Promise<T> => {
    const response = await app.request({ method: 'GET', url, token });
    assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
    return result<T>(response);
  };
  const rowsOf = async (amf: string): Promise<number> => {
    const row = await a.db
      .selectFrom('subscriber_views')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('amf', '=', amf)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };

  it('a radio and a UE with a PDU session served by B are listed by A’s API with B named', async () => {
    b.network.radioConnected({ ...RADIO, supportedTais: [] });
    b.network.subscriberRegistered(IMSI, 'gnb-b', {
      radioAccessTypes: ['5G'],
      imei: '356938035643809',
      cipheringAlgorithm: 'NEA2',
      integrityAlgorithm: 'NIA2',
    });
    b.network.sessionEstablished(IMSI, SESSION);
    const registeredAt = clockB.now();
    // B's changes are written after a short delay (one write for them all), its radios as they come:
    // its time stands still, so no heartbeat writes them.
    await b.core.subscriberViews?.writer.flush();
    await n2B.amfSet()?.settled();

    const detail = await get<Detail>(a, `/api/v1/subscribers/${IMSI}`);
    const { last_seen_at: lastSeenAt, ...status } = detail.status;
    assert.equal(Date.parse(lastSeenAt ?? ''), registeredAt, 'when B last heard from it');
    assert.deepEqual(status, {
      registered: true,
      radio_access_types: ['5G'],
      imei: '356938035643809',
      ciphering_algorithm: 'NEA2',
      integrity_algorithm: 'NIA2',
      last_seen_radio: 'gnb-b',
      serving_amf: 'amf-b',
    });
    assert.deepEqual(detail.sessions, [
      {
        id: 5,
        radio_access_type: '5G',
        status: 'active',
        ip_type: 'IPv4',
        ipv4_address: '10.45.0.9',
        ipv6_prefix: '',
        data_network: 'internet',
        slice: { sst: 1, sd: '' },
        ambr_uplink: '100 Mbps',
        ambr_downlink: '200 Mbps',
      },
    ]);

    const list = await get<{ items: ListItem[] }>(a, '/api/v1/subscribers');
    assert.deepEqual(list.items.find((item) => item.imsi === IMSI)?.status, {
      registered: true,
      radio_access_types: ['5G'],
      num_sessions: 1,
    });
    const onRadio = await get<{ items: ListItem[] }>(a, '/api/v1/subscribers?radio=gnb-b');
    assert.deepEqual(
      onRadio.items.map((item) => item.imsi),
      [IMSI],
    );
    const radio = await get<{ name: string; amf_name: string }>(a, '/api/v1/ran/radios/gnb-b');
    assert.deepEqual([radio.name, radio.amf_name], ['gnb-b', 'amf-b']);
    const summary = await get<Record<string, number>>(a, '/api/v1/status/summary');
    assert.deepEqual(summary, {
      radios_connected: 1,
      subscribers: 1,
      subscribers_registered: 1,
      sessions_active: 1,
    });
  });

  it('the UE going idle on B shows its session inactive on A, active again once it is connected (network.md 6)', async () => {
    const statuses = async () =>
      (await get<Detail>(a, `/api/v1/subscribers/${IMSI}`)).sessions.map((session) => session.status);
    // The SMF's events as the UE's AN release deactivates the user plane, then its Service Request sets it up.
    b.core.networkEvents.emit('session.modified', {
      supi: IMSI,
      session: { ...SESSION, status: 'inactive' },
    });
    await b.core.subscriberViews?.writer.flush();
    assert.deepEqual(await statuses(), ['inactive']);
    b.core.networkEvents.emit('session.modified', { supi: IMSI, session: SESSION });
    await b.core.subscriberViews?.writer.flush();
    assert.deepEqual(await statuses(), ['active']);
  });

  it('the radio leaving B takes the UE off that radio in A’s list; the UE stays registered', async () => {
    b.network.radioDisconnected(RADIO.id);
    await b.core.subscriberViews?.writer.flush();
    const onRadio = await get<{ items: ListItem[] }>(a, '/api/v1/subscribers?radio=gnb-b');
    assert.deepEqual(onRadio.items, []);
    assert.equal((await get<Detail>(a, `/api/v1/subscribers/${IMSI}`)).status.serving_amf, 'amf-b');
    b.network.radioConnected({ ...RADIO, supportedTais: [] });
    b.network.subscriberSeen(IMSI, 'gnb-b');
    await b.core.subscriberViews?.writer.flush();
    const back = await get<{ items: ListItem[] }>(a, '/api/v1/subscribers?radio=gnb-b');
    assert.deepEqual(
      back.items.map((item) => item.imsi),
      [IMSI],
    );
  });

  it('once B’s lease has run out, A shows neither its radio nor its UE, and drops its rows', async () => {
    // B's clock stands still from now (a process that died): A moves past B's lease.
    for (let i = 0; i < 4; i++) {
      clockA.advance(TIMING.heartbeatMs);
      await n2A.amfSet()?.settled();
    }
    const members = await get<{ members: { name: string; state: string }[] }>(a, '/api/v1/amf-set');
    assert.deepEqual(
      members.members.map((m) => [m.name, m.state]),
      [
        ['amf-a', 'serving'],
        ['amf-b', 'gone'],
      ],
    );
    const detail = await get<Detail>(a, `/api/v1/subscribers/${IMSI}`);
    // No UE context stored by B here (its events alone were reported), so nothing holds the UE.
    assert.deepEqual(
      [detail.status.registered, detail.status.last_seen_radio, detail.status.serving_amf, detail.sessions],
      [false, '', '', []],
    );
    const list = await get<{ items: ListItem[] }>(a, '/api/v1/subscribers');
    assert.equal(list.items.find((item) => item.imsi === IMSI)?.status.registered, false);
    assert.deepEqual((await get<{ items: unknown[] }>(a, '/api/v1/subscribers?radio=gnb-b')).items, []);
    assert.equal(
      (await a.request({ method: 'GET', url: '/api/v1/ran/radios/gnb-b', token })).statusCode,
      404,
    );
    const summary = await get<Record<string, number>>(a, '/api/v1/status/summary');
    assert.deepEqual(
      [summary.radios_connected, summary.subscribers_registered, summary.sessions_active],
      [0, 0, 0],
    );
    assert.equal(await rowsOf('amf-b'), 1, 'left by the dead member');
    const job = a.backgroundJobs.find((j) => j.name === 'AMF set read model of gone members');
    assert.ok(job);
    await job.job(new AbortController().signal);
    assert.equal(await rowsOf('amf-b'), 0);
  });

  it('a member starting again under its name replaces what its previous run wrote', async () => {
    b.network.subscriberSeen(IMSI, 'gnb-b');
    await b.core.subscriberViews?.writer.flush();
    assert.equal(await rowsOf('amf-b'), 1);
    await n2B.stop();
    clockB.set(clockA.now());
    n2B = createN2(
      b.core,
      {
        ...DEFAULT_N2_SETTINGS,
        transport: 'udp' as const,
        port: 0,
        udpPort: 0,
        amf: { ...DEFAULT_N2_SETTINGS.amf, name: 'amf-b', pointer: 2 },
        amfSet: TIMING,
      },
      { clock: clockB, timers: clockB },
    );
    await n2B.start();
    await b.core.subscriberViews?.writer.flush();
    assert.equal(await rowsOf('amf-b'), 0);
  });
});

/**
 * The same through B's own network functions: a simulated gNB connects to B by NG Setup and a simulated
 * UE registers through it (5G-AKA, Security Mode, Registration Complete); A's API lists both, B named.
 */
describe('a gNB and a UE registered through one member are shown by the other', { skip }, () => {
  const [clockA, clockB] = [manualClock(), manualClock()];
  let a: TestApp;
  let b: TestApp;
  let n2A: N2Component;
  let n2B: N2Component;
  let token: string;
  let ranSide: Awaited<ReturnType<typeof createUdpTransport>> | undefined;

  before(async () => {
    const database = await freshPostgresDatabase();
    const secretKey = randomBytes(32);
    a = await createTestApp({ database, secretKey, clock: clockA, timers: clockA });
    b = await createTestApp({ database, secretKey, clock: clockB, timers: clockB });
    token = await initialize(a);
    const settings = (name: string, pointer: number) => ({
      ...DEFAULT_N2_SETTINGS,
      transport: 'udp' as const,
      port: 0,
      udpPort: 0,
      amf: { ...DEFAULT_N2_SETTINGS.amf, name, pointer },
      amfSet: TIMING,
    });
    n2A = createN2(a.core, settings('amf-a', 1), { clock: clockA, timers: clockA });
    n2B = createN2(b.core, settings('amf-b', 2), { clock: clockB, timers: clockB });
    await n2A.start();
    await n2B.start();
  });

  after(async () => {
    await ranSide?.transport.close();
    await n2A?.stop();
    await n2B?.stop();
    await a?.close();
    await b?.close();
  });

  const get = async <T>(url: string): Promise<T> => {
    const response = await a.request({ method: 'GET', url, token });
    assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
    return result<T>(response);
  };

  it('lists the radio, the UE registered through it and B serving it', async () => {
    const created = await a.request({
      method: 'POST',
      url: '/api/v1/subscribers',
      token,
      payload: { imsi: imsiOf(1), key: K, opc: OPC, sequenceNumber: '000000000000', profile_name: 'default' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const endpoint = n2B.endpoint();
    assert.ok(endpoint?.local[0] && endpoint.udpPort !== undefined);
    ranSide = await createUdpTransport({
      addresses: ['127.0.0.1'],
      udpPort: 0,
      peerUdpPort: endpoint.udpPort,
    });
    const gnb = new SimulatedGnb({
      config: gnbConfig(1, { name: 'gnb-b' }),
      transport: ranSide.transport,
      amf: [endpoint.local[0]],
    });
    await gnb.connect();
    assert.equal((await gnb.ngSetup()).outcome, 'accepted');
    const ue = new SimulatedUe({
      config: testUeConfig(imsiOf(1)),
      radio: new GnbUes(gnb, { plmn: OPERATOR_PLMN, nrCellIdentity: 0x4001, tac: 1 }),
    });
    assert.equal((await ue.register('suci')).outcome, 'accepted');
    // B's view is written once its write delay has passed on its clock; its radio as it connected.
    clockB.advance(TIMING.heartbeatMs);
    await n2B.amfSet()?.settled();
    await b.core.subscriberViews?.writer.flush();

    const radio = await get<{ name: string; amf_name: string }>('/api/v1/ran/radios/gnb-b');
    assert.deepEqual([radio.name, radio.amf_name], ['gnb-b', 'amf-b']);
    const detail = await get<Detail>(`/api/v1/subscribers/${imsiOf(1)}`);
    assert.deepEqual(
      [
        detail.status.registered,
        detail.status.imei,
        detail.status.last_seen_radio,
        detail.status.serving_amf,
        detail.status.last_seen_at === null,
      ],
      [true, IMEI, 'gnb-b', 'amf-b', false],
    );
    const onRadio = await get<{ items: ListItem[] }>('/api/v1/subscribers?radio=gnb-b');
    assert.deepEqual(
      onRadio.items.map((item) => [item.imsi, item.status.registered]),
      [[imsiOf(1), true]],
    );
    const summary = await get<Record<string, number>>('/api/v1/status/summary');
    assert.deepEqual([summary.radios_connected, summary.subscribers_registered], [1, 1]);
  });
});
