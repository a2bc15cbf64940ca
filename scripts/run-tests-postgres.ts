/**
 * Runs test files on PostgreSQL: starts one throwaway cluster (test/helpers/postgres-cluster.ts), then
 * scripts/run-tests.ts with PMN_TEST_DB=postgres and PMN_TEST_POSTGRES_URL naming it, so every test app
 * opens a fresh database copied from one migrated template (test/helpers/postgres-test-database.ts).
 *
 *   node --import tsx scripts/run-tests-postgres.ts [run-tests options] [file or directory ...]
 *
 * Without paths it runs the suites that pass on PostgreSQL (POSTGRES_SUITES); docs/postgresql.md says
 * which do not yet, and why. The cluster is stopped and removed when the run ends.
 */
import { spawn } from 'node:child_process';
import { startPostgresCluster } from '../test/helpers/postgres-cluster.ts';

/**
 * The storage tests, the HTTP API suites, the core's and the end-to-end suite (the simulator against the
 * real service; about 80 s on two cores) (docs/postgresql.md, "Tests").
 */
const POSTGRES_SUITES = ['test/storage', 'test/http', 'test/core', 'test/e2e'];

async function main(args: string[]): Promise<number> {
  const cluster = await startPostgresCluster();
  try {
    const valued = new Set(['--concurrency', '--groups']);
    const given = args.some((arg, i) => !arg.startsWith('--') && !valued.has(args[i - 1] ?? ''));
    const paths = given ? args : [...args, ...POSTGRES_SUITES];
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/run-tests.ts', ...paths], {
      stdio: 'inherit',
      env: { ...process.env, PMN_TEST_DB: 'postgres', PMN_TEST_POSTGRES_URL: cluster.url('postgres') },
    });
    return await new Promise<number>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    });
  } finally {
    cluster.stop();
  }
}

process.exitCode = await main(process.argv.slice(2));
