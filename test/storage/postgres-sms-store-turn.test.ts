// The SMS store on PostgreSQL (issue 35): the writes asked for in one turn of the event loop share one
// transaction (storage/turn-transaction.ts, postgresTurnTransactionOf), as on SQLite; a statement that
// fails fails only its own write; each write resolves once committed. A row's `xmin` names the
// transaction that wrote it: one for the whole turn, where each write committing alone gave one each.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { after, before, describe, it } from 'node:test';
import postgres from 'postgres';
import type { NewSms } from '../../src/network/ports/sms-store.ts';
import { createSmsStore } from '../../src/storage/network-ports/sms-store.ts';
import { openStorage, type Storage } from '../../src/storage/storage.ts';
import { postgresBinDir } from '../helpers/postgres-cluster.ts';
import { freshPostgresDatabase, onPostgres } from '../helpers/postgres-test-database.ts';

// On PostgreSQL runs only (npm run test:postgres, or PMN_TEST_DB=postgres for one file), which start a cluster.
const skip = !onPostgres
  ? 'a PostgreSQL test: npm run test:postgres'
  : !postgresBinDir() && !process.env.PMN_TEST_POSTGRES_URL && 'no PostgreSQL server installed';

const RECIPIENT = '001010000000002';

const message = (messageReference: number): NewSms => ({
  createdAt: 1_000,
  originatorImsi: '001010000000001',
  originator: { typeOfNumber: 1, value: '15550000001' },
  destinationImsi: RECIPIENT,
  destinationMsisdn: '15550000002',
  messageReference,
  protocolIdentifier: 0,
  dataCodingScheme: 0,
  userData: { headerIndicator: false, length: 5, bytes: Uint8Array.of(0xe8, 0x32, 0x9b, 0xfd, 0x06) },
  statusReportRequested: false,
  validUntil: 10_000,
});

describe('the SMS store on PostgreSQL writes a turn in one transaction', { skip }, () => {
  let url: string;
  let storage: Storage;
  /** Another connection: what it reads is committed. */
  let other: postgres.Sql;
  before(async () => {
    url = await freshPostgresDatabase();
    storage = await openStorage({ path: url, poolSize: 4 });
    other = postgres(url, { max: 1, onnotice: () => {} });
  });
  after(async () => {
    await other?.end();
    await storage?.close();
  });

  /** The transaction id that wrote each of the rows (their current versions), by message reference. */
  async function writers(references: number[]): Promise<Map<number, string>> {
    const rows = await other<{ message_reference: number; xmin: string }[]>`
      select message_reference, xmin::text as xmin from sms_messages
      where message_reference = any(${references}::int[])`;
    return new Map(rows.map((row) => [row.message_reference, row.xmin]));
  }

  it('commits the inserts, then the outcomes, of one turn once each; every write committed when it resolves', async () => {
    const store = createSmsStore({ db: storage.db });
    const references = [11, 12, 13, 14, 15, 16];
    // Asked for in one turn; each, once resolved, is read by another connection (committed).
    const seen: number[] = [];
    const saved = await Promise.all(
      references.map(async (reference) => {
        const stored = await store.save(message(reference));
        const [row] = await other<
          { status: string }[]
        >`select status from sms_messages where id = ${stored.id}`;
        if (row?.status === 'queued') seen.push(reference);
        return stored;
      }),
    );
    assert.deepEqual(seen.sort(), references);
    const inserted = await writers(references);
    assert.equal(
      new Set(inserted.values()).size,
      1,
      `one transaction wrote them all: ${[...inserted.values()].join(', ')}`,
    );

    await Promise.all(
      saved.map((stored) => store.settle(stored.id, { status: 'delivered', at: 2_000, attempt: true })),
    );
    const settled = await writers(references);
    assert.equal(
      new Set(settled.values()).size,
      1,
      `one transaction settled them all: ${[...settled.values()].join(', ')}`,
    );
    assert.notEqual([...settled.values()][0], [...inserted.values()][0]);
    const rows = await other<{ status: string; attempts: number }[]>`
      select status, attempts from sms_messages where message_reference = any(${references}::int[])`;
    assert.deepEqual(
      rows.map((row) => [row.status, Number(row.attempts)]),
      references.map(() => ['delivered', 1]),
    );
  });

  it('fails only the write whose statement fails; the others of its turn are stored', async () => {
    // A trigger refuses one message (as a constraint might), which aborts the transaction it is in.
    await sql`
      create function refuse_reference_99() returns trigger language plpgsql as $$
      begin
        if new.message_reference = 99 then raise exception 'refused by the test'; end if;
        return new;
      end $$`.execute(storage.db);
    await sql`create trigger refuse_99 before insert on sms_messages
      for each row execute function refuse_reference_99()`.execute(storage.db);
    try {
      const store = createSmsStore({ db: storage.db });
      const references = [21, 22, 99, 23, 24];
      const outcomes = await Promise.allSettled(
        references.map((reference) => store.save(message(reference))),
      );
      assert.deepEqual(
        outcomes.map((outcome) => outcome.status),
        ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
      );
      const refused = outcomes[2] as PromiseRejectedResult;
      assert.match(String(refused.reason), /refused by the test/);
      const stored = await writers(references);
      assert.deepEqual([...stored.keys()].sort(), [21, 22, 23, 24]);
    } finally {
      await sql`drop trigger refuse_99 on sms_messages`.execute(storage.db);
      await sql`drop function refuse_reference_99()`.execute(storage.db);
    }
  });
});
