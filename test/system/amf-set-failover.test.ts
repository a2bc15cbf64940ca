/**
 * The AMF set's failure cases with real member processes on one real PostgreSQL database (issue 33 item 8;
 * docs/amf-set.md): a simulated gNB associated with every member, UEs registered with a PDU session each
 * and a ping through it. `kill -9` of the member serving them: once the gNB finds the association lost,
 * each UE's next NAS message (a Service Request) reaches the backup member, which continues it with the
 * same 5G-GUTI, no Registration, Identity Request or authentication (counted in the UEs' NAS), the same
 * address, and the ping crosses the new member's UPF. A member paused (SIGSTOP) while its UE is taken
 * over, then resumed (SIGCONT), writes nothing over the new owner's record (fencing). Root and a
 * PostgreSQL server: run by `npm run test:system:postgres`; skipped on SQLite, where one process runs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runSimulator } from '../../src/simulator/cli.ts';
import {
  continuationLine,
  continued,
  continueOnPeer,
  noteBefore,
  type UeBefore,
} from '../../src/simulator/ue/set-failover.ts';
import { K, OPC } from '../e2e/registration-service.ts';
import { onPostgres } from '../helpers/postgres-test-database.ts';
import { amfSetUnavailable, DN, GNB_ADDRESS, startAmfSet, until, type AmfSet } from './amf-set-harness.ts';
import { imsiOf, startSetRan, subscribe, type SetRan } from './amf-set-ran.ts';
import { run } from './session-traffic-harness.ts';

const skip = !onPostgres
  ? 'the AMF set shares a PostgreSQL database (npm run test:system:postgres)'
  : amfSetUnavailable();

/** Selection draws: 0 picks the first member by relative capacity, 0.99 the last. */
const FIRST = 0;
const LAST = 0.99;

/** The owner of each UE's context in the shared store, by IMSI. */
async function owners(set: AmfSet, imsis: string[]): Promise<Record<string, string>> {
  const rows = await set.sql<{ supi: string; owner: string }>('select supi, owner from ue_contexts');
  return Object.fromEntries(
    imsis.map((imsi) => [imsi, rows.find((row) => row.supi.endsWith(imsi))?.owner ?? 'none']),
  );
}

/** Each UE continued (one line each in the failure message), served by `expected[i]`. */
function assertContinued(
  lines: string[],
  ok: boolean[],
  servedBy: (string | undefined)[],
  expected: string[],
) {
  assert.deepEqual(
    ok,
    expected.map(() => true),
    lines.join('\n'),
  );
  assert.deepEqual(servedBy, expected, lines.join('\n'));
}

async function pings(ran: SetRan): Promise<boolean[]> {
  return Promise.all(ran.ues.map((ue) => ran.ping(ue)));
}

/** Kills member 0 and continues every UE after the gNB found it lost; what became of them. */
async function killFirst(set: AmfSet, ran: SetRan, befores: UeBefore[]) {
  const [first, second] = set.members;
  assert.ok(first !== undefined && second !== undefined);
  const killed = Date.now();
  first.child.kill('SIGKILL');
  await first.exited();
  await ran.lost(0, killed);
  // Its addresses pass to the set once its lease has run out (docs/amf-set.md, "Address leases").
  await set.waitStates(second, { [first.name]: 'gone' });
  const continuations = await continueOnPeer(befores, () => ran.gnb, ran.tally, 10);
  await ran.settled();
  return continuations;
}

