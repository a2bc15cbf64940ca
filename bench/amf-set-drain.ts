// Drain of an AMF set member with 1,000 devices (issue 33's goal: 0 failed procedures; docs/amf-set.md,
// "Draining"). Two member processes on one PostgreSQL database (test/system/amf-set-harness.ts: the
// production bundle, N2 over SCTP over UDP, a UPF each) and one simulated gNB associated with both. Every
// device registers with amf-a (SUCI); half are then released to CM-IDLE by the gNB, half stay
// CM-CONNECTED. `POST /api/v1/amf-set/drain` on amf-a; while it drains, a quarter of the idle devices
// send a Service Request and `--new` new devices register. Once amf-a has exited and amf-b has adopted
// the UEs of the member gone, every device that has not yet sends a Service Request. Counted as failed:
// any registration or Service Request not accepted, a device that had to register again, be identified
// or authenticated, or whose 5G-GUTI changed; and amf-a's exit status. Needs root (namespaces, TUNs) and a PostgreSQL server (Debian: postgresql).
// Run: npx tsx bench/amf-set-drain.ts [--ues N (1000)] [--new N (100)]
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { continued, continueOnPeer, noteBefore } from '../src/simulator/ue/set-failover.ts';
import { withConcurrency } from '../src/simulator/ue/ue-fleet.ts';
import { UeSessions } from '../src/simulator/ue/ue-sessions.ts';
import { amfSetUnavailable, drain, startAmfSet, until } from '../test/system/amf-set-harness.ts';
import { startSetRan, subscribe } from '../test/system/amf-set-ran.ts';

const { values } = parseArgs({
  options: { ues: { type: 'string', default: '1000' }, new: { type: 'string', default: '100' } },
});
const UES = Number(values.ues);
const NEW = Number(values.new);
const FIRST = 1;

const unavailable = amfSetUnavailable();
if (unavailable !== undefined) {
  process.stderr.write(`cannot run: ${unavailable}\n`);
  process.exit(2);
}

