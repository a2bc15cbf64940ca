import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, it } from 'node:test';

describe('the process (npm start)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pmn-main-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('creates and migrates the database, logs where it listens first, and exits 0 on SIGTERM', async () => {
    const db = join(dir, 'nested', 'core.db');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/main.ts', '--listen', '127.0.0.1:0', '--db', db],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const lines = createInterface({ input: child.stdout });
    const first = await new Promise<string>((resolve) => lines.once('line', resolve));
    const entry = JSON.parse(first) as { msg: string; level: number };
    const match = /^PMN Core listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(entry.msg);
    assert.ok(match, entry.msg);
    assert.ok(existsSync(db));

    const status = await fetch(`${match[1]}/api/v1/status`);
    assert.equal(status.status, 200);
    assert.deepEqual(((await status.json()) as { result: { ready: boolean } }).result.ready, true);

    // A request in flight when SIGTERM arrives still gets its answer: a two-second CPU profile is surely
    // running after half a second, and stopping the service ends it early with what it has sampled.
    const init = await fetch(`${match[1]}/api/v1/init`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: 'password1' }),
    });
    const { token } = ((await init.json()) as { result: { token: string } }).result;
    const profile = fetch(`${match[1]}/api/v1/pprof/profile?seconds=2`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    child.kill('SIGTERM');
    const answered = await profile;
    assert.equal(answered.status, 200);
    assert.ok((await answered.arrayBuffer()).byteLength > 0);
    assert.equal(await exited, 0);
  });

  it('refuses a bad setting with a message and exit code 1', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--listen', 'nowhere'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 1);
    assert.match(stderr, /configuration error: flags: listen must be HOST:PORT/);
  });
});
