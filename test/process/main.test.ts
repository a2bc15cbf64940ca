import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, it } from 'node:test';
import { spawnService } from '../helpers/service-process.ts';

describe('the process (npm start)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pmn-main-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('creates and migrates the database, logs where it listens first, and exits 0 on SIGTERM', async () => {
    const db = join(dir, 'nested', 'core.db');
    const child = spawnService(['--listen', '127.0.0.1:0', '--db', db]);
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
    const child = spawnService(['--listen', 'nowhere']);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 1);
    assert.match(stderr, /configuration error: flags: listen must be HOST:PORT/);
  });

  it('says in one line that the address is in use, and leaves no database, key file or directory', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    const db = join(dir, 'first', 'data', 'core.db');
    const child = spawnService(['--listen', `127.0.0.1:${port}`, '--db', db]);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    taken.close();
    assert.equal(code, 1);
    assert.equal(
      stderr,
      `cannot start: 127.0.0.1:${port} is already in use (choose another address with --listen)\n`,
    );
    assert.ok(!existsSync(join(dir, 'first')), `left behind: ${readdirSync(dir).join(', ')}`);
  });
});