describe(
  'an AMF set of two member processes: kill -9 of the member serving UEs',
  { skip, timeout: 120_000 },
  () => {
    let set: AmfSet;
    let ran: SetRan;
    const imsis = [0, 1, 2].map((i) => imsiOf(1, i));

    before(async () => {
      set = await startAmfSet({ tag: 'k2', members: 2 });
      await subscribe(set, 1, 3);
      // Two UEs on amf-a, one on amf-b.
      ran = await startSetRan(set, { count: 3, first: 1, pick: (i) => (i < 2 ? FIRST : LAST) });
      await ran.attach();
    });
    after(async () => {
      await ran?.close();
      await set?.stop();
    });

    it('continues them on the peer: same 5G-GUTI, no Registration or authentication, same address, traffic', async () => {
      assert.deepEqual(await pings(ran), [true, true, true]);
      const befores = ran.ues.map((ue) => noteBefore(ue, ran.sessions.get(ue)!, ran.gnb, ran.tally));
      assert.deepEqual(
        befores.map((b) => b.servedBy),
        ['amf-a', 'amf-a', 'amf-b'],
      );
      assert.deepEqual(
        await owners(set, imsis),
        Object.fromEntries(imsis.map((imsi, i) => [imsi, i < 2 ? 'amf-a' : 'amf-b'])),
      );

      const continuations = await killFirst(set, ran, befores);
      assertContinued(
        continuations.map(continuationLine),
        continuations.map(continued),
        continuations.map((c) => c.servedBy),
        ['amf-b', 'amf-b', 'amf-b'],
      );
      assert.deepEqual(await pings(ran), [true, true, true]);
      assert.deepEqual(await owners(set, imsis), Object.fromEntries(imsis.map((imsi) => [imsi, 'amf-b'])));
    });
  },
);

describe(
  "an AMF set of two member processes: kill -9, the UEs back before the dead member's lease runs out",
  { skip, timeout: 120_000 },
  () => {
    let set: AmfSet;
    let ran: SetRan;
    const imsis = [0, 1].map((i) => imsiOf(31, i));

    before(async () => {
      // A lease far longer than the gNB's loss detection: amf-a is still live in the set when its UEs'
      // Service Requests reach amf-b (docs/amf-set.md, "Address hand-over").
      set = await startAmfSet({ tag: 'kl', members: 2, leaseSeconds: 60 });
      await subscribe(set, 31, 2);
      ran = await startSetRan(set, { count: 2, first: 31, pick: () => FIRST });
      await ran.attach();
    });
    after(async () => {
      await ran?.close();
      await set?.stop();
    });

    it('continues them on the peer with their sessions and addresses, without waiting for the lease', async () => {
      assert.deepEqual(await pings(ran), [true, true]);
      const befores = ran.ues.map((ue) => noteBefore(ue, ran.sessions.get(ue)!, ran.gnb, ran.tally));
      assert.deepEqual(
        befores.map((b) => b.servedBy),
        ['amf-a', 'amf-a'],
      );
      const [first, second] = set.members;
      assert.ok(first !== undefined && second !== undefined);
      const killed = Date.now();
      first.child.kill('SIGKILL');
      await first.exited();
      await ran.lost(0, killed);
      const continuations = await continueOnPeer(befores, () => ran.gnb, ran.tally, 10);
      await ran.settled();
      assertContinued(
        continuations.map(continuationLine),
        continuations.map(continued),
        continuations.map((c) => c.servedBy),
        ['amf-b', 'amf-b'],
      );
      assert.deepEqual(await pings(ran), [true, true]);
      assert.deepEqual(await owners(set, imsis), Object.fromEntries(imsis.map((imsi) => [imsi, 'amf-b'])));
      const leases = await set.sql<{ owner: string }>('select owner from address_leases');
      assert.ok(leases.length >= 2, 'a lease for each session');
      assert.deepEqual(
        [...new Set(leases.map((l) => l.owner))],
        ['amf-b'],
        "the addresses' leases moved with the records",
      );
      assert.notEqual((await set.states(second))[first.name], 'gone', "all of it within amf-a's lease");
    });
  },
);

