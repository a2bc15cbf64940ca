import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  apiToken,
  startService,
  stopServices,
  until,
  writeLoad,
  type Service,
} from '../helpers/failover-load.ts';
import { imsi } from '../helpers/network.ts';
import { postgresBinDir } from '../helpers/postgres-cluster.ts';
import { startReplicatedPostgres, type ReplicatedPostgres } from '../helpers/postgres-replication.ts';

const skip = !postgresBinDir() && 'no PostgreSQL server installed (Debian: postgresql)';

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
    await stopServices(services);
    pg?.stop();
    // The services' logs, to read why a run failed: PMN_FAILOVER_LOG=<file>.
    if (process.env.PMN_FAILOVER_LOG)
      writeFileSync(process.env.PMN_FAILOVER_LOG, services.map((service) => service.output()).join('\n'));
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 during the switch, writes again after the promotion, and loses no acknowledged write', async () => {
    const hosts = `127.0.0.1:${pg.primaryPort},127.0.0.1:${pg.standbyPort}`;
    const auth = `${pg.user}:${pg.password}`;
    const readWrite = await startService(
      `postgres://${auth}@${hosts}/core?target_session_attrs=read-write`,
      dir,
      services,
    );
    const token = await apiToken(readWrite.base);
    const anyHost = await startService(`postgres://${auth}@${hosts}/core`, dir, services);
    const pids = services.map((service) => service.child.pid);

    const loads = [writeLoad(readWrite.base, token, 1), writeLoad(anyHost.base, token, 1_000_000)];
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
    assert.deepEqual(
      loads.flatMap((load) => load.unexpected()),
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
