import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { NewSms } from '../../src/network/ports/sms-store.ts';
import { createSmscOutbox, createSmsStore } from '../../src/storage/network-ports/sms-store.ts';
import { openStorage } from '../../src/storage/storage.ts';
import { migrationsFrom, undoMigrationsFrom } from '../helpers/migration-undo.ts';
import { freshPostgresDatabase, onPostgres } from '../helpers/postgres-test-database.ts';

const outside = (overrides: Partial<NewSms> = {}): NewSms => ({
  createdAt: 1_000,
  originatorImsi: '001010000000001',
  originator: { typeOfNumber: 1, value: '15550000001' },
  destinationMsisdn: '4930123456',
  messageReference: 7,
  protocolIdentifier: 0,
  dataCodingScheme: 0,
  userData: { headerIndicator: false, length: 5, bytes: Uint8Array.of(0xe8, 0x32, 0x9b, 0xfd, 0x06) },
  statusReportRequested: false,
  validUntil: 10_000,
  ...overrides,
});

/** Migration 0020 and the SMSC link's view of the message store, on the dialect of the run. */
describe('migration 0020 and the SMSC outbox', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pmn-smsc-storage-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the messages stored before it, ids going on; a message may then have no recipient IMSI', async () => {
    const path = onPostgres ? await freshPostgresDatabase() : join(dir, 'migrate.db');
    const before = await openStorage({ path, poolSize: 1 });
    try {
      for (const statement of await undoMigrationsFrom('0020')) await sql.raw(statement).execute(before.db);
      await createSmsStore({ db: before.db }).save({ ...outside(), destinationImsi: '001010000000002' });
    } finally {
      await before.close();
    }
    const storage = await openStorage({ path, poolSize: 1 });
    try {
      assert.equal(storage.migrationsApplied[0], (await migrationsFrom('0020'))[0]);
      const store = createSmsStore({ db: storage.db });
      const [kept] = await store.queuedFor('001010000000002', 10);
      assert.ok(kept);
      assert.deepEqual(
        { ...kept, id: 0 },
        {
          ...outside(),
          destinationImsi: '001010000000002',
          id: 0,
          status: 'queued',
          attempts: 0,
        },
      );
      const next = await store.save(outside());
      assert.ok(next.id > kept.id, 'ids go on after the rebuilt table');
      assert.equal(next.destinationImsi, undefined);
    } finally {
      await storage.close();
    }
  });

  it('lists messages for outside the network until the SMSC takes them, finds them by its message_id, settles them', async () => {
    const path = onPostgres ? await freshPostgresDatabase() : join(dir, 'outbox.db');
    const storage = await openStorage({ path, poolSize: 1 });
    try {
      const store = createSmsStore({ db: storage.db });
      const outbox = createSmscOutbox({ db: storage.db });
      const first = await store.save(outside());
      const second = await store.save(outside({ createdAt: 2_000 }));
      await store.save({ ...outside(), destinationImsi: '001010000000002' });
      assert.deepEqual(
        (await outbox.awaitingSubmission(10)).map((m) => m.id),
        [first.id, second.id],
        'oldest first, ours left out',
      );
      assert.deepEqual(
        (await outbox.awaitingSubmission(1)).map((m) => m.id),
        [first.id],
      );

      await outbox.submitted(first.id, 'smsc-42');
      assert.deepEqual(
        (await outbox.awaitingSubmission(10)).map((m) => m.id),
        [second.id],
      );
      const found = await outbox.bySmscMessageId('smsc-42');
      assert.equal(found?.id, first.id);
      assert.equal(found?.smscMessageId, 'smsc-42');
      assert.equal(await outbox.bySmscMessageId('smsc-43'), undefined);

      await store.settle(first.id, { status: 'delivered', at: 3_000 });
      assert.equal(
        await outbox.bySmscMessageId('smsc-42'),
        undefined,
        'settled: a second receipt finds nothing',
      );

      // A claim holds the message out of the waiting list until released; a second claim fails.
      assert.equal(await outbox.claim(second.id), true);
      assert.equal(await outbox.claim(second.id), false, 'claimed once only');
      assert.deepEqual(await outbox.awaitingSubmission(10), []);
      assert.equal(await outbox.bySmscMessageId(''), undefined, 'a claim is no message_id');
      await outbox.release(second.id);
      assert.deepEqual(
        (await outbox.awaitingSubmission(10)).map((m) => m.id),
        [second.id],
      );
      assert.equal(await outbox.claim(first.id), false, 'settled: not claimed');
    } finally {
      await storage.close();
    }
  });
});