describe('an AMF set of three member processes: kill -9 of one', { skip, timeout: 120_000 }, () => {
  let set: AmfSet;
  let ran: SetRan;

  before(async () => {
    set = await startAmfSet({ tag: 'k3', members: 3 });
    await subscribe(set, 11, 2);
    // One UE on amf-a, one on amf-c.
    ran = await startSetRan(set, { count: 2, first: 11, pick: (i) => (i === 0 ? FIRST : LAST) });
    await ran.attach();
  });
  after(async () => {
    await ran?.close();
    await set?.stop();
  });

  it("sends the dead member's UE to its backup (the next member by AMF Pointer) and leaves the others", async () => {
    assert.deepEqual(await pings(ran), [true, true]);
    const befores = ran.ues.map((ue) => noteBefore(ue, ran.sessions.get(ue)!, ran.gnb, ran.tally));
    assert.deepEqual(
      befores.map((b) => b.servedBy),
      ['amf-a', 'amf-c'],
    );
    const continuations = await killFirst(set, ran, befores);
    // amf-b, the backup, adopted amf-a's UE and goes on announcing amf-a's GUAMI as its own second one
    // (the peers name it as the backup): the radio sends the UE there. amf-c's stays.
    assertContinued(
      continuations.map(continuationLine),
      continuations.map(continued),
      continuations.map((c) => c.servedBy),
      ['amf-b', 'amf-c'],
    );
    assert.deepEqual(await pings(ran), [true, true]);
  });
});

describe(
  'an AMF set member paused (SIGSTOP) while its UE is taken over, then resumed',
  { skip, timeout: 120_000 },
  () => {
    let set: AmfSet;
    let ran: SetRan;
    const imsi = imsiOf(21, 0);

    before(async () => {
      // amf-a gives an idle UE up soon (mobile reachable 3 s, then implicit deregistration after 1 s):
      // where its timers run before it finds its lease gone, it deregisters the UE it still holds, a
      // write the store must refuse.
      set = await startAmfSet({
        tag: 'ps',
        members: 2,
        args: (i) =>
          i === 0
            ? ['--amf-mobile-reachable-seconds', '3', '--amf-implicit-deregistration-seconds', '1']
            : [],
      });
      await subscribe(set, 21, 1);
      ran = await startSetRan(set, { count: 1, first: 21, pick: () => FIRST });
      await ran.attach();
    });
    after(async () => {
      await ran?.close();
      await set?.stop();
    });

    it("writes nothing over the new owner: it gives the UE up unwritten or its write is fenced; the record stays the peer's", async () => {
      const [a, b] = set.members;
      const ue = ran.ues[0];
      assert.ok(a !== undefined && b !== undefined && ue !== undefined);
      assert.equal(await ran.ping(ue), true);
      // Idle on amf-a, then amf-a stops at once (its mobile reachable timer runs).
      const released = ue.next((e) => (e.type === 'released' ? true : undefined));
      assert.equal(ran.gnb.requestRelease(ue), true);
      await released;
      const paused = Date.now();
      a.child.kill('SIGSTOP');
      const before = noteBefore(ue, ran.sessions.get(ue)!, ran.gnb, ran.tally);
      assert.equal(before.servedBy, 'amf-a');
      await ran.lost(0, paused);
      await set.waitStates(b, { 'amf-a': 'gone' });
      const [continuation] = await continueOnPeer([before], () => ran.gnb, ran.tally, 1);
      assert.ok(
        continuation !== undefined && continued(continuation),
        continuation && continuationLine(continuation),
      );
      assert.equal(continuation.servedBy, 'amf-b');
      await ran.settled();
      assert.equal(await ran.ping(ue), true);
      // Owner and epoch: amf-b's later writes of the UE (its procedures' ends) keep both.
      const ownership = () =>
        set.sql<{ owner: string; epoch: string; record: string }>(
          'select owner, epoch::text, record::text from ue_contexts where supi like $1',
          `%${imsi}`,
        );
      const taken = await ownership();
      assert.equal(taken[0]?.owner, 'amf-b');

      a.child.kill('SIGCONT');
      // Resumed past its lease, amf-a gives the UE up without a write: it stops serving and drops its UE
      // contexts ("Losing the database"), or, where its timers run first, its deregistration of the UE is
      // refused by the store (fenced: counted, and logged with the SUPI).
      const gaveUp = new RegExp(`UE contexts dropped|"supi":"${imsi}".*UE context write refused`);
      await until(
        'amf-a to give the UE up',
        () => gaveUp.test(a.output()),
        () => `\n${a.output()}`,
      );
      if (/UE context write refused/.test(a.output())) {
        const fenced = await set.metric(a, 'pmn_ue_context_write_failures_total{reason="fenced"}');
        assert.ok(
          fenced.some((line) => Number(line.split(' ').at(-1)) >= 1),
          fenced.join('; '),
        );
      }
      // The record is amf-b's (same owner and epoch), with the session's address; the UE still there.
      const after = await ownership();
      assert.deepEqual(
        after.map(({ owner, epoch }) => ({ owner, epoch })),
        taken.map(({ owner, epoch }) => ({ owner, epoch })),
      );
      assert.match(
        after[0]?.record ?? '',
        new RegExp(before.addresses.get(1)?.replaceAll('.', '\\.') ?? '-'),
      );
      assert.equal(ue.connected, true);
      assert.equal(await ran.ping(ue), true);
    });
  },
);

