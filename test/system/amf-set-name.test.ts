/**
 * One AMF Name, one process (docs/amf-set.md, "One AMF Name, one process"), with real member processes on
 * one real PostgreSQL database: a second process started under the AMF Name of a member that runs (an
 * operator's mistake) is refused with one line and takes nothing: the member keeps serving, its UE's
 * record, its session's address lease and its traffic. Once that member is killed, a process under its
 * name waits for the dead run's lease and then serves.
 * Root and a PostgreSQL server: run by `npm run test:system:postgres`; skipped on SQLite.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { onPostgres } from '../helpers/postgres-test-database.ts';
import { amfSetUnavailable, startAmfSet, until, type AmfSet } from './amf-set-harness.ts';
import { imsiOf, startSetRan, subscribe, type SetRan } from './amf-set-ran.ts';

const skip = !onPostgres
  ? 'the AMF set shares a PostgreSQL database (npm run test:system:postgres)'
  : amfSetUnavailable();

interface Held {
  owner: string;
  epoch: number;
  leases: string;
}

/** The UE's record's owner and epoch, and the owners of the address leases made for it. */
async function held(set: AmfSet, imsi: string): Promise<Held> {
  const [record] = await set.sql<{ owner: string; epoch: number }>(
    'SELECT owner, epoch FROM ue_contexts WHERE supi LIKE $1',
    `%${imsi}`,
  );
  const leases = await set.sql<{ address: string; owner: string }>(
    'SELECT address, owner FROM address_leases WHERE supi LIKE $1 ORDER BY address',
    `%${imsi}`,
  );
  return {
    owner: record?.owner ?? '',
    epoch: Number(record?.epoch),
    leases: leases.map((l) => `${l.address}:${l.owner}`).join(','),
  };
}

describe('an AMF set: a second process under a running member’s AMF Name', { skip, timeout: 120_000 }, () => {
  let set: AmfSet;
  let ran: SetRan;
  const imsi = imsiOf(61, 0);

  before(async () => {
    // A lease longer than a process takes to start: the restart after the kill finds it still running.
    set = await startAmfSet({ tag: 'nm', members: 1, leaseSeconds: 10 });
    await subscribe(set, 61, 1);
    ran = await startSetRan(set, { count: 1, first: 61, pick: () => 0 });
    await ran.attach();
  });
  after(async () => {
    await ran?.close();
    await set?.stop();
  });

  it('is refused with one line and takes nothing; after a kill -9 one waits for the lease and serves', async () => {
    const [a] = set.members;
    const [ue] = ran.ues;
    assert.ok(a !== undefined && ue !== undefined);
    assert.equal(await ran.ping(ue), true);
    const before = await held(set, imsi);
    assert.equal(before.owner, 'amf-a');
    assert.match(before.leases, /^10\.45\.\d+\.\d+:amf-a$/);

    const twin = await set.twin(a);
    await twin.exited();
    assert.equal(twin.child.exitCode, 1, twin.output());
    const refusals = twin.output().match(/cannot start: AMF name amf-a is in use.*$/gm) ?? [];
    assert.equal(refusals.length, 1, twin.output());
    assert.match(twin.output(), /waiting for its lease to run out/);

    // amf-a serves on, stopped never; its UE's record, lease and traffic are as they were.
    await set.waitStates(a, { 'amf-a': 'serving' });
    assert.doesNotMatch(a.output(), /no longer a member|stops serving/);
    assert.deepEqual(await held(set, imsi), before);
    assert.equal(await ran.ping(ue), true);

    // amf-a dies: a process under its name waits for the dead run's lease, then serves as amf-a.
    a.child.kill('SIGKILL');
    await a.exited();
    const restarted = await set.twin(a);
    assert.equal(restarted.child.exitCode, null, restarted.output());
    assert.match(restarted.output(), /waiting for its lease to run out/);
    await until(
      'the restarted amf-a to serve',
      async () => (await set.states(restarted))['amf-a'] === 'serving',
      () => `\n${restarted.output()}`,
    );
  });
});
