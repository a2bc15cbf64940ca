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
import { patroniUnavailable, startPatroniCluster, type PatroniCluster } from '../helpers/patroni-cluster.ts';
import { onPostgres } from '../helpers/postgres-test-database.ts';

// The service runs on the Patroni cluster whichever database the run uses: once, in the PostgreSQL run.
const skip = !onPostgres
  ? 'runs in the PostgreSQL system run (npm run test:system:postgres)'
  : patroniUnavailable();

const PASSWORD = 'pmn-patroni-pw';

/**
 * PMN Core (the production bundle) on a Patroni cluster (two nodes, one etcd, synchronous mode) through
 * the multi-host URL with target_session_attrs=read-write, as docs/operations.md deploys it, under a load
 * of subscriber creations: a switchover (`patronictl switchover`), then a failover (the leader's Patroni
 * and PostgreSQL killed with SIGKILL, as a crashed machine dies; Patroni promotes the standby when the
 * leader's lease runs out). The same process must answer every write with 201 or a 503 {"error"} (never
 * a 500, never a hang), write again after each switch by itself, and have lost no write it acknowledged.
 */
describe(
  'PMN Core on a Patroni cluster: a switchover and a failover under write load',
  { skip, timeout: 240_000 },
  () => {
    let cluster: PatroniCluster;
    const services: Service[] = [];
    const dir = mkdtempSync(join(tmpdir(), 'pmn-patroni-service-'));

    before(async () => {
      cluster = await startPatroniCluster();
      cluster.psql('n1', 'postgres', `CREATE ROLE pmn LOGIN PASSWORD '${PASSWORD}'`);
      cluster.psql(
        'n1',
        'postgres',
        "CREATE DATABASE pmn OWNER pmn TEMPLATE template0 LOCALE 'C' ENCODING 'UTF8'",
      );
    });
    after(async () => {
      await stopServices(services);
      // The logs, to read why a run failed: PMN_PATRONI_LOG=<file>.
      if (process.env.PMN_PATRONI_LOG)
        writeFileSync(
          process.env.PMN_PATRONI_LOG,
          services.map((service) => service.output()).join('\n') + (cluster?.logs() ?? ''),
        );
      cluster?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('keeps every acknowledged write and writes again after each switch without a restart', async () => {
      const hosts = cluster.nodes.map((node) => `127.0.0.1:${node.port}`).join(',');
      const service = await startService(
        `postgres://pmn:${PASSWORD}@${hosts}/pmn?target_session_attrs=read-write`,
        dir,
        services,
      );
      const pid = service.child.pid;
      const load = writeLoad(service.base, await apiToken(service.base), 1);
      const detail = () => load.summary() + cluster.logs();
      try {
        await until(
          'writes acknowledged before the switchover',
          () => load.answered(201).length >= 20,
          detail,
        );

        cluster.patronictl(['switchover', '--leader', 'n1', '--candidate', 'n2', '--force']);
        const switched = Date.now();
        await until('writes acknowledged by n2', () => load.answered(201, switched).length >= 20, detail);
        // n1 rejoins as n2's synchronous standby, so the failover below loses nothing acknowledged.
        await cluster.settled('n2');

        const crashed = Date.now();
        cluster.crash('n2');
        await until(
          'writes refused while no server leads',
          () => load.answered(503, crashed).length > 0,
          detail,
        );
        assert.equal(await cluster.leader(), 'n1');
        const promoted = Date.now();
        await until(
          'writes acknowledged by n1 after the failover',
          () => load.answered(201, promoted).length >= 20,
          detail,
          60_000,
        );
      } finally {
        await load.stop();
      }

      assert.deepEqual(load.unexpected(), []);
      assert.deepEqual([service.child.exitCode, service.child.pid], [null, pid], 'not restarted');
      const stored = new Set(cluster.psql('n1', 'pmn', 'SELECT imsi FROM subscribers').trim().split('\n'));
      const lost = load
        .answered(201)
        .map((o) => o.imsi)
        .filter((acked) => !stored.has(acked));
      assert.deepEqual(lost, []);
    });
  },
);
