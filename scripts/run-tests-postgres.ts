/**
 * Runs test files on PostgreSQL: starts one throwaway cluster (test/helpers/postgres-cluster.ts), then
 * scripts/run-tests.ts with PMN_TEST_DB=postgres and PMN_TEST_POSTGRES_URL naming it, so every test app
 * opens a fresh database copied from one migrated template (test/helpers/postgres-test-database.ts).
 *
 *   node --import tsx scripts/run-tests-postgres.ts [run-tests options] [file or directory ...]
 *   node --import tsx scripts/run-tests-postgres.ts --system
 *
 * Without paths it runs the suites that pass on PostgreSQL (POSTGRES_SUITES). `--system` runs the
 * system and process tests instead, one file at a time as `npm run test:system` does, except the web UI's
 * browser tests (ONCE_ON_SQLITE). The cluster is stopped and removed when the run ends.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startPostgresCluster } from '../test/helpers/postgres-cluster.ts';

/**
 * The storage tests, the HTTP API suites and the HTTP service under hostile input, the core's, the
 * end-to-end suite (the simulator against the real service; about 80 s on two cores), and the files of
 * the network and unit suites that open the service's storage (docs/postgresql.md, "Tests").
 */
const POSTGRES_SUITES = ['test/storage', 'test/http', 'test/hardening', 'test/core', 'test/e2e'];

/**
 * What marks a test file as one that opens the service's storage: a test app, the helper that gives a
 * fresh database of the dialect the run asks for, or the AMF set's members built on it.
 */
const OPENS_STORAGE = /\bcreateTestApp\b|postgres-test-database\.ts|amf-set-members\.ts/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((file) => join(dir, file))
    .filter((file) => file.endsWith('.test.ts'))
    .sort();
}

/** The network and unit test files that open the storage: the rest of those suites never touch a database. */
function storageTestFiles(): string[] {
  return ['test/network', 'test/unit']
    .flatMap(testFiles)
    .filter((file) => OPENS_STORAGE.test(readFileSync(file, 'utf8')));
}

/**
 * The web UI's browser tests run on SQLite only (`npm run test:system`): the pages are the same whatever
 * the database, the API they call runs on PostgreSQL in this runner's HTTP suites, and they are half of a
 * system suite's wall time (docs/testing.md, "Timings").
 */
const ONCE_ON_SQLITE = /^test\/system\/web-ui-[^/]*\.test\.ts$/;

/** The system and process test files, as `npm run test:system` finds them, less ONCE_ON_SQLITE. */
function systemTestFiles(): string[] {
  return ['test/process', 'test/system'].flatMap(testFiles).filter((file) => !ONCE_ON_SQLITE.test(file));
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
  return [
    '--import',
    'tsx',
    'scripts/run-tests.ts',
    ...(given ? args : [...args, ...POSTGRES_SUITES, ...storageTestFiles()]),
  ];
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
