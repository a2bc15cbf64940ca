import assert from 'node:assert/strict';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { spawnService } from '../helpers/service-process.ts';

// Issue 28, finding 8: the service once exited without a word. A defect that escapes every handler now
// ends it with one fatal log line saying why, and a non-zero exit code.

/**
 * Preloaded into the service: once it has started (it then listens for SIGTERM), a timer callback throws,
 * or with PMN_TEST_FAILURE=rejection a promise is rejected with nobody awaiting it, as a defect would.
 */
const FAIL_ONCE_STARTED = `
const poll = setInterval(() => {
  if (process.listenerCount('SIGTERM') === 0) return;
  clearInterval(poll);
  if (process.env.PMN_TEST_FAILURE === 'rejection') void Promise.reject(new Error('nobody awaited this'));
  else throw new Error('a defect in a callback');
}, 20);`;

async function failingService(failure: 'exception' | 'rejection') {
  const child = spawnService(['--listen', '127.0.0.1:0', '--db', ':memory:'], {
    nodeFlags: ['--import', `data:text/javascript,${encodeURIComponent(FAIL_ONCE_STARTED)}`],
    env: { ...process.env, PMN_TEST_FAILURE: failure },
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const lines = stdout
    .split('\n')
    .filter(Boolean)
    .map(
      (line) => JSON.parse(line) as { level: number; msg: string; origin?: string; err?: { stack?: string } },
    );
  return { code, fatal: lines.filter((line) => line.level === 60) };
}

describe('a fatal exit', () => {
  it('logs an uncaught exception at fatal level, with its stack, and exits 1', async () => {
    const { code, fatal } = await failingService('exception');
    assert.equal(code, 1);
    assert.equal(fatal.length, 1, JSON.stringify(fatal));
    assert.equal(fatal[0]?.msg, 'exiting on an uncaught exception: a defect in a callback');
    assert.match(fatal[0]?.err?.stack ?? '', /^Error: a defect in a callback\n\s+at /);
  });

  it('logs an unhandled promise rejection the same way', async () => {
    const { code, fatal } = await failingService('rejection');
    assert.equal(code, 1);
    assert.equal(fatal[0]?.msg, 'exiting on an unhandled promise rejection: nobody awaited this');
    assert.equal(fatal[0]?.origin, 'unhandledRejection');
  });

  it('stops on SIGHUP as on SIGTERM, saying so, instead of ending without a word', async () => {
    const child = spawnService(['--listen', '127.0.0.1:0', '--db', ':memory:']);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const lines = createInterface({ input: child.stdout });
    const messages: string[] = [];
    await new Promise<void>((resolve) =>
      lines.on('line', (line) => {
        const { msg } = JSON.parse(line) as { msg: string };
        messages.push(msg);
        if (msg === 'database ready at :memory:') resolve();
      }),
    );
    child.kill('SIGHUP');
    assert.equal(await exited, 0);
    assert.ok(
      messages.includes('stopping: no new connections, finishing requests in flight'),
      messages.join('\n'),
    );
  });
});
