import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createN2, DEFAULT_N2_SETTINGS, type N2Component } from '../../src/core/n2.wiring.ts';
import { ROLE } from '../../src/identity/roles.ts';
import type { NetworkSource } from '../../src/resources/status/health.ts';
import { VERSION } from '../../src/version.ts';
import {
  createApiToken,
  createTestApp,
  initialize,
  result,
  userWithRole,
  type TestApp,
} from '../helpers/test-app.ts';

interface Status {
  version: string;
  initialized: boolean;
  ready: boolean;
  uptime_seconds?: number;
  n2?: { running: boolean; transport: string | null; listeners: string[]; udp_port?: number };
  upf?: {
    running: boolean;
    datapath: string | null;
    reason?: string;
    n3_port?: number;
    n6_interface?: string;
  };
  database?: { healthy: boolean; size_bytes: number | null };
  records?: { queue_depth: number };
}

describe('GET /api/v1/status', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('answers without credentials, not initialized before the first user exists', async () => {
    const response = await t.request({ method: 'GET', url: '/api/v1/status' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { result: { version: VERSION, initialized: false, ready: true } });
  });

  it('reports initialized once init has created the first user', async () => {
    await initialize(t);
    const response = await t.request({ method: 'GET', url: '/api/v1/status' });
    assert.equal(result(response).initialized, true);
  });
});

describe('GET /api/v1/status: the health view for authenticated callers', () => {
  let t: TestApp;
  let admin: string;
  let n2: N2Component | undefined;
  // What main.ts passes: the N2 component as it runs. The UPF needs CAP_NET_ADMIN and a TUN, so the
  // tests stand in for a started one with what its `upf()` gives (core/n2.wiring.ts).
  let upf: ReturnType<NetworkSource['upf']>;
  const network: NetworkSource = { endpoint: () => n2?.endpoint(), upf: () => upf };

  before(async () => {
    t = await createTestApp({ network });
    admin = await initialize(t);
  });
  after(async () => {
    await n2?.stop();
    await t.close();
  });

  const status = async (token?: string, authorization?: string) => {
    const response = await t.request({
      method: 'GET',
      url: '/api/v1/status',
      ...(token === undefined ? {} : { token }),
      ...(authorization === undefined ? {} : { headers: { authorization } }),
    });
    assert.equal(response.statusCode, 200);
    return result<Status>(response);
  };

  it('gives every role, by bearer or API token, the uptime, N2, UPF, database and records queue', async () => {
    const reader = await userWithRole(t, admin, ROLE.readOnly);
    const manager = await userWithRole(t, admin, ROLE.networkManager);
    for (const token of [admin, reader, manager, await createApiToken(t, reader)]) {
      const answer = await status(token);
      assert.equal(answer.version, VERSION);
      assert.ok(Number.isInteger(answer.uptime_seconds) && (answer.uptime_seconds ?? -1) >= 0);
      assert.deepEqual(answer.n2, { running: false, transport: null, listeners: [] });
      assert.deepEqual(answer.upf, { running: false, datapath: null });
      assert.equal(answer.database?.healthy, true);
      assert.ok((answer.database?.size_bytes ?? 0) > 0);
      assert.ok(Number.isInteger(answer.records?.queue_depth));
    }
  });

  it('gives no health view without valid credentials, and refuses nobody', async () => {
    for (const authorization of [undefined, 'Bearer not-a-token', 'Bearer core_abc_def', 'Basic eA==']) {
      const answer = await status(undefined, authorization);
      assert.deepEqual(Object.keys(answer).sort(), ['initialized', 'ready', 'version']);
    }
  });

  it('names the N2 transport and its listeners once N2 runs, and the UPF datapath', async () => {
    n2 = createN2(t.core, { ...DEFAULT_N2_SETTINGS, transport: 'udp', port: 0, udpPort: 0 });
    await n2.start();
    upf = { n3Port: 2152, tunName: 'pmn0', datapath: { kind: 'tun', reason: 'XDP needs CAP_BPF' } };
    const endpoint = n2.endpoint();
    assert.ok(endpoint?.udpPort !== undefined);
    const answer = await status(admin);
    assert.deepEqual(answer.n2, {
      running: true,
      transport: 'udp',
      listeners: [`127.0.0.1:${endpoint.local[0]?.port}`],
      udp_port: endpoint.udpPort,
    });
    assert.deepEqual(answer.upf, {
      running: true,
      datapath: 'tun',
      reason: 'XDP needs CAP_BPF',
      n3_port: 2152,
      n6_interface: 'pmn0',
    });
  });

  it('counts no record waiting once every accepted record is written', async () => {
    t.records.recordRadioLog({
      ranId: '001:01:000001',
      event: 'NG Setup',
      direction: 'inbound',
      raw: new Uint8Array(),
    });
    await t.records.flush();
    assert.equal((await status(admin)).records?.queue_depth, 0);
  });
});

describe('GET /api/v1/status/summary', () => {
  let t: TestApp;
  let admin: string;
  before(async () => {
    t = await createTestApp();
    admin = await initialize(t);
  });
  after(() => t.close());

  it('needs credentials', async () => {
    const response = await t.request({ method: 'GET', url: '/api/v1/status/summary' });
    assert.equal(response.statusCode, 401);
  });

  it("gives every role the dashboard's counts as the network state has them", async () => {
    const reader = await userWithRole(t, admin, ROLE.readOnly);
    const created = await t.request({
      method: 'POST',
      url: '/api/v1/subscribers',
      token: admin,
      payload: {
        imsi: '001010000000077',
        key: '465b5ce8b199b49faa5f0a2ee238a6bc',
        sequenceNumber: '000000000001',
        profile_name: 'default',
      },
    });
    assert.equal(created.statusCode, 201);
    t.network.radioConnected({
      id: '001:01:00000a',
      name: 'gnb-summary',
      address: '10.0.0.9:38412',
      ranNodeType: 'gNB',
      supportedTais: [],
    });
    t.network.subscriberRegistered('001010000000077', 'gnb-summary', {
      radioAccessTypes: ['5G'],
      imei: '356938035643809',
      cipheringAlgorithm: 'NEA2',
      integrityAlgorithm: 'NIA2',
    });
    t.network.sessionEstablished('001010000000077', {
      id: 1,
      radioAccessType: '5G',
      status: 'active',
      ipType: 'IPv4',
      ipv4Address: '10.45.0.2',
      ipv6Prefix: '',
      dataNetwork: 'internet',
      slice: { sst: 1, sd: '' },
      ambrUplink: '1 Gbps',
      ambrDownlink: '1 Gbps',
    });
    for (const token of [admin, reader]) {
      const response = await t.request({ method: 'GET', url: '/api/v1/status/summary', token });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(result(response), {
        radios_connected: 1,
        subscribers: 1,
        subscribers_registered: 1,
        sessions_active: 1,
      });
    }
  });
});
