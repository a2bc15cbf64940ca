import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { createAuthenticationData } from '../../src/storage/network-ports/authentication-data.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { imsi, newSubscriber, TEST_SET_1 } from '../helpers/network.ts';
import { createTestApp, initialize, type TestApp } from '../helpers/test-app.ts';

// SQN generation while another connection (the records writer thread, in the service) holds the write lock.
const dir = mkdtempSync(join(tmpdir(), 'pmn-sqn-lock-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let t: TestApp;
let other: SQLite.Database;
const secretKey = randomBytes(32);
let databases = 0;

beforeEach(async () => {
  const database = join(dir, `core-${++databases}.db`);
  t = await createTestApp({ database, secretKey });
  const token = await initialize(t);
  const created = await t.request({
    method: 'POST',
    url: '/api/v1/subscribers',
    token,
    payload: newSubscriber(1, { sequenceNumber: '000000000001', opc: TEST_SET_1.opc }),
  });
  assert.equal(created.statusCode, 201, created.body);
  other = new SQLite(database);
});
afterEach(async () => {
  other.close();
  await t.close();
});

const storedSqn = () =>
  (
    other.prepare('SELECT sequence_number FROM subscribers WHERE imsi = ?').get(imsi(1)) as {
      sequence_number: string;
    }
  ).sequence_number;

/** Resolves with whether `promise` settled within a few turns of the event loop (which must keep turning). */
async function settlesSoon(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let turn = 0; turn < 20 && !settled; turn += 1) await new Promise((resolve) => setTimeout(resolve, 1));
  return settled;
}

describe('authentication data while the write lock is taken', () => {
  it('waits without blocking the event loop, then generates once the lock is free', async () => {
    other.prepare('BEGIN IMMEDIATE').run();
    const generation = t.core.ports.authenticationData.generateAuthenticationData(imsi(1));
    // 20 timer turns ran meanwhile: the service's thread was not asleep in SQLite's busy handler.
    assert.equal(await settlesSoon(generation), false);
    assert.equal(storedSqn(), '000000000001');
    other.prepare('COMMIT').run();
    const generated = await generation;
    assert.equal(generated?.sqn.toString('hex'), '000000000022');
    assert.equal(storedSqn(), '000000000022');
  });

  it('gives every waiting generation its own SQN, in one commit once the lock is free', async () => {
    other.prepare('BEGIN IMMEDIATE').run();
    const port = t.core.ports.authenticationData;
    const generations = Array.from({ length: 25 }, () => port.generateAuthenticationData(imsi(1)));
    assert.equal(await settlesSoon(Promise.all(generations)), false);
    other.prepare('COMMIT').run();
    const sqns = (await Promise.all(generations)).map((data) => data?.sqn.toString('hex'));
    assert.equal(new Set(sqns).size, 25);
    const highest = sqns.map((sqn) => BigInt(`0x${sqn}`)).reduce((a, b) => (a > b ? a : b));
    assert.equal(BigInt(`0x${storedSqn()}`), highest);
  });

  it('fails after its give-up time, storing nothing, and the next one succeeds once the lock is free', async () => {
    const port = createAuthenticationData({
      db: t.db,
      subscribers: { updateSequenceNumber: () => Promise.resolve(false) },
      secretBox: createSecretBox(secretKey),
      giveUpMs: 20,
    });
    other.prepare('BEGIN IMMEDIATE').run();
    await assert.rejects(port.generateAuthenticationData(imsi(1)), /database is locked/);
    other.prepare('COMMIT').run();
    assert.equal(storedSqn(), '000000000001');
    const generated = await port.generateAuthenticationData(imsi(1));
    assert.equal(generated?.k.toString('hex'), TEST_SET_1.key);
    assert.equal(generated?.sqn.toString('hex'), '000000000022');
  });
});
