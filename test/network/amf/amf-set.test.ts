import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { DEFAULT_AMF_IDENTITY, type AmfIdentity } from '../../../src/network/amf/context/amf-identity.ts';
import {
  AmfNameTaken,
  AmfPointerTaken,
  createAmfSetMembership,
  type AmfSetMembership,
} from '../../../src/network/amf/set/amf-set-membership.ts';
import { backupOf, servedGuamiList } from '../../../src/network/amf/set/served-guamis.ts';
import type { AmfSetMember, AmfSetMembersStore } from '../../../src/network/ports/amf-set-members.ts';
import { bits } from '../../../src/network/ngap/ngap-values.ts';
import { createAmfSetMembersStore } from '../../../src/storage/network-ports/amf-set-members.ts';
import { openStorage, type Storage } from '../../../src/storage/storage.ts';
import { manualClock } from '../../helpers/test-app.ts';
import { until } from '../../helpers/until.ts';

const TIMING = { heartbeatMs: 5_000, leaseMs: 15_000 };
const PLMN = { mcc: '001', mnc: '01' };

/** One member's own clock and timers: a member whose time does not move is a process that died. */
type Time = ReturnType<typeof manualClock>;

function member(
  store: AmfSetMembersStore,
  identity: Partial<AmfIdentity> & { name: string },
  time: Time,
): AmfSetMembership {
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

/** `count` heartbeats of `m` on its time, each written and its peers read before the next. */
async function beats(m: AmfSetMembership, time: Time, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    time.advance(TIMING.heartbeatMs);
    await m.settled();
  }
}

const names = (m: AmfSetMembership): string[] => m.members().map((x) => x.name);

