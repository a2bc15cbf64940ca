import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import type { StrandedLeases } from '../../src/network/ports/address-leases.ts';
import type { UeContextStore } from '../../src/network/ports/ue-contexts.ts';
import { startLeaseReclamation } from '../../src/network/smf/lease-reclamation.ts';
import { createAddressLeasesStore } from '../../src/storage/network-ports/address-leases-store.ts';
import { createStrandedLeasesStore } from '../../src/storage/network-ports/stranded-leases-store.ts';
import { createUeContextStore } from '../../src/storage/network-ports/ue-context-store.ts';
import { openStorage, type Storage } from '../../src/storage/storage.ts';
import { freshPostgresDatabase, onPostgres } from '../helpers/postgres-test-database.ts';
import { createTestApp, manualClock } from '../helpers/test-app.ts';
import { ueContextRecord } from '../network/working-state/ue-context-store.contract.ts';

/**
 * Lease reclamation (docs/amf-set.md, "Lease reclamation"): a live member's sweep frees the address
 * leases of gone members that no UE context record names, on the run's database (PostgreSQL with
 * PMN_TEST_DB=postgres, else SQLite), each case on a fresh database.
 */
const dialect = onPostgres ? 'PostgreSQL' : 'SQLite';
const opened: Storage[] = [];
after(async () => {
  for (const storage of opened) await storage.close();
});

const POOL = '10.45.0.0/24';
const quiet = { info: () => undefined, warn: () => undefined };

async function setUp() {
  const storage = await openStorage({ path: onPostgres ? await freshPostgresDatabase() : ':memory:' });
  opened.push(storage);
  const { db } = storage;
  const clock = manualClock();
  const ueContexts = createUeContextStore({ db, secretBox: createSecretBox(randomBytes(32)) });
  const stranded = createStrandedLeasesStore({ db, clock });
  /** A membership row: live while `serving` with its lease running, else gone. */
  const member = async (name: string, state: 'serving' | 'gone') => {
    const row = {
      name,
      instance: `${name}-1`,
      mcc: '001',
      mnc: '01',
      region_id: 1,
      set_id: 1,
      pointer: Number(name.at(-1)?.charCodeAt(0) ?? 0) % 256,
      relative_capacity: 255,
      n2_addresses: '[]',
      radios: '[]',
      state,
      heartbeat_at: clock.now(),
      lease_expires_at: state === 'serving' ? clock.now() + 3_600_000 : clock.now() - 1,
    };
    await db
      .insertInto('amf_set_members')
      .values(row)
      .onConflict((oc) =>
        oc.column('name').doUpdateSet({ state: row.state, lease_expires_at: row.lease_expires_at }),
      )
      .execute();
  };
  const leasesOf = (owner: string) => createAddressLeasesStore({ db, owner, clock });
  const held = async () =>
    (await db.selectFrom('address_leases').select(['address', 'owner']).orderBy('address').execute()).map(
      (row) => `${row.address} ${row.owner}`,
    );
  /** A UE context of `owner` whose one session has `ipv4`. */
  const ue = async (supi: string, owner: string, ipv4: string | null, store: UeContextStore = ueContexts) => {
    const base = ueContextRecord(supi);
    // As a member that has just registered the UE takes it: whatever is stored.
    const taken = await store.takeOver(
      ueContextRecord(supi, {
        owner,
        guti: { ...base.guti!, tmsi: Number(supi.slice(-6)) },
        pduSessions: ipv4 === null ? [] : [{ ...base.pduSessions[0]!, ipv4, ipv6Prefix: null }],
      }),
      'any',
    );
    assert.notEqual(taken, 'fenced');
  };
  const sweeper = (leases: StrandedLeases = stranded, batch?: number, self = 'amf-c') =>
    startLeaseReclamation({
      leases,
      ueContexts,
      self,
      clock,
      timers: clock,
      logger: quiet,
      ...(batch === undefined ? {} : { batch }),
    });
  return { db, clock, ueContexts, stranded, member, leasesOf, held, ue, sweeper };
}

