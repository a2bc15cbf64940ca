/**
 * Runs test files on PostgreSQL: starts one throwaway cluster (test/helpers/postgres-cluster.ts), then
 * scripts/run-tests.ts with PMN_TEST_DB=postgres and PMN_TEST_POSTGRES_URL naming it, so every test app
 * opens a fresh database copied from one migrated template (test/helpers/postgres-test-database.ts).
 *
 *   node --import tsx scripts/run-tests-postgres.ts [run-tests options] [file or directory ...]
 *   node --import tsx scripts/run-tests-postgres.ts --system
 *
 * Without paths it runs the suites that pass on PostgreSQL (POSTGRES_SUITES). `--system` runs the
 * system and process tests instead, one file at a time as `npm run test:system` does. The cluster is
 * stopped and removed when the run ends.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startPostgresCluster } from '../test/helpers/postgres-cluster.ts';

/**
 * The storage tests, the HTTP API suites, the core's and the end-to-end suite (the simulator against the
 * real service; about 80 s on two cores) (docs/postgresql.md, "Tests").
 */
const POSTGRES_SUITES = ['test/storage', 'test/http', 'test/core', 'test/e2e'];

/** The system and process test files, as `npm run test:system` finds them. */
function systemTestFiles(): string[] {
  return ['test/process', 'test/system']
    .flatMap((dir) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((file) => join(dir, file)))
    .filter((file) => file.endsWith('.test.ts'))
    .sort();
}

function command(args: string[]): string[] {
  if (args.includes('--system'))
    return [
      '--import',
      'tsx',
      '--test',
      '--test-reporter=spec',
      '--test-concurrency=1',
      ...systemTestFiles(),
    ];
  const valued = new Set(['--concurrency', '--groups']);
  const given = args.some((arg, i) => !arg.startsWith('--') && !valued.has(args[i - 1] ?? ''));
  return ['--import', 'tsx', 'scripts/run-tests.ts', ...(given ? args : [...args, ...POSTGRES_SUITES])];
}

async function main(args: string[]): Promise<number> {
  const cluster = await startPostgresCluster();
  try {
    const child = spawn(process.execPath, command(args), {
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