describe('AMF set membership (TS 23.501 5.21.2) on injected time', () => {
  let storage: Storage;
  let store: AmfSetMembersStore;
  before(async () => {
    storage = await openStorage({ path: ':memory:' });
    store = createAmfSetMembersStore({ db: storage.db });
  });
  after(() => storage.close());

  it('refuses to start while a live member holds its AMF Pointer, and starts once that lease has expired', async () => {
    const [ta, tb] = [manualClock(), manualClock()];
    const a = member(store, { name: 'clash-a', setId: 10, pointer: 3 }, ta);
    await a.start();
    const b = member(store, { name: 'clash-b', setId: 10, pointer: 3 }, tb);
    await assert.rejects(b.start(), (error: unknown) => {
      assert.ok(error instanceof AmfPointerTaken);
      assert.equal(error.holder.name, 'clash-a');
      return true;
    });
    // Another pointer of the same set, or the same pointer in another set, is no clash.
    const c = member(store, { name: 'clash-c', setId: 10, pointer: 4 }, manualClock());
    await c.start();
    const d = member(store, { name: 'clash-d', setId: 11, pointer: 3 }, manualClock());
    await d.start();
    // A dies (its time stands still): once its lease has run out on B's clock, the pointer is free.
    tb.advance(TIMING.leaseMs - 1);
    await assert.rejects(b.start(), AmfPointerTaken);
    tb.advance(1);
    await b.start();
    // C's lease has run out on B's clock too (its time stood still as well).
    assert.deepEqual(names(b), ['clash-b']);
    for (const m of [b, c, d]) await m.stop();
  });

  it('sees a peer join, and forgets it once its lease expires without a heartbeat', async () => {
    const [ta, tb] = [manualClock(), manualClock()];
    const a = member(store, { name: 'lease-a', setId: 20, pointer: 1 }, ta);
    await a.start();
    let changes = 0;
    a.subscribe(() => changes++);
    const b = member(store, { name: 'lease-b', setId: 20, pointer: 2 }, tb);
    await b.start();
    assert.deepEqual(names(b), ['lease-a', 'lease-b']);
    await beats(a, ta, 1);
    assert.deepEqual(names(a), ['lease-a', 'lease-b']);
    assert.equal(changes, 1);
    // B keeps beating while A's clock moves: it stays.
    for (let i = 0; i < 4; i++) {
      await beats(b, tb, 1);
      await beats(a, ta, 1);
    }
    assert.deepEqual(names(a), ['lease-a', 'lease-b']);
    // B crashes after its write at 20 s (lease to 35 s): no heartbeat, no goodbye. A is at 25 s.
    await beats(a, ta, 1);
    assert.deepEqual(names(a), ['lease-a', 'lease-b'], 'still within its lease');
    await beats(a, ta, 1);
    assert.deepEqual(names(a), ['lease-a']);
    assert.equal(changes, 2);
    await a.stop();
  });

  it('forgets a peer that stopped at its next heartbeat, before the lease would end', async () => {
    const [ta, tb] = [manualClock(), manualClock()];
    const a = member(store, { name: 'stop-a', setId: 30, pointer: 1 }, ta);
    const b = member(store, { name: 'stop-b', setId: 30, pointer: 2 }, tb);
    await a.start();
    await b.start();
    await b.stop();
    assert.deepEqual(b.members(), []);
    await beats(a, ta, 1);
    assert.deepEqual(names(a), ['stop-a']);
    const [row] = (await store.list()).filter((m) => m.name === 'stop-b');
    assert.equal(row?.state, 'gone');
    await a.stop();
  });

  it('a member paused past its lease whose pointer another took is no longer a member, and writes nothing', async () => {
    const [ta, tb] = [manualClock(), manualClock()];
    const a = member(store, { name: 'pause-a', setId: 40, pointer: 7 }, ta);
    await a.start();
    tb.advance(TIMING.leaseMs);
    const b = member(store, { name: 'pause-b', setId: 40, pointer: 7 }, tb);
    await b.start();
    // A wakes up: its heartbeat finds its pointer held by a live member.
    ta.advance(TIMING.leaseMs);
    await a.settled();
    assert.deepEqual(a.members(), []);
    const rows = (await store.list()).filter((m) => m.setId === 40);
    const aRow = rows.find((m) => m.name === 'pause-a');
    assert.equal(aRow?.heartbeatAt, Date.parse('2026-11-22T10:00:00.000Z'), 'its row was not renewed');
    assert.equal(ta.pendingTimers(), 0, 'it stopped heartbeating');
    await b.stop();
    await a.stop();
  });

  it('writes its connected radios with each heartbeat, and none once it left', async () => {
    const time = manualClock();
    const radio = {
      id: '001:01:000001',
      name: 'gnb-1',
      address: '192.0.2.1:38412',
      ranNodeType: 'gNB',
      supportedTais: [],
      connectedAt: 1,
      lastSeenAt: 2,
    };
    const connected: (typeof radio)[] = [];
    const m = createAmfSetMembership({
      store,
      identity: { ...DEFAULT_AMF_IDENTITY, name: 'radios', setId: 60 },
      n2Addresses: ['127.0.0.1'],
      plmn: () => Promise.resolve(PLMN),
      radios: () => connected,
      clock: time,
      timers: time,
      logger: pino({ level: 'silent' }),
      timing: TIMING,
    });
    const stored = async () => (await store.list()).find((row) => row.name === 'radios')?.radios;
    await m.start();
    assert.deepEqual(await stored(), []);
    connected.push(radio);
    await beats(m, time, 1);
    assert.deepEqual(await stored(), [radio]);
    await m.stop();
    assert.deepEqual(await stored(), []);
  });

  it('writes its radios as they change, before the next heartbeat, one write for the changes of a moment', async () => {
    const time = manualClock();
    const radio = (n: number) => ({
      id: `001:01:00000${n}`,
      name: `gnb-${n}`,
      address: `192.0.2.${n}:38412`,
      ranNodeType: 'gNB',
      supportedTais: [],
      connectedAt: 1,
      lastSeenAt: 2,
    });
    const connected: ReturnType<typeof radio>[] = [];
    let writes = 0;
    const counted: AmfSetMembersStore = {
      ...store,
      write: (row, blocking) => {
        writes += 1;
        return store.write(row, blocking);
      },
    };
    const m = createAmfSetMembership({
      store: counted,
      identity: { ...DEFAULT_AMF_IDENTITY, name: 'radios-now', setId: 61 },
      n2Addresses: ['127.0.0.1'],
      plmn: () => Promise.resolve(PLMN),
      radios: () => connected,
      clock: time,
      timers: time,
      logger: pino({ level: 'silent' }),
      timing: TIMING,
    });
    const stored = async () => (await store.list()).find((row) => row.name === 'radios-now')?.radios;
    await m.start();
    writes = 0;
    // Its time stands still: no heartbeat is due.
    connected.push(radio(1), radio(2));
    m.radiosChanged();
    m.radiosChanged();
    await m.settled();
    assert.deepEqual(await stored(), [radio(1), radio(2)]);
    assert.equal(writes, 1);
    connected.splice(0, 1);
    m.radiosChanged();
    await m.settled();
    assert.deepEqual(await stored(), [radio(2)]);
    await m.stop();
    // Once it left, a change writes nothing.
    writes = 0;
    m.radiosChanged();
    await m.settled();
    assert.equal(writes, 0);
    assert.deepEqual(await stored(), []);
  });

  it('reads a row another client of the database spoiled without failing: no addresses, no radios, gone', async () => {
    await storage.db
      .insertInto('amf_set_members')
      .values({
        name: 'spoiled',
        instance: 'x',
        mcc: '001',
        mnc: '01',
        region_id: 1,
        set_id: 70,
        pointer: 1,
        relative_capacity: 1,
        n2_addresses: 'not json',
        state: 'confused',
        radios: '[{"id": 1}, 5, null, {"id": "a", "name": "b"}]',
        heartbeat_at: 0,
        lease_expires_at: Number.MAX_SAFE_INTEGER,
      })
      .execute();
    const row = (await store.list()).find((m) => m.name === 'spoiled');
    assert.deepEqual([row?.n2Addresses, row?.radios, row?.state], [[], [], 'gone']);
  });

  it('a second process under a live AMF Name is refused once the first writes its heartbeat, and takes nothing', async () => {
    const [t1, t2] = [manualClock(), manualClock()];
    const first = member(store, { name: 'twin', setId: 50, pointer: 1 }, t1);
    await first.start();
    const [before] = (await store.list()).filter((m) => m.name === 'twin');
    const second = member(store, { name: 'twin', setId: 50, pointer: 1 }, t2);
    const started = second.start();
    const refused = assert.rejects(started, (error: unknown) => {
      assert.ok(error instanceof AmfNameTaken, String(error));
      assert.equal(error.holder.instance, before?.instance);
      assert.match(error.message, /AMF name twin is in use/);
      return true;
    });
    // The second waits for the first's lease; the first writes its heartbeat meanwhile.
    await until('the second start to wait', () => t2.pendingTimers() === 1);
    assert.deepEqual(
      (await store.list()).find((m) => m.name === 'twin'),
      before,
      'nothing written',
    );
    await beats(first, t1, 1);
    t2.advance(TIMING.heartbeatMs);
    await refused;
    // The first is untouched: still a member, its row its own, its next heartbeat written.
    await beats(first, t1, 1);
    assert.equal(first.status(), 'member');
    assert.deepEqual(names(first), ['twin']);
    const [row] = (await store.list()).filter((m) => m.name === 'twin');
    assert.equal(row?.instance, before?.instance);
    assert.equal(row?.state, 'serving');
    await first.stop();
  });

  it('a stop during the wait for another run’s lease ends it: the start resolves stopped, having taken nothing', async () => {
    const [t1, t2] = [manualClock(), manualClock()];
    const first = member(store, { name: 'sigterm', setId: 52, pointer: 1 }, t1);
    await first.start();
    const [before] = (await store.list()).filter((m) => m.name === 'sigterm');
    const second = member(store, { name: 'sigterm', setId: 52, pointer: 1 }, t2);
    const started = second.start();
    await until('the second start to wait', () => t2.pendingTimers() === 1);
    // Its time stands still: only the stop can end the wait.
    await second.stop();
    await started;
    assert.equal(second.status(), 'stopped');
    assert.equal(t2.pendingTimers(), 0, 'no wait, no heartbeat, no lease left');
    t2.advance(TIMING.leaseMs * 2);
    assert.deepEqual(
      (await store.list()).find((m) => m.name === 'sigterm'),
      before,
      'nothing written',
    );
    await beats(first, t1, 1);
    assert.equal(first.status(), 'member');
    await first.stop();
  });

  it('the restart of a crashed process waits for its previous run’s lease, then joins; a clean stop waits for none', async () => {
    const [t1, t2, t3] = [manualClock(), manualClock(), manualClock()];
    const crashed = member(store, { name: 'restart', setId: 51, pointer: 1 }, t1);
    await crashed.start();
    // Crashed: its time stands still. The restart waits, reading the row each heartbeat, until its lease ends.
    const restarted = member(store, { name: 'restart', setId: 51, pointer: 1 }, t2);
    let joined = false;
    const started = restarted.start().then(() => (joined = true));
    for (let waited = 0; waited < TIMING.leaseMs; waited += TIMING.heartbeatMs) {
      await until('the restart to wait', () => t2.pendingTimers() === 1);
      assert.equal(joined, false, `joined after ${waited} ms, inside the previous run's lease`);
      t2.advance(TIMING.heartbeatMs);
    }
    await started;
    assert.equal(restarted.status(), 'member');
    // The crashed run, were it only paused, finds its row taken at its next heartbeat and stops serving.
    await beats(crashed, t1, 1);
    assert.equal(crashed.status(), 'lost');
    await restarted.stop();
    // Its row says gone: the next start under the name joins at once.
    const next = member(store, { name: 'restart', setId: 51, pointer: 1 }, t3);
    await next.start();
    assert.equal(next.status(), 'member');
    await crashed.stop();
    await next.stop();
  });
});

