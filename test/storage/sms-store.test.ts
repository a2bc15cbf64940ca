import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import type { NewSms } from '../../src/network/ports/sms-store.ts';
import { decodeDcs } from '../../src/network/sms/index.ts';
import { createSmsStore } from '../../src/storage/network-ports/sms-store.ts';
import { openStorage } from '../../src/storage/storage.ts';
import { created, imsi, newProfile, newSubscriber } from '../helpers/network.ts';
import { createTestApp, initialize, result, type TestApp } from '../helpers/test-app.ts';

const message = (overrides: Partial<NewSms> = {}): NewSms => ({
  createdAt: 1_000,
  originatorImsi: imsi(1),
  originator: { typeOfNumber: 1, value: '15550000001' },
  destinationImsi: imsi(2),
  destinationMsisdn: '15550000002',
  messageReference: 7,
  protocolIdentifier: 0,
  dataCodingScheme: 0,
  userData: { headerIndicator: false, length: 5, bytes: Uint8Array.of(0xe8, 0x32, 0x9b, 0xfd, 0x06) },
  statusReportRequested: true,
  validUntil: 10_000,
  ...overrides,
});

describe('the SMSF ports served by storage (migration 0016)', () => {
  let t: TestApp;
  let token: string;
  beforeEach(async () => {
    t = await createTestApp();
    token = await initialize(t);
  });
  afterEach(() => t.close());

  it('reads the queue after an id, and only its class 0 messages when asked (TS 23.038 4)', async () => {
    const store = t.core.ports.smsStore;
    // 0x10 class 0, 0x11 class 1, 0x50 automatic deletion class 0, 0x30 compressed class 0, 0xf0 and
    // 0xf4 group 1111 class 0, 0xf2 group 1111 class 2, 0x00 and 0x03 no class (bit 4 clear), 0xc0 a
    // message waiting indication (no class).
    const codings = [0x10, 0x11, 0x50, 0x30, 0xf0, 0xf4, 0xf2, 0x00, 0x03, 0xc0];
    const ids: number[] = [];
    for (const dataCodingScheme of codings) ids.push((await store.save(message({ dataCodingScheme }))).id);
    const class0 = await store.queuedFor(imsi(2), 10, { class0: true });
    assert.deepEqual(
      class0.map((m) => m.dataCodingScheme),
      [0x10, 0x50, 0x30, 0xf0, 0xf4],
    );
    assert.deepEqual(
      (await store.queuedFor(imsi(2), 3, { after: ids[3]! })).map((m) => m.id),
      ids.slice(4, 7),
    );
    assert.deepEqual(
      (await store.queuedFor(imsi(2), 10, { after: ids[4]!, class0: true })).map((m) => m.id),
      [ids[5]],
    );
  });

  it('picks class 0 messages as dcs.ts reads TP-DCS, for every octet', async () => {
    const store = t.core.ports.smsStore;
    for (let dataCodingScheme = 0; dataCodingScheme < 256; dataCodingScheme++)
      await store.save(message({ dataCodingScheme }));
    assert.deepEqual(
      (await store.queuedFor(imsi(2), 256, { class0: true })).map((m) => m.dataCodingScheme),
      Array.from({ length: 256 }, (_, octet) => octet).filter((octet) => decodeDcs(octet).messageClass === 0),
    );
  });

  it('stores a message as queued and reads it back field for field; only a queued message settles', async () => {
    const store = t.core.ports.smsStore;
    const saved = await store.save(message());
    assert.deepEqual(await store.queuedFor(imsi(2), 10), [saved]);
    assert.deepEqual({ ...saved, id: 0 }, { ...message(), id: 0, status: 'queued', attempts: 0 });
    const later = await store.save(message({ createdAt: 2_000, messageReference: 8 }));
    assert.deepEqual(
      (await store.queuedFor(imsi(2), 10)).map((m) => m.id),
      [saved.id, later.id],
      'oldest first',
    );
    assert.deepEqual(await store.queuedFor(imsi(1), 10), []);

    await store.attempted(saved.id);
    await store.settle(saved.id, { status: 'failed', cause: 'Unknown subscriber (30)', at: 3_000 });
    await store.settle(saved.id, { status: 'delivered', at: 4_000 });
    assert.deepEqual(
      (await store.queuedFor(imsi(2), 10)).map((m) => m.id),
      [later.id],
    );
    const row = await t.db
      .selectFrom('sms_messages')
      .select(['status', 'cause', 'attempts', 'updated_at'])
      .where('id', '=', saved.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, {
      status: 'failed',
      cause: 'Unknown subscriber (30)',
      attempts: 1,
      updated_at: 3_000,
    });
    // An outcome that ends an attempt counts it in the same write.
    await store.settle(later.id, { status: 'delivered', at: 5_000, attempt: true });
    const delivered = await t.db
      .selectFrom('sms_messages')
      .select(['status', 'attempts'])
      .where('id', '=', later.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(delivered, { status: 'delivered', attempts: 1 });
  });

  it("reads a subscriber's MSISDN and its profile's SMS setting (on unless the profile says otherwise)", async () => {
    const subscribers = t.core.ports.smsSubscribers;
    await created(t, token, '/api/v1/subscribers', newSubscriber(1, { msisdn: '15550000001' }));
    assert.deepEqual(await subscribers.smsSubscription(imsi(1)), { msisdn: '15550000001', smsAllowed: true });
    assert.equal(await subscribers.imsiOf('15550000001'), imsi(1));
    assert.equal(await subscribers.imsiOf('15550000009'), undefined);
    assert.equal(await subscribers.smsSubscription(imsi(9)), undefined);

    await created(t, token, '/api/v1/profiles', newProfile('quiet', { 'sms-allowed': false }));
    const read = await t.request({ method: 'GET', url: '/api/v1/profiles/quiet', token });
    assert.equal(result<Record<string, unknown>>(read)['sms-allowed'], false);
    await created(t, token, '/api/v1/subscribers', newSubscriber(2, { profile_name: 'quiet' }));
    assert.deepEqual(await subscribers.smsSubscription(imsi(2)), { smsAllowed: false });
  });
});

describe('the message store on a database file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pmn-sms-store-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('waits, without blocking the event loop, while another connection holds the write lock', async () => {
    const path = join(dir, 'locked.db');
    const storage = await openStorage({ path, poolSize: 1 });
    // The records writer thread's connection, as another connection to the same file.
    const other = new SQLite(path);
    try {
      const store = createSmsStore({ db: storage.db });
      other.exec('begin immediate');
      let stored = false;
      const saving = store.save(message()).then((saved) => {
        stored = true;
        return saved;
      });
      // Turns of the event loop go by (SQLite's busy handler would sleep in this thread instead).
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
      assert.equal(stored, false, 'not stored while the lock is held');
      other.exec('commit');
      const saved = await saving;
      assert.deepEqual(await store.queuedFor(imsi(2), 10), [saved]);
    } finally {
      other.close();
      await storage.close();
    }
  });

  it('keeps a stored message across a restart', async () => {
    const path = join(dir, 'core.db');
    const first = await openStorage({ path, poolSize: 1 });
    const saved = await createSmsStore({ db: first.db }).save(message());
    await first.close();
    const second = await openStorage({ path, poolSize: 1 });
    try {
      assert.deepEqual(await createSmsStore({ db: second.db }).queuedFor(imsi(2), 10), [saved]);
    } finally {
      await second.close();
    }
  });
});