describe('npm run sim -- ue --amf A --amf B --scenario failover', { skip, timeout: 120_000 }, () => {
  let set: AmfSet;
  const prefix = `pmnscu${process.pid % 100000}x`;
  const namespaces = [1, 2].map((i) => `${prefix}${i}`);
  const lines: string[] = [];
  let stop: () => void = () => undefined;
  let exit: Promise<number> | undefined;

  before(async () => {
    set = await startAmfSet({ tag: 'sc', members: 2 });
    await subscribe(set, 31, 2);
    for (const name of namespaces) {
      await run('ip', ['netns', 'add', name]);
      await run('ip', ['-n', name, 'link', 'set', 'lo', 'up']);
    }
  });
  after(async () => {
    stop();
    await exit?.catch(() => undefined);
    await set?.stop();
    for (const name of namespaces) await run('ip', ['netns', 'del', name]).catch(() => undefined);
  });

  it('says per UE: continued on the peer, same 5G-GUTI, no Registration or authentication, session kept, traffic', async () => {
    const amf = (i: number) => `${set.members[i]?.n2Address ?? ''}:${set.n2Port}`;
    exit = runSimulator(
      [
        'ue',
        ...['--amf', amf(0), '--amf', amf(1), '--udp-port', String(set.udpPort), '--local', GNB_ADDRESS],
        ...['--ues', '2', '--imsi', imsiOf(31, 0), '--key', K, '--opc', OPC],
        ...['--session', 'IPv4', '--dnn', 'internet', '--n3', GNB_ADDRESS, '--tun-netns', prefix],
        ...['--scenario', 'failover', '--ping', DN, '--resume-after', '3000'],
        ...['--sctp-heartbeat', '200', '--sctp-rto-max', '400', '--sctp-max-retrans', '2'],
      ],
      (line) => lines.push(line),
      new Promise<void>((resolve) => (stop = resolve)),
    );
    let exited: number | undefined;
    void exit.then((status) => (exited = status));
    const waitFor = (pattern: RegExp) =>
      until(
        `a line ${pattern}`,
        () => exited !== undefined || lines.some((line) => pattern.test(line)),
        () => `\n${lines.join('\n')}`,
      );
    await waitFor(/^failover: waiting for an association to be lost/);
    assert.equal(exited, undefined, lines.join('\n'));
    // The member serving the first UE (its 5G-GUTI's AMF Pointer is the member's index + 1) dies.
    const pointer = Number(/pointer (\d+)/.exec(lines.find((l) => l.includes('registered via')) ?? '')?.[1]);
    const victim = set.members[pointer - 1];
    assert.ok(victim !== undefined, lines.join('\n'));
    victim.child.kill('SIGKILL');
    await waitFor(/^failover: \d+ of 2 UEs continued/);
    const imsi = imsiOf(31, 0);
    const peer = set.members.find((m) => m !== victim)?.name ?? '';
    assert.ok(
      lines.some((line) =>
        new RegExp(
          `^imsi-${imsi}: continued on ${peer} \\(was ${victim.name}\\), same 5G-GUTI, no Registration, no authentication, session 1 10\\.45\\.\\d+\\.\\d+ kept, traffic again$`,
        ).test(line),
      ),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((l) =>
        /^failover: 2 of 2 UEs continued with no new Registration or authentication \(\d on another AMF, 2 with traffic\) in \d+ ms$/.test(
          l,
        ),
      ),
      lines.join('\n'),
    );
    stop();
    assert.equal(await exit, 0, lines.join('\n'));
  });
});
