import assert from 'node:assert/strict';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { imsi, newSubscriber } from '../helpers/network.ts';
import { postgresBinDir } from '../helpers/postgres-cluster.ts';
import { startReplicatedPostgres, type ReplicatedPostgres } from '../helpers/postgres-replication.ts';
import { spawnService } from '../helpers/service-process.ts';

const skip = !postgresBinDir() && 'no PostgreSQL server installed (Debian: postgresql)';

/** A request that has not answered after this long hangs (the connect timeout is 10 s). */
const HANG_MS = 15_000;
/** Concurrent writers creating subscribers, per service. */
const WRITERS = 3;

interface Outcome {
  imsi: string;
  status: number | 'hang' | 'network error';
  body: string;
  /** When the request was sent and answered (ms since the epoch). */
  sent: number;
  answered: number;
}

/** Polls `done` every 50 ms; fails after 30 s, with `detail()` in the message. */
async function until(what: string, done: () => boolean, detail = () => ''): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!done()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}${detail()}`);
    await sleep(50);
  }
}

/** A service process and its log. */
interface Service {
  child: ChildProcessWithoutNullStreams;
  base: string;
  output: () => string;
}

/** The writes one service answered, made by `WRITERS` writers creating subscribers from `first` on. */
function writeLoad(base: string, token: string, first: number) {
  const outcomes: Outcome[] = [];
  let next = first;
  let running = true;
  async function write(): Promise<Outcome> {
    const subscriber = newSubscriber(next++);
    const sent = Date.now();
    try {
      const response = await fetch(`${base}/api/v1/subscribers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(subscriber),
        signal: AbortSignal.timeout(HANG_MS),
      });
      const body = await response.text();
      return { imsi: subscriber.imsi as string, status: response.status, body, sent, answered: Date.now() };
    } catch (error) {
      const status = (error as Error).name === 'TimeoutError' ? 'hang' : 'network error';
      return { imsi: subscriber.imsi as string, status, body: String(error), sent, answered: Date.now() };
    }
  }
  const writers = Array.from({ length: WRITERS }, async () => {
    while (running) {
      const outcome = await write();
      outcomes.push(outcome);
      // A refused write is tried again with the next IMSI after a pause, as a client told Retry-After would.
      if (outcome.status !== 201) await sleep(50);
    }
  });
  return {
    outcomes,
    /** Answers of `status` to writes sent after `since`. */
    answered: (status: number, since = 0) => outcomes.filter((o) => o.sent > since && o.status === status),
    /** The answers so far, for a failure's message: status and body, grouped, and the slowest. */
    summary: () => {
      const seen = new Map<string, number>();
      for (const o of outcomes) {
        const key = `${o.status} ${o.body.replace(/\d{15}/g, 'IMSI').slice(0, 160)}`;
        seen.set(key, (seen.get(key) ?? 0) + 1);
      }
      const slowest = Math.max(0, ...outcomes.map((o) => o.answered - o.sent));
      return `; answers: ${JSON.stringify([...seen])}, slowest ${slowest} ms`;
    },
    async stop(): Promise<void> {
      running = false;
      await Promise.all(writers);
    },
  };
}

/**
 * PMN Core (the production bundle, as `npm start` runs it) on a primary and a synchronous streaming
 * standby, under a load of subscriber creations; the primary is stopped as by a crash and the standby
 * promoted. Each service must answer the writes meanwhile with 503 {"error"} (never a 500, never a
 * hang), serve writes again on the promoted server by itself, and have lost no write it acknowledged.
 * One names both hosts with target_session_attrs=read-write, as docs/operations.md says to; the other
 * without, so it reaches the standby while it is one.
 */