describe('served GUAMIs and their backup AMF (TS 38.413 9.3.3.5, TS 23.501 5.21.2.3)', () => {
  const row = (name: string, pointer: number, state: AmfSetMember['state'] = 'serving'): AmfSetMember => ({
    name,
    instance: name,
    ...PLMN,
    regionId: 1,
    setId: 1,
    pointer,
    relativeCapacity: 100,
    n2Addresses: [],
    state,
    radios: [],
    heartbeatAt: 0,
    leaseExpiresAt: 1,
  });
  const set = [row('p1', 1), row('p5', 5), row('p9', 9)];

  it('the backup of a member is the next serving member by AMF Pointer, wrapping round', () => {
    assert.equal(backupOf(set[0]!, set)?.name, 'p5');
    assert.equal(backupOf(set[1]!, set)?.name, 'p9');
    assert.equal(backupOf(set[2]!, set)?.name, 'p1');
  });

  it('a draining member is nobody’s backup; a member alone has none', () => {
    const draining = [row('p1', 1), row('p5', 5, 'draining'), row('p9', 9)];
    assert.equal(backupOf(draining[0]!, draining)?.name, 'p9');
    assert.equal(backupOf(draining[1]!, draining)?.name, 'p9');
    assert.equal(backupOf(row('p1', 1), [row('p1', 1)]), undefined);
  });

  it('lists its own GUAMI first, then its peers by pointer, each with its backup AMF name', () => {
    const self = { ...DEFAULT_AMF_IDENTITY, name: 'p5', pointer: 5 };
    const list = servedGuamiList(self, set, PLMN);
    assert.deepEqual(
      list.map((item) => [item.gUAMI.aMFPointer, item.backupAMFName]),
      [
        [bits(5, 6), 'p9'],
        [bits(1, 6), 'p5'],
        [bits(9, 6), 'p1'],
      ],
    );
    // Not (or no longer) a member: its own GUAMI alone, with no backup to name.
    assert.deepEqual(
      servedGuamiList(self, [], PLMN).map((item) => [item.gUAMI.aMFPointer, item.backupAMFName]),
      [[bits(5, 6), undefined]],
    );
  });
});
