import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { RadioConnection } from '../../src/network/radio-registry.ts';
import { ROLE } from '../../src/identity/roles.ts';
import {
  createTestApp,
  initialize,
  manualClock,
  result,
  userWithRole,
  type TestApp,
} from '../helpers/test-app.ts';

const TAIS = [
  {
    tai: { plmnID: { mcc: '001', mnc: '01' }, tac: '000001' },
    snssais: [{ sst: 1 }, { sst: 2, sd: '0a0b0c' }],
  },
];

function gnb(overrides: Partial<RadioConnection> = {}): RadioConnection {
  return {
    id: '001:01:000001',
    name: 'gnb-1',
    address: '10.0.0.5:38412',
    ranNodeType: 'gNB',
    supportedTais: TAIS,
    ...overrides,
  };
}

describe('radios', () => {
  let t: TestApp;
  let readOnly: string;
  let admin: string;
  const clock = manualClock(Date.parse('2026-11-22T10:00:00.000Z'));

  before(async () => {
    t = await createTestApp({ clock });
    admin = await initialize(t);
    readOnly = await userWithRole(t, admin, ROLE.readOnly);
  });
  after(() => t.close());
  beforeEach(() => {
    for (const id of ['001:01:000001', '001:01:000002', '001:01:000003']) t.network.radioDisconnected(id);
  });

  async function get<T>(url: string): Promise<T> {
    const response = await t.request({ method: 'GET', url, token: readOnly });
    assert.equal(response.statusCode, 200, response.body);
    return result<T>(response);
  }

  describe('GET /api/v1/ran/radios', () => {
    it('lists the radios connected now with name, id, address and the deprecated supported_tais', async () => {
      t.network.radioConnected(gnb());
      assert.deepEqual(await get('/api/v1/ran/radios'), {
        items: [{ name: 'gnb-1', id: '001:01:000001', address: '10.0.0.5:38412', supported_tais: TAIS }],
        page: 1,
        per_page: 25,
        total_count: 1,
      });
    });

    it('orders by name, names a radio that sent none by its id, and drops disconnected radios', async () => {
      t.network.radioConnected(gnb({ id: '001:01:000002', name: 'b-site' }));
      t.network.radioConnected(gnb({ id: '001:01:000003', name: undefined }));
      t.network.radioConnected(gnb({ id: '001:01:000001', name: 'a-site' }));
      const names = async () =>
        (await get<{ items: { name: string }[] }>('/api/v1/ran/radios')).items.map((r) => r.name);
      assert.deepEqual(await names(), ['001:01:000003', 'a-site', 'b-site']);
      assert.equal(t.network.radioDisconnected('001:01:000002'), true);
      assert.equal(t.network.radioDisconnected('001:01:000002'), false);
      assert.deepEqual(await names(), ['001:01:000003', 'a-site']);
    });

    it('pages', async () => {
      for (const n of [1, 2, 3]) t.network.radioConnected(gnb({ id: `001:01:00000${n}`, name: `gnb-${n}` }));
      const page = await get<{ items: { name: string }[]; total_count: number }>(
        '/api/v1/ran/radios?page=2&per_page=2',
      );
      assert.deepEqual([page.items.map((r) => r.name), page.total_count], [['gnb-3'], 3]);
    });

    it('answers 400 for per_page over 100', async () => {
      const response = await t.request({
        method: 'GET',
        url: '/api/v1/ran/radios?per_page=101',
        token: readOnly,
      });
      assert.equal(response.statusCode, 400);
    });
  });

  describe('GET /api/v1/ran/radios/{name}', () => {
    it('details the radio: connected_at, last_seen_at, ran_node_type and the TAI/S-NSSAI structure', async () => {
      t.network.radioConnected(gnb());
      clock.advance(61_000);
      assert.equal(t.network.radioUpdated('001:01:000001'), true);
      assert.deepEqual(await get('/api/v1/ran/radios/gnb-1'), {
        name: 'gnb-1',
        id: '001:01:000001',
        address: '10.0.0.5:38412',
        connected_at: '2026-11-22T10:00:00.000Z',
        last_seen_at: '2026-11-22T10:01:01.000Z',
        ran_node_type: 'gNB',
        supported_tais: TAIS,
        associations: [{ address: '10.0.0.5:38412', usage: 'both' }],
        // This process runs no N2, so it is no member of an AMF set.
        amf_name: null,
      });
    });

    it('follows a configuration update: new name and tracking areas', async () => {
      t.network.radioConnected(gnb());
      const tais = [{ tai: { plmnID: { mcc: '001', mnc: '01' }, tac: '000002' }, snssais: [{ sst: 1 }] }];
      t.network.radioUpdated('001:01:000001', { name: 'gnb-renamed', supportedTais: tais });
      const radio = await get<{ name: string; supported_tais: unknown }>('/api/v1/ran/radios/gnb-renamed');
      assert.deepEqual([radio.name, radio.supported_tais], ['gnb-renamed', tais]);
      assert.equal(t.network.radioUpdated('001:01:000009'), false);
    });

    it('finds a radio by its id too', async () => {
      t.network.radioConnected(gnb());
      assert.equal((await get<{ name: string }>('/api/v1/ran/radios/001:01:000001')).name, 'gnb-1');
    });

    it('answers 404 for a radio that is not connected', async () => {
      const response = await t.request({ method: 'GET', url: '/api/v1/ran/radios/gnb-9', token: readOnly });
      assert.deepEqual(
        [response.statusCode, response.json()],
        [404, { error: 'radio gnb-9 is not connected' }],
      );
    });

    it('needs credentials', async () => {
      const response = await t.request({ method: 'GET', url: '/api/v1/ran/radios/gnb-1' });
      assert.equal(response.statusCode, 401);
    });
  });
  describe('a radio that disconnects', () => {
    it('no longer serves its subscribers: the radio filter of the subscriber list drops them', async () => {
      const imsi = '001010000000123';
      const created = await t.request({
        method: 'POST',
        url: '/api/v1/subscribers',
        token: admin,
        payload: {
          imsi,
          key: '465b5ce8b199b49faa5f0a2ee238a6bc',
          sequenceNumber: '000000000001',
          profile_name: 'default',
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      t.network.radioConnected(gnb());
      t.network.subscriberRegistered(imsi, 'gnb-1', {
        radioAccessTypes: ['5G'],
        imei: '356938035643809',
        cipheringAlgorithm: 'NEA2',
        integrityAlgorithm: 'NIA2',
      });
      const onRadio = async () =>
        (await get<{ items: { imsi: string }[] }>('/api/v1/subscribers?radio=gnb-1')).items.map(
          (i) => i.imsi,
        );
      assert.deepEqual(await onRadio(), [imsi]);
      t.network.radioDisconnected('001:01:000001');
      assert.deepEqual(await onRadio(), []);
    });
  });
});
