import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { DEFAULT_AMF_IDENTITY, type AmfIdentity } from '../../../src/network/amf/context/amf-identity.ts';
import { createAmfSetMembership } from '../../../src/network/amf/set/amf-set-membership.ts';
import { backupOf, servedGuamiList } from '../../../src/network/amf/set/served-guamis.ts';
import type { AmfSetMembersStore } from '../../../src/network/ports/amf-set-members.ts';
import { createAmfSetMembersStore } from '../../../src/storage/network-ports/amf-set-members.ts';
import { openStorage, type Storage } from '../../../src/storage/storage.ts';
import { manualClock } from '../../helpers/test-app.ts';

const TIMING = { heartbeatMs: 5_000, leaseMs: 15_000 };
const PLMN = { mcc: '001', mnc: '01' };
type Time = ReturnType<typeof manualClock>;

function member(store: AmfSetMembersStore, identity: Partial<AmfIdentity> & { name: string }, time: Time) {
  return createAmfSetMembership({
    store,
    identity: { ...DEFAULT_AMF_IDENTITY, ...identity },
    n2Addresses: ['127.0.0.1'],
    plmn: () => Promise.resolve(PLMN),
    clock: time,
    timers: time,
    logger: pino({ level: 'silent' }),
    timing: TIMING,
  });
}

/** A member's drain as its peers see it (TS 23.501 5.21.2.2; docs/amf-set.md, "Draining"). */
describe('AMF set membership: drain', () => {
  let storage: Storage;
  let store: AmfSetMembersStore;
  before(async () => {
    storage = await openStorage({ path: ':memory:' });
    store = createAmfSetMembersStore({ db: storage.db });
  });
  after(() => storage.close());

  it('its row says draining at once and at every heartbeat after; the peer names another backup and hears the change', async () => {
    const [ta, tb, tc] = [manualClock(), manualClock(), manualClock()];
    const a = member(store, { name: 'drain-a', setId: 40, pointer: 1 }, ta);
    const b = member(store, { name: 'drain-b', setId: 40, pointer: 2 }, tb);
    const c = member(store, { name: 'drain-c', setId: 40, pointer: 3 }, tc);
    for (const m of [a, b, c]) await m.start();
    // B and C read each other at a heartbeat each.
    tb.advance(TIMING.heartbeatMs);
    tc.advance(TIMING.heartbeatMs);
    await Promise.all([b.settled(), c.settled()]);
    const backupName = (name: string) =>
      backupOf(
        c.members().find((m) => m.name === name)!,
        c.members(),
      )?.name;
    assert.equal(backupName('drain-c'), 'drain-a', 'the next serving member, wrapping round');
    let changes = 0;
    c.subscribe(() => changes++);
    const listed = JSON.stringify(
      servedGuamiList({ ...DEFAULT_AMF_IDENTITY, name: 'drain-c', setId: 40, pointer: 3 }, c.members(), PLMN),
    );

    assert.equal(a.state(), 'serving');
    assert.equal(await a.drain(), true);
    assert.equal(a.state(), 'draining');
    const row = async () => (await store.list()).find((m) => m.name === 'drain-a')?.state;
    assert.equal(await row(), 'draining', 'written at once');
    ta.advance(TIMING.heartbeatMs);
    await a.settled();
    assert.equal(await row(), 'draining', 'and at the next heartbeat');

    tc.advance(TIMING.heartbeatMs);
    await c.settled();
    assert.equal(changes, 1, 'the peer heard its set change');
    assert.equal(backupName('drain-c'), 'drain-b', 'a draining member is nobody’s backup');
    assert.notEqual(
      JSON.stringify(
        servedGuamiList(
          { ...DEFAULT_AMF_IDENTITY, name: 'drain-c', setId: 40, pointer: 3 },
          c.members(),
          PLMN,
        ),
      ),
      listed,
      'its served GUAMIs changed: its radios hear AMF Configuration Update',
    );
    // Stopped after its drain: gone.
    await a.stop();
    assert.equal(await row(), 'gone');
    assert.equal(await a.drain(), false, 'no member: nothing to drain');
    for (const m of [b, c]) await m.stop();
  });
});
