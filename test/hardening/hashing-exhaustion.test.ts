import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OverloadedError, RateLimitedError } from '../../src/errors.ts';
import { createAuthenticator, type ApiTokenOwner } from '../../src/identity/authenticator.ts';
import { formatApiToken } from '../../src/identity/api-token-format.ts';
import { createHashingQueue } from '../../src/identity/hashing-queue.ts';
import { ROLE } from '../../src/identity/roles.ts';
import type { SecretHasher } from '../../src/identity/secret-hasher.ts';
import { ADMIN, createTestApp, initialize, manualClock, type TestApp } from '../helpers/test-app.ts';

// Issue 12, finding 5: every login attempt and every wrong API-token secret cost a memory-hard hash, and
// the login limit counted per (address, e-mail), so a spray of new e-mails or wrong secrets was never
// limited and starved real logins.

/** Work that finishes when the test says so, to hold workers of the queue busy. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, work: () => opened };
}

describe('the hashing queue', () => {
  it('runs `concurrency` at once and refuses beyond its waiting bounds, without running the work', async () => {
    const queue = createHashingQueue({
      concurrency: 2,
      concurrencyPerKey: 2,
      maxWaiting: 3,
      maxWaitingPerKey: 2,
    });
    const g = gate();
    let started = 0;
    const work = () => {
      started += 1;
      return g.work();
    };
    const accepted = [queue.run('a', work), queue.run('b', work), queue.run('a', work), queue.run('a', work)];
    assert.deepEqual(queue.load(), { running: 2, waiting: 2 });
    await assert.rejects(queue.run('a', work), RateLimitedError, 'a third waiting attempt of one key');
    accepted.push(queue.run('c', work));
    await assert.rejects(queue.run('d', work), OverloadedError, 'the whole waiting list is full');
    assert.deepEqual(queue.load(), { running: 2, waiting: 3 });
    assert.equal(started, 2, 'refused work never ran');
    g.open();
    await Promise.all(accepted);
    assert.equal(started, 5);
    assert.deepEqual(queue.load(), { running: 0, waiting: 0 });
  });

  it('serves waiting keys round-robin, so one key with many waiting delays another by one turn', async () => {
    const queue = createHashingQueue({
      concurrency: 1,
      concurrencyPerKey: 1,
      maxWaiting: 16,
      maxWaitingPerKey: 8,
    });
    const g = gate();
    const order: string[] = [];
    const job = (name: string) => async () => {
      order.push(name);
      await g.work();
    };
    const all = [queue.run('spray', job('s0'))];
    for (let i = 1; i <= 5; i++) all.push(queue.run('spray', job(`s${i}`)));
    all.push(queue.run('real', job('real')));
    g.open();
    await Promise.all(all);
    assert.deepEqual(order.slice(0, 3), ['s0', 's1', 'real']);
  });

  it('keeps a worker free of a key that has `concurrencyPerKey` running, for the next key', async () => {
    const queue = createHashingQueue({
      concurrency: 2,
      concurrencyPerKey: 1,
      maxWaiting: 8,
      maxWaitingPerKey: 4,
    });
    const spray = gate();
    const sprayed = [1, 2, 3].map(() => queue.run('spray', spray.work));
    assert.deepEqual(queue.load(), { running: 1, waiting: 2 });
    assert.equal(await queue.run('real', async () => 'ran beside the spray'), 'ran beside the spray');
    spray.open();
    await Promise.all(sprayed);
    assert.deepEqual(queue.load(), { running: 0, waiting: 0 });
  });

  it('takes and serves first trusted work while the waiting list of the others is full', async () => {
    const queue = createHashingQueue({
      concurrency: 1,
      concurrencyPerKey: 1,
      maxWaiting: 2,
      maxWaitingPerKey: 1,
    });
    const g = gate();
    const order: string[] = [];
    const job = (name: string) => async () => {
      order.push(name);
      await g.work();
    };
    const all = ['a', 'b', 'c'].map((name) => queue.run(name, job(name)));
    await assert.rejects(queue.run('d', job('d')), OverloadedError, 'the others are full');
    all.push(queue.run('known', job('known'), { trusted: true }));
    g.open();
    await Promise.all(all);
    assert.deepEqual(order, ['a', 'known', 'b', 'c']);
  });

  it('frees a worker when the work fails', async () => {
    const queue = createHashingQueue({
      concurrency: 1,
      concurrencyPerKey: 1,
      maxWaiting: 1,
      maxWaitingPerKey: 1,
    });
    await assert.rejects(
      queue.run('a', () => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal(await queue.run('a', async () => 'ran'), 'ran');
    assert.deepEqual(queue.load(), { running: 0, waiting: 0 });
  });
});

describe('API tokens with a wrong secret', () => {
  const publicId = '0123456789abcdef';
  const right = 'a'.repeat(64);
  const wrong = (i: number) => i.toString(16).padStart(64, 'b');
  const owner: ApiTokenOwner = {
    userId: 1,
    email: ADMIN.email,
    roleId: ROLE.admin,
    secretHash: 'stored',
    expiresAt: null,
  };

  function setup(limits = { ttlMs: 10_000, capacity: 100 }) {
    const clock = manualClock();
    let hashes = 0;
    const hasher: SecretHasher = {
      hash: () => Promise.reject(new Error('not used')),
      async verify(secret) {
        hashes += 1;
        return secret === right;
      },
    };
    const authenticator = createAuthenticator({
      loginSessions: { findById: async () => undefined },
      apiTokens: { findOwner: async (id) => (/^[0-9a-f]{16}$/.test(id) ? owner : undefined) },
      signingSecret: { current: () => Buffer.alloc(32) },
      clock,
      hasher,
      failedTokenIds: limits,
    });
    const check = (id: string, secret: string) =>
      authenticator.authenticate(`Bearer ${formatApiToken(id, secret)}`);
    return { clock, authenticator, check, hashes: () => hashes };
  }

  it('answers further secrets for a failed id without hashing until the hold ends', async () => {
    const { clock, check, hashes } = setup();
    assert.equal(await check(publicId, wrong(0)), undefined);
    assert.equal(hashes(), 1);
    for (let i = 1; i <= 100; i++) assert.equal(await check(publicId, wrong(i)), undefined);
    assert.equal(hashes(), 1, 'a spray of 100 wrong secrets cost no further hash');
    clock.advance(10_000);
    assert.equal((await check(publicId, right))?.email, ADMIN.email, 'the right secret works after the hold');
    assert.equal(hashes(), 2);
  });

  it('keeps answering a verified secret from memory while its id is held for wrong ones', async () => {
    const { check, hashes } = setup();
    assert.ok(await check(publicId, right));
    assert.equal(await check(publicId, wrong(1)), undefined);
    assert.equal(await check(publicId, wrong(2)), undefined);
    assert.ok(await check(publicId, right));
    assert.equal(hashes(), 2, 'one hash for the right secret, one for the first wrong one');
  });

  it('checks concurrent requests with one secret once', async () => {
    const { check, hashes } = setup();
    const results = await Promise.all(Array.from({ length: 8 }, () => check(publicId, right)));
    assert.ok(results.every((principal) => principal?.userId === 1));
    assert.equal(hashes(), 1);
  });

  it('hashes once for concurrent requests with different secrets for one id', async () => {
    const { check, hashes } = setup();
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => check(publicId, wrong(i))));
    assert.ok(results.every((principal) => principal === undefined));
    assert.equal(hashes(), 1);
  });

  it('answers wrong secrets sent while the right one is checked without hashing them', async () => {
    const { check, hashes } = setup();
    const [first, ...others] = await Promise.all([
      check(publicId, right),
      ...[1, 2, 3].map((i) => check(publicId, wrong(i))),
    ]);
    assert.equal(first?.userId, 1);
    assert.ok(others.every((principal) => principal === undefined));
    assert.equal(hashes(), 1);
  });

  it('remembers at most `capacity` failed ids, dropping the oldest', async () => {
    const { check, hashes } = setup({ ttlMs: 60_000, capacity: 3 });
    const ids = ['0000000000000001', '0000000000000002', '0000000000000003', '0000000000000004'];
    for (const id of ids) await check(id, wrong(0));
    assert.equal(hashes(), 4);
    for (const id of ids.slice(1)) await check(id, wrong(1));
    assert.equal(hashes(), 4, 'the three most recent failures are held');
    await check(ids[0] ?? '', wrong(1));
    assert.equal(hashes(), 5, 'the oldest was dropped and costs one hash again');
  });
});

describe('login attempts from one address across e-mails', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ loginRateLimit: 2 });
    await initialize(t);
  });
  after(() => t.close());

  const login = (email: string, password: string, remoteAddress: string) =>
    t.request({ method: 'POST', url: '/api/v1/auth/login', payload: { email, password }, remoteAddress });

  it('are limited to three e-mails worth of attempts a minute, answered 429 {"error"} with Retry-After', async () => {
    for (let i = 0; i < 6; i++) {
      assert.equal((await login(`spray-${i}@example.com`, 'guess', '10.0.0.7')).statusCode, 401);
    }
    const limited = await login('spray-6@example.com', 'guess', '10.0.0.7');
    assert.equal(limited.statusCode, 429, limited.body);
    assert.deepEqual(Object.keys(limited.json<object>()), ['error']);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    const real = await login(ADMIN.email, ADMIN.password, '10.0.0.7');
    assert.equal(real.statusCode, 429, 'the address is limited, whatever the e-mail');
    assert.equal(
      (await login(ADMIN.email, ADMIN.password, '10.0.0.8')).statusCode,
      200,
      'other addresses are not',
    );
  });

  it('does not count successful logins against the address', async () => {
    for (let i = 0; i < 2; i++)
      assert.equal((await login(ADMIN.email, ADMIN.password, '10.0.2.1')).statusCode, 200);
    for (let i = 0; i < 6; i++) {
      assert.equal(
        (await login(`typo-${i}@example.com`, 'guess', '10.0.2.1')).statusCode,
        401,
        `failure ${i}`,
      );
    }
    assert.equal((await login('typo-6@example.com', 'guess', '10.0.2.1')).statusCode, 429);
  });
});