// The service's default heartbeat and lease (5 s, 15 s): on a loaded machine a shorter lease lapses.
const set = await startAmfSet({ tag: 'bd', members: 2, heartbeatSeconds: 5, leaseSeconds: 15 });
const [a, b] = set.members;
assert.ok(a !== undefined && b !== undefined);
const failures: string[] = [];
try {
  let started = performance.now();
  await subscribe(set, FIRST, UES + NEW);
  process.stdout.write(
    `${UES + NEW} subscribers in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  );

  // The first UES devices go to amf-a (the lowest draw picks the first member by capacity), the new
  // ones by capacity among the members that take new devices. No TUN devices: nothing here carries data.
  const ran = await startSetRan(set, {
    count: UES + NEW,
    first: FIRST,
    pick: (draw) => (draw < UES ? 0 : Math.random()),
    tuns: false,
  });
  const { gnb, tally } = ran;
  const ues = ran.ues.slice(0, UES);
  const newcomers = ran.ues.slice(UES);

  started = performance.now();
  // Setup, not measured: on a loaded machine some registrations time out; those register again.
  let pending = ues;
  for (let round = 0; round < 5 && pending.length > 0; round++) {
    const outcomes = await withConcurrency(pending, 20, (ue) => ue.register('suci'));
    const failed = pending.filter((_, i) => outcomes[i]?.outcome !== 'accepted');
    if (failed.length > 0)
      process.stdout.write(
        `setup: ${failed.length} registrations failed (${JSON.stringify(outcomes.find((o) => o.outcome !== 'accepted'))}), again\n`,
      );
    pending = failed;
  }
  assert.equal(pending.length, 0, `${pending.length} devices could not register before the drain`);
  process.stdout.write(
    `${UES} registered with amf-a in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  );
  // Half idle (the gNB releases them, TS 23.502 4.2.6), half connected.
  const idle = ues.filter((_, i) => i % 2 === 0);
  for (const ue of idle) gnb.requestRelease(ue);
  await until('the idle half released', () => idle.every((ue) => !ue.connected));
  const befores = ues.map((ue) => noteBefore(ue, new UeSessions(ue), gnb, tally));
  assert.ok(
    befores.every((x) => x.servedBy === 'amf-a'),
    'every device on amf-a',
  );

  // The drain, and procedures while it runs.
  started = performance.now();
  const answer = await drain(set, a);
  assert.equal(answer.status, 202, answer.text);
  const answeredMs = performance.now() - started;
  const during = idle.filter((_, i) => i % 2 === 0);
  const [served, fresh] = await Promise.all([
    withConcurrency(during, 50, (ue) => ue.serviceRequest('data')),
    withConcurrency(newcomers, 20, (ue) => ue.register('suci')),
  ]);
  served.forEach((outcome, i) => {
    if (outcome.outcome !== 'accepted')
      failures.push(`${during[i]!.imsi}: Service Request during the drain: ${JSON.stringify(outcome)}`);
  });
  fresh.forEach((outcome, i) => {
    if (outcome.outcome !== 'accepted')
      failures.push(`${newcomers[i]!.imsi}: new registration during the drain: ${JSON.stringify(outcome)}`);
  });
  const newOnB = newcomers.filter((ue) => ue.guti?.amfPointer === b.pointer);
  await until(
    'amf-a to exit',
    () => a.child.exitCode !== null,
    () => `\n${a.output().slice(-2000)}`,
    120_000,
  );
  const drainedMs = performance.now() - started;
  if (a.child.exitCode !== 0) failures.push(`amf-a exited with status ${a.child.exitCode}`);
  const released = befores.filter((x, i) => i % 2 === 1 && !x.ue.connected).length;

  // amf-b, the backup of amf-a's GUAMI, adopts the UEs of the member gone (docs/amf-set.md); a Service
  // Request racing that adoption is the failover side's case, so the rest wait for it.
  await until(
    'amf-b to adopt the rest',
    async () => (await set.sql(`select 1 from ue_contexts where owner = 'amf-a'`)).length === 0,
    () => '',
    120_000,
  );
  const adoptedMs = performance.now() - started;
  // Every device not yet continued sends its next NAS message: amf-b serves it.
  const continuations = await continueOnPeer(befores, () => gnb, tally, 50);
  for (const c of continuations)
    if (!continued(c)) failures.push(`${c.imsi}: not continued (${c.outcome.outcome})`);
  const notOnB = continuations.filter((c) => c.servedBy !== 'amf-b').length;
  const left = await set.sql<{ n: string }>(`select count(*) as n from ue_contexts where owner = 'amf-a'`);

  process.stdout.write(
    [
      `drain of amf-a with ${UES} devices (${UES / 2} connected, ${UES / 2} idle): 202 after ${answeredMs.toFixed(0)} ms, ` +
        `exit ${a.child.exitCode} after ${(drainedMs / 1000).toFixed(2)} s`,
      `connected devices released by amf-a: ${released} of ${UES / 2}`,
      `every record amf-b's (its Service Requests and its adoption of the member gone) after ${(adoptedMs / 1000).toFixed(2)} s`,
      `procedures during the drain: ${during.length} Service Requests, ${NEW} new registrations (${newOnB.length} with amf-b)`,
      `devices continued on amf-b (same 5G-GUTI, no Registration, no authentication): ${continuations.length - notOnB} of ${UES}`,
      `UE contexts left naming amf-a: ${left[0]?.n}`,
      `failed procedures: ${failures.length} (Service Requests during the drain ${failures.filter((f) => f.includes('Service Request')).length}, ` +
        `new registrations ${failures.filter((f) => f.includes('new registration')).length}, ` +
        `not continued ${failures.filter((f) => f.includes('not continued')).length})`,
      ...failures.slice(0, 20),
    ].join('\n') + '\n',
  );
  await ran.close();
} finally {
  await set.stop();
}
process.exit(failures.length === 0 ? 0 : 1);
