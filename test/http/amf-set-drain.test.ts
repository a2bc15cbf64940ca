import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createN2, DEFAULT_N2_SETTINGS } from '../../src/core/n2.wiring.ts';
import { ROLE } from '../../src/identity/roles.ts';
import type { DrainOutcome } from '../../src/network/amf/set/member-drain.ts';
import type { AmfSetMember } from '../../src/network/ports/amf-set-members.ts';
import {
  auditEntries,
  createTestApp,
  initialize,
  manualClock,
  result,
  userWithRole,
  type TestApp,
} from '../helpers/test-app.ts';

const N2 = { ...DEFAULT_N2_SETTINGS, transport: 'udp' as const, port: 0, udpPort: 0 };
const DRAIN = '/api/v1/amf-set/drain';

/** `POST /api/v1/amf-set/drain`: the member that answers drains (docs/amf-set.md, "Draining"). */
describe('POST /api/v1/amf-set/drain', () => {
  let t: TestApp;
  let admin: string;
  const clock = manualClock();
  before(async () => {
    t = await createTestApp({ clock });
    admin = await initialize(t);
  });
  after(() => t.close());

  const post = (token?: string) =>
    t.request({ method: 'POST', url: DRAIN, ...(token === undefined ? {} : { token }) });
  const error = (response: { json(): unknown }) => (response.json() as { error: string }).error;
  /** A live peer of the default member's set (pointer 1), as its heartbeat would write it. */
  const peer = (name: string, state: AmfSetMember['state'] = 'serving'): AmfSetMember => ({
    name,
    instance: `${name}-run`,
    mcc: '001',
    mnc: '01',
    regionId: 1,
    setId: 1,
    pointer: 1,
    relativeCapacity: 255,
    n2Addresses: ['127.0.0.2'],
    state,
    radios: [],
    heartbeatAt: clock.now(),
    leaseExpiresAt: clock.now() + 3_600_000,
  });

  it('needs an admin: 401 without login, 403 for a network manager and a read-only user', async () => {
    assert.equal((await post()).statusCode, 401);
    const manager = await userWithRole(t, admin, ROLE.networkManager);
    const reader = await userWithRole(t, admin, ROLE.readOnly);
    assert.equal((await post(manager)).statusCode, 403);
    assert.equal((await post(reader)).statusCode, 403);
  });

  it('409 while this process runs no N2 (no member)', async () => {
    const answer = await post(admin);
    assert.equal(answer.statusCode, 409);
    assert.match(error(answer), /no member of an AMF set/);
  });

  it('409 for a member alone in its set (SQLite is a set of one): nobody would take its UEs', async () => {
    const n2 = createN2(t.core, N2, { clock, timers: clock });
    await n2.start();
    try {
      const answer = await post(admin);
      assert.equal(answer.statusCode, 409);
      assert.match(error(answer), /no other member of the AMF set is serving/);
      assert.equal(n2.drain()?.started(), false);
    } finally {
      await n2.stop();
    }
  });

  it('202 with a serving peer: the row says draining, the drain ends (no UE), audited; a second drain is 409', async () => {
    await t.core.amfSet.store.write(peer('amf-b'), () => undefined);
    const drained: DrainOutcome[] = [];
    const n2 = createN2(t.core, N2, { clock, timers: clock, onDrained: (outcome) => drained.push(outcome) });
    await n2.start();
    try {
      const answer = await post(admin);
      assert.equal(answer.statusCode, 202, answer.body);
      assert.deepEqual(result(answer), { name: 'pmn-amf', state: 'draining', backup_amf_name: 'amf-b' });
      assert.deepEqual(await n2.drain()?.done, { reason: 'empty', connected: 0 });
      assert.deepEqual(drained, [{ reason: 'empty', connected: 0 }]);
      const rows = await t.core.amfSet.members();
      assert.deepEqual(rows.map((m) => [m.name, m.state]).sort(), [
        ['amf-b', 'serving'],
        ['pmn-amf', 'draining'],
      ]);
      const [entry] = await auditEntries(t, admin);
      assert.equal(entry?.action, 'drain_amf_set_member');
      assert.match(entry?.details ?? '', /pmn-amf draining; its UEs go to amf-b/);

      const again = await post(admin);
      assert.equal(again.statusCode, 409);
      assert.match(error(again), /already draining/);
    } finally {
      await n2.stop();
    }
    // Stopped after its drain: gone, as any member that stops.
    const gone = (await t.core.amfSet.members()).find((m) => m.name === 'pmn-amf');
    assert.equal(gone?.state, 'gone');
  });

  it("409 when the only peer is draining itself: a draining member is nobody's backup", async () => {
    await t.core.amfSet.store.write(peer('amf-b', 'draining'), () => undefined);
    const n2 = createN2(t.core, N2, { clock, timers: clock });
    await n2.start();
    try {
      const answer = await post(admin);
      assert.equal(answer.statusCode, 409);
      assert.match(error(answer), /no other member/);
    } finally {
      await n2.stop();
    }
  });
});
