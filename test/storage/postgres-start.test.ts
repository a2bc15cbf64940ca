import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { postgresBinDir } from '../helpers/postgres-cluster.ts';
import { freshPostgresDatabase, onPostgres } from '../helpers/postgres-test-database.ts';
import { spawnService } from '../helpers/service-process.ts';

// On PostgreSQL runs only (npm run test:postgres, or PMN_TEST_DB=postgres for one file), which start a cluster.
const skip = !onPostgres
  ? 'a PostgreSQL test: npm run test:postgres'
  : !postgresBinDir() && !process.env.PMN_TEST_POSTGRES_URL && 'no PostgreSQL server installed';

const dir = mkdtempSync(join(tmpdir(), 'pmn-pg-start-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The exit code and output of the service; `whenReady` runs once it has started (then it is stopped). */
function run(args: string[], whenReady?: (output: string) => Promise<void>) {
  const child = spawnService(['--listen', '127.0.0.1:0', '--n2-transport', 'off', ...args]);
  let stdout = '';
  let stderr = '';
  let acted = false;
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (whenReady && !acted && stdout.includes('database ready at')) {
      acted = true;
      void whenReady(stdout).finally(() => child.kill('SIGTERM'));
    }
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stdout, stderr })),
  );
}

describe('npm start on PostgreSQL', { skip }, () => {
  it('serves the API on a PostgreSQL URL and never logs the password', async () => {
    const url = await freshPostgresDatabase();
    const password = /:([^:@/]+)@/.exec(url)?.[1] ?? '';
    let status = 0;
    const { code, stdout } = await run(
      ['--db', url, '--secret-key-file', join(dir, 'serving.key')],
      async (output) => {
        const address = /listening on (http:\/\/[^"\s]+)/.exec(output)?.[1];
        status = (await fetch(`${address}/api/v1/status`)).status;
      },
    );
    assert.equal(code, 0);
    assert.equal(status, 200);
    assert.match(stdout, /database ready at postgres:\/\/pmn:\*\*\*@127\.0\.0\.1:\d+\/\w+/);
    assert.ok(password !== '' && !stdout.includes(password), 'the password is in the log');
  });

  it('fails the start with one line naming the server and the cause, and leaves no key file', async () => {
    const url = (await freshPostgresDatabase()).replace(/:([^:@/]+)@/, ':wrong-password@');
    const key = join(dir, 'first', 'core.key');
    const { code, stderr } = await run(['--db', url, '--secret-key-file', key]);
    assert.equal(code, 1);
    assert.match(
      stderr,
      /^cannot start: cannot open the PostgreSQL database postgres:\/\/pmn:\*\*\*@127\.0\.0\.1:\d+\/\w+: password authentication failed for user "pmn" \(SQLSTATE 28P01\)\n$/,
    );
    assert.ok(!existsSync(key), 'the key file created at this start is left behind');
  });
});