describe(`Lease reclamation (${dialect})`, () => {
  it('frees a gone member’s lease no record names, after two sweeps; keeps named ones and live members’', async () => {
    const t = await setUp();
    await t.member('amf-a', 'serving');
    await t.member('amf-b', 'serving');
    const a = t.leasesOf('amf-a');
    const b = t.leasesOf('amf-b');
    const named = await a.lease('ipv4', POOL); // .1: a UE of A's still names it
    const orphan = await a.lease('ipv4', POOL); // .2: its UE's record was replaced
    const live = await b.lease('ipv4', POOL); // .3: B's, B live, named by nothing
    assert.ok(named.ok && orphan.ok && live.ok);
    await t.ue('001010000000001', 'amf-a', named.address);
    await t.member('amf-a', 'gone');
    const sweep = t.sweeper();
    assert.equal(await sweep.sweep(), 0, 'the first sweep only notes it');
    assert.equal(await sweep.sweep(), 1);
    assert.deepEqual(await t.held(), ['10.45.0.1 amf-a', '10.45.0.3 amf-b']);
    // Nothing more to free: the named lease waits for its UE, the live member's is its own.
    assert.equal(await sweep.sweep(), 0);
    assert.equal(await sweep.sweep(), 0);
    assert.deepEqual(await t.held(), ['10.45.0.1 amf-a', '10.45.0.3 amf-b']);
    await sweep.stop();
  });

  it('a clean stop frees nothing its records name; once a UE registers elsewhere its old address is freed', async () => {
    const t = await setUp();
    await t.member('amf-a', 'serving');
    await t.member('amf-b', 'serving');
    const a = t.leasesOf('amf-a');
    const first = await a.lease('ipv4', POOL);
    const second = await a.lease('ipv4', POOL);
    assert.ok(first.ok && second.ok);
    await t.ue('001010000000001', 'amf-a', first.address);
    await t.ue('001010000000002', 'amf-a', second.address);
    await t.member('amf-a', 'gone'); // stopped cleanly: its row says gone, its records stay
    const sweep = t.sweeper();
    for (let i = 0; i < 3; i++) assert.equal(await sweep.sweep(), 0);
    assert.deepEqual(await t.held(), ['10.45.0.1 amf-a', '10.45.0.2 amf-a']);
    // The second UE registers on B: its record is replaced (B's, a new session and address of B's).
    const fresh = await t.leasesOf('amf-b').lease('ipv4', POOL);
    assert.ok(fresh.ok);
    await t.ue('001010000000002', 'amf-b', fresh.address);
    assert.equal(await sweep.sweep(), 0);
    assert.equal(await sweep.sweep(), 1);
    assert.deepEqual(await t.held(), ['10.45.0.1 amf-a', '10.45.0.3 amf-b']);
    await sweep.stop();
  });

  it('frees nothing a member took over between two sweeps, nor a lease whose owner is live again', async () => {
    const t = await setUp();
    await t.member('amf-a', 'serving');
    await t.member('amf-b', 'serving');
    const a = t.leasesOf('amf-a');
    const moved = await a.lease('ipv4', POOL);
    const back = await a.lease('ipv4', POOL);
    assert.ok(moved.ok && back.ok);
    await t.member('amf-a', 'gone');
    const sweep = t.sweeper();
    assert.equal(await sweep.sweep(), 0); // both noted
    // B takes a UE over: its record is B's first, then B holds the session's address.
    await t.ue('001010000000001', 'amf-b', moved.address);
    assert.equal(await t.leasesOf('amf-b').hold('ipv4', POOL, moved.address), true);
    t.clock.advance(1); // a: back, its lease running again
    await t.member('amf-a', 'serving');
    assert.equal(await sweep.sweep(), 0);
    assert.deepEqual(await t.held(), ['10.45.0.1 amf-b', '10.45.0.2 amf-a']);
    await sweep.stop();
  });

  it('frees its own previous run’s leases no record names, never this run’s', async () => {
    const t = await setUp();
    await t.member('amf-c', 'serving');
    const previous = t.leasesOf('amf-c');
    const named = await previous.lease('ipv4', POOL); // .1: its UE may come back to it
    const orphan = await previous.lease('ipv4', POOL); // .2: nothing names it
    assert.ok(named.ok && orphan.ok);
    await t.ue('001010000000001', 'amf-c', named.address);
    t.clock.advance(1_000); // the restart: the same name, live throughout
    const sweep = t.sweeper();
    const current = await t.leasesOf('amf-c').lease('ipv4', POOL); // .3: this run's, not yet in a record
    assert.ok(current.ok);
    assert.equal(await sweep.sweep(), 0);
    assert.equal(await sweep.sweep(), 1);
    assert.equal(await sweep.sweep(), 0);
    assert.deepEqual(await t.held(), ['10.45.0.1 amf-c', '10.45.0.3 amf-c']);
    await sweep.stop();
  });

  it('looks at one bounded batch a sweep and comes round to every stranded lease', async () => {
    const t = await setUp();
    await t.member('amf-a', 'serving');
    const a = t.leasesOf('amf-a');
    for (let i = 0; i < 5; i++) assert.ok((await a.lease('ipv4', POOL)).ok);
    await t.member('amf-a', 'gone');
    const limits: number[] = [];
    const counting: StrandedLeases = {
      list: (after, limit, self) => (limits.push(limit), t.stranded.list(after, limit, self)),
      free: (lease, self) => t.stranded.free(lease, self),
    };
    const sweep = t.sweeper(counting, 2);
    const freed: number[] = [];
    for (let i = 0; i < 6; i++) freed.push(await sweep.sweep());
    assert.deepEqual(freed, [0, 2, 0, 2, 0, 1]);
    assert.ok(limits.every((limit) => limit === 2));
    assert.deepEqual(await t.held(), []);
    await sweep.stop();
  });

  it('sweeps every interval on the injected timers until stopped', async () => {
    const t = await setUp();
    await t.member('amf-a', 'serving');
    assert.ok((await t.leasesOf('amf-a').lease('ipv4', POOL)).ok);
    await t.member('amf-a', 'gone');
    const calls: string[] = [];
    const counting: StrandedLeases = {
      list: (after, limit, self) => (calls.push('list'), t.stranded.list(after, limit, self)),
      free: (lease, self) => (calls.push('free'), t.stranded.free(lease, self)),
    };
    const sweep = t.sweeper(counting);
    t.clock.advance(59_999);
    assert.deepEqual(calls, []);
    t.clock.advance(1);
    await sweep.sweep(); // waits for the timer's sweep, then sweeps once more: the lease is freed
    assert.deepEqual(calls, ['list', 'list', 'free']);
    await sweep.stop();
    t.clock.advance(120_000);
    assert.deepEqual(calls, ['list', 'list', 'free']);
  });
});

describe(`The core's stranded leases (${dialect})`, () => {
  it('are swept only where an AMF set may run (PostgreSQL)', async () => {
    const app = await createTestApp();
    try {
      assert.equal(app.core.ports.strandedLeases !== undefined, onPostgres);
    } finally {
      await app.close();
    }
  });
});
