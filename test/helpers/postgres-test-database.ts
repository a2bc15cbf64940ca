import postgres from 'postgres';
import { openStorage } from '../../src/storage/storage.ts';
import { startPostgresCluster } from './postgres-cluster.ts';

/**
 * Fresh PostgreSQL databases for tests (PMN_TEST_DB=postgres): each a copy of one migrated template
 * (`CREATE DATABASE ... TEMPLATE`), as the SQLite tests open a copy of a serialized one. The cluster is
 * PMN_TEST_POSTGRES_URL (a URL of its `postgres` database; scripts/run-tests-postgres.ts starts one for
 * the whole run), else one this process starts and removes at exit, so a test file also runs alone.
 */
const TEMPLATE = 'pmn_template';
/** Serialises template creation and copying across the run's processes (a copy fails while anyone is connected to the template). */
const TEMPLATE_LOCK = 30_0001;

let adminUrl: Promise<string> | undefined;
let created = 0;

function clusterAdminUrl(): Promise<string> {
  adminUrl ??= process.env.PMN_TEST_POSTGRES_URL
    ? Promise.resolve(process.env.PMN_TEST_POSTGRES_URL)
    : startPostgresCluster().then((cluster) => cluster.url('postgres'));
  return adminUrl;
}

/** `url` with its database name replaced by `database`. */
function withDatabase(url: string, database: string): string {
  return url.replace(/\/[^/?]*(\?|$)/, `/${database}$1`);
}

/** The URL of a new, migrated, empty database of its own. */
export async function freshPostgresDatabase(): Promise<string> {
  const url = await clusterAdminUrl();
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await admin`select pg_advisory_lock(${TEMPLATE_LOCK})`;
    try {
      const [exists] = await admin`select 1 from pg_database where datname = ${TEMPLATE}`;
      if (!exists) {
        await admin.unsafe(`create database ${TEMPLATE}`);
        const storage = await openStorage({ path: withDatabase(url, TEMPLATE), poolSize: 1 });
        await storage.close();
      }
      const name = `pmn_test_${process.pid}_${++created}`;
      await admin.unsafe(`create database ${name} template ${TEMPLATE}`);
      return withDatabase(url, name);
    } finally {
      await admin`select pg_advisory_unlock(${TEMPLATE_LOCK})`;
    }
  } finally {
    await admin.end();
  }
}

/** Whether the tests run on PostgreSQL (PMN_TEST_DB=postgres) rather than SQLite. */
export const onPostgres = process.env.PMN_TEST_DB === 'postgres';