// A bound on the whole test, so that a hang fails it and the after hook still stops the servers.
describe('a PostgreSQL failover under write load', { skip, timeout: 180_000 }, () => {
  let pg: ReplicatedPostgres;
  const services: Service[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'pmn-failover-'));

  before(async () => {
    pg = await startReplicatedPostgres(['core']);
  });
  after(async () => {
    for (const { child } of services) {
      if (child.exitCode !== null) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    pg?.stop();
    // The services' logs, to read why a run failed: PMN_FAILOVER_LOG=<file>.
    if (process.env.PMN_FAILOVER_LOG)
      writeFileSync(process.env.PMN_FAILOVER_LOG, services.map((service) => service.output()).join('\n'));
    rmSync(dir, { recursive: true, force: true });
  });

  async function startService(url: string): Promise<Service> {
    const child = spawnService([
      '--listen',
      '127.0.0.1:0',
      '--n2-transport',
      'off',
      '--db',
      url,
      '--secret-key-file',
      join(dir, 'core.key'),
    ]);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const service = { child, base: '', output: () => output };
    services.push(service);
    await until(
      'the service to listen',
      () => /listening on http:\/\/\S+/.test(output),
      () => output,
    );
    service.base = /listening on (http:\/\/[^"\s]+)/.exec(output)?.[1] as string;
    return service;
  }

  it('answers 503 during the switch, writes again after the promotion, and loses no acknowledged write', async () => {
    const hosts = `127.0.0.1:${pg.primaryPort},127.0.0.1:${pg.standbyPort}`;
    const auth = `${pg.user}:${pg.password}`;
    const readWrite = await startService(`postgres://${auth}@${hosts}/core?target_session_attrs=read-write`);
    const init = await fetch(`${readWrite.base}/api/v1/init`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: 'admin-password' }),
    });
    assert.equal(init.status, 201, await init.clone().text());
    const token = ((await init.json()) as { result: { token: string } }).result.token;
    // An API token: verified once, then from memory, so the writes test the database and not the login.
    const created = await fetch(`${readWrite.base}/api/v1/users/me/api-tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'load' }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    const apiToken = ((await created.json()) as { result: { token: string } }).result.token;
    const anyHost = await startService(`postgres://${auth}@${hosts}/core`);
    const pids = services.map((service) => service.child.pid);

    const loads = [writeLoad(readWrite.base, apiToken, 1), writeLoad(anyHost.base, apiToken, 1_000_000)];
    const summary = () => loads.map((load) => load.summary()).join(' / ');
    try {
      await until('writes acknowledged before the stop', () =>
        loads.every((l) => l.answered(201).length >= 20),
      );
      const crashed = Date.now();
      pg.crashPrimary();
      await until(
        'writes refused while no server accepts them',
        () => loads.every((load) => load.answered(503, crashed).length > 0),
        summary,
      );
      pg.promoteStandby();
      const promoted = Date.now();
      await until(
        'writes acknowledged by the promoted server',
        () => loads.every((load) => load.answered(201, promoted).length >= 10),
        summary,
      );
    } finally {
      await Promise.all(loads.map((load) => load.stop()));
    }

    // Every answer was an acknowledgement or a 503 with an error: no 500, no hang, no dropped connection.
    const others = loads
      .flatMap((load) => load.outcomes)
      .filter((o) => o.status !== 201 && !(o.status === 503 && /^\{"error":"[^"]+"\}$/.test(o.body)));
    assert.deepEqual(
      others.map((o) => `${o.status} ${o.body}`),
      [],
    );
    // Not restarted: the same processes served before and after.
    assert.deepEqual(
      services.map((service) => [service.child.exitCode, service.child.pid]),
      pids.map((pid) => [null, pid]),
    );

    // Every acknowledged write is on the promoted server (the old primary is gone).
    const stored = new Set(
      pg.psql(pg.standbyPort, 'core', 'SELECT imsi FROM subscribers').trim().split('\n'),
    );
    const lost = loads
      .flatMap((load) => load.answered(201))
      .map((o) => o.imsi)
      .filter((acked) => !stored.has(acked));
    assert.deepEqual(lost, []);
    assert.ok(stored.has(imsi(1)) && stored.has(imsi(1_000_000)));
  });
});
