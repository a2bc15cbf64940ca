/**
 * Planned removal of an AMF set member with real member processes on one real PostgreSQL database (issue
 * 33 item 4; docs/amf-set.md, "Draining"): UEs registered with a PDU session each on member amf-a, still
 * CM-CONNECTED. `POST /api/v1/amf-set/drain` on amf-a: its gNB hears AMF Status Indication, amf-a
 * releases the connected UEs and exits with status 0 once none is connected; each UE's next Service
 * Request reaches amf-b, which continues it (same 5G-GUTI, no Registration or authentication, same
 * address, traffic); no UE context is left naming amf-a. (New UEs during a drain: test/network/amf/
 * amf-set-drain.test.ts and bench/amf-set-drain.ts.)
 * Root and a PostgreSQL server: run by `npm run test:system:postgres`; skipped on SQLite.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  continuationLine,
  continued,
  continueOnPeer,
  noteBefore,
} from '../../src/simulator/ue/set-failover.ts';
import { onPostgres } from '../helpers/postgres-test-database.ts';
import { amfSetUnavailable, drain, startAmfSet, until, type AmfSet } from './amf-set-harness.ts';
import { imsiOf, startSetRan, subscribe, type SetRan } from './amf-set-ran.ts';

const skip = !onPostgres
  ? 'the AMF set shares a PostgreSQL database (npm run test:system:postgres)'
  : amfSetUnavailable();

describe(
  'an AMF set of two member processes: drain of the member serving UEs',
  { skip, timeout: 120_000 },
  () => {
    let set: AmfSet;
    let ran: SetRan;
    const imsis = [0, 1, 2].map((i) => imsiOf(31, i));

    before(async () => {
      set = await startAmfSet({ tag: 'd2', members: 2 });
      await subscribe(set, 31, 4);
      // Every UE on amf-a (the first draw picks the first member by capacity).
      ran = await startSetRan(set, { count: 3, first: 31, pick: () => 0 });
      await ran.attach();
    });
    after(async () => {
      await ran?.close();
      await set?.stop();
    });

    it('hands every UE to amf-b with no failed procedure and exits 0, leaving no context of its own', async () => {
      const [a, b] = set.members;
      assert.ok(a !== undefined && b !== undefined);
      const befores = ran.ues.map((ue) => noteBefore(ue, ran.sessions.get(ue)!, ran.gnb, ran.tally));
      assert.deepEqual(
        befores.map((x) => x.servedBy),
        ['amf-a', 'amf-a', 'amf-a'],
      );
      assert.ok(
        ran.ues.every((ue) => ue.connected),
        'connected when the drain starts',
      );

      const answer = await drain(set, a);
      assert.equal(answer.status, 202, answer.text);
      assert.deepEqual((answer.body as { result: unknown }).result, {
        name: 'amf-a',
        state: 'draining',
        backup_amf_name: 'amf-b',
      });
      // Its gNB was told its GUAMI is unavailable; amf-a released its UEs and left on its own.
      await until(
        'amf-a to exit',
        () => a.child.exitCode !== null,
        () => `\n${a.output()}`,
      );
      assert.equal(a.child.exitCode, 0, a.output());
      assert.match(a.output(), /drained: no UE connected/);
      assert.match(a.output(), /AMF Status Indication sent to 1 radios/);
      assert.ok(
        ran.ues.every((ue) => !ue.connected),
        'released to CM-IDLE',
      );
      await set.waitStates(b, { [a.name]: 'gone' });
      // The records stay: amf-b, the backup of amf-a's GUAMI, adopts the UEs of the member gone
      // (docs/amf-set.md); their Service Requests follow the adoption (one racing it is the failover
      // side's case, not the drain's).
      await until('amf-b to adopt the UEs', async () => {
        const stored = await set.sql<{ owner: string }>('select owner from ue_contexts');
        return stored.length === 3 && stored.every((r) => r.owner === 'amf-b');
      });

      const continuations = await continueOnPeer(befores, () => ran.gnb, ran.tally, 3);
      await ran.settled();
      const lines = continuations.map(continuationLine);
      assert.deepEqual(continuations.map(continued), [true, true, true], lines.join('\n'));
      assert.deepEqual(
        continuations.map((c) => c.servedBy),
        ['amf-b', 'amf-b', 'amf-b'],
        lines.join('\n'),
      );
      assert.deepEqual(await Promise.all(ran.ues.map((ue) => ran.ping(ue))), [true, true, true]);
      // The gNB sent them to the backup amf-b named for amf-a's GUAMI.
      assert.deepEqual(
        ran.events.filter((e) => e.type === 'selected').slice(-3),
        [0, 1, 2].map(() => ({ type: 'selected', index: 1, reason: 'backup' })),
      );

      // None left behind: every UE context is amf-b's.
      const owners = await set.sql<{ supi: string; owner: string }>('select supi, owner from ue_contexts');
      assert.deepEqual(
        imsis.map((imsi) => owners.find((r) => r.supi.endsWith(imsi))?.owner),
        ['amf-b', 'amf-b', 'amf-b'],
      );
    });
  },
);
