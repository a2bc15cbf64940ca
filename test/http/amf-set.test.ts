import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createN2, DEFAULT_N2_SETTINGS } from '../../src/core/n2.wiring.ts';
import { AmfPointerTaken } from '../../src/network/amf/set/amf-set-membership.ts';
import { created, imsi, newSubscriber } from '../helpers/network.ts';
import { createTestApp, initialize, manualClock, result, type TestApp } from '../helpers/test-app.ts';
import { ueContextRecord } from '../network/working-state/ue-context-store.contract.ts';

interface AmfSetAnswer {
  answered_by: string | null;
  members: { name: string; state: string; guami: Record<string, unknown>; relative_capacity: number }[];
}

const N2 = { ...DEFAULT_N2_SETTINGS, transport: 'udp' as const, port: 0, udpPort: 0 };

/** `GET /api/v1/amf-set`, the AMF set as the member whose API answers shows it (docs/api.md). */
describe('GET /api/v1/amf-set', () => {
  let t: TestApp;
  let token: string;
  const clock = manualClock();
  before(async () => {
    t = await createTestApp({ clock });
    token = await initialize(t);
  });
  after(() => t.close());

  const read = async (): Promise<AmfSetAnswer> =>
    result<AmfSetAnswer>(await t.request({ method: 'GET', url: '/api/v1/amf-set', token }));
  const gauge = async (state: string): Promise<string | undefined> => {
    const text = (await t.request({ method: 'GET', url: '/api/v1/metrics', token })).body;
    return new RegExp(`^pmn_amf_set_members\\{state="${state}"\\} (\\d+)$`, 'm').exec(text)?.[1];
  };

  it('needs a login', async () => {
    assert.equal((await t.request({ method: 'GET', url: '/api/v1/amf-set' })).statusCode, 401);
  });

  it('lists this member while its N2 runs, and it gone once it stopped; the gauge counts them by state', async () => {
    assert.deepEqual(await read(), { answered_by: null, members: [] });
    const n2 = createN2(t.core, N2, { clock, timers: clock });
    await n2.start();
    try {
      const running = await read();
      assert.equal(running.answered_by, 'pmn-amf');
      assert.deepEqual(
        running.members.map((m) => [m.name, m.state, m.guami, m.relative_capacity]),
        [
          [
            'pmn-amf',
            'serving',
            { mcc: '001', mnc: '01', amf_region_id: 1, amf_set_id: 1, amf_pointer: 0 },
            255,
          ],
        ],
      );
      assert.equal(await gauge('serving'), '1');

      // Another process configured with the same AMF Pointer under another name does not start.
      const clash = createN2(
        t.core,
        { ...N2, amf: { ...N2.amf, name: 'pmn-amf-2' } },
        { clock, timers: clock },
      );
      await assert.rejects(clash.start(), AmfPointerTaken);
    } finally {
      await n2.stop();
    }
    const stopped = await read();
    assert.equal(stopped.answered_by, null);
    assert.deepEqual(
      stopped.members.map((m) => [m.name, m.state]),
      [['pmn-amf', 'gone']],
    );
    assert.equal(await gauge('serving'), '0');
    assert.equal(await gauge('gone'), '1');
  });

  it('a subscriber registered with another member reads registered, naming that member (docs/decisions.md, 15)', async () => {
    await created(t, token, '/api/v1/subscribers', newSubscriber(7));
    const read = async () =>
      result<{ status: { registered: boolean; serving_amf: string }; sessions: unknown[] }>(
        await t.request({ method: 'GET', url: `/api/v1/subscribers/${imsi(7)}`, token }),
      );
    const shown = async () => {
      const { status } = await read();
      return [status.registered, status.serving_amf];
    };
    assert.deepEqual(await shown(), [false, '']);
    // Member amf-b registered it: its UE context is in the store every member shares.
    const record = ueContextRecord(imsi(7), { owner: 'amf-b' });
    assert.equal(await t.core.ports.ueContexts.takeOver(record, 0), 1);
    assert.deepEqual(await shown(), [true, 'amf-b']);
    // Its session as amf-b stored it: this process's network state has none of it. amf-b is no live
    // member, so the user plane the record says was up died with it: the UE is idle (network.md 6).
    assert.deepEqual((await read()).sessions, [
      {
        radio_access_type: '5G',
        id: 5,
        status: 'inactive',
        ip_type: 'IPv4v6',
        ipv4_address: '10.45.0.2',
        ipv6_prefix: '2001:db8:0:1::/64',
        data_network: 'internet',
        slice: { sst: 1, sd: '' },
        ambr_uplink: '100 Mbps',
        ambr_downlink: '200 Mbps',
      },
    ]);
    // Deregistered (its record kept, not registered): no member serves it.
    assert.equal(await t.core.ports.ueContexts.put({ ...record, epoch: 1, registered: false }), 'stored');
    assert.deepEqual(await shown(), [false, '']);
    assert.deepEqual((await read()).sessions, []);
  });
});
