import { sql } from 'kysely';
import { nextSqn, SQN_BYTES } from '../../crypto/sequence-number.ts';
import { OverloadedError } from '../../errors.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { AuthenticationDataPort } from '../../network/ports/authentication-data.ts';
import type { SubscribersRepository } from '../../resources/subscribers/subscribers.repository.ts';
import { maybeSqliteFileOf, type Db } from '../database.ts';
import { turnTransactionOf, type TurnWriteOptions } from '../turn-transaction.ts';
import { preparedQuery } from './prepared-query.ts';
import { createTurnBatch } from './turn-batch.ts';

interface StoredCredentials {
  key_sealed: string;
  opc_sealed: string;
  sequence_number: string;
}

/** Runs of a PostgreSQL generation whose row another writer kept changing, before it gives up. */
const CAS_ATTEMPTS = 16;

interface Generated {
  keySealed: string;
  opcSealed: string;
  sqn: Buffer;
}

/**
 * The authentication data port over the subscribers table. Each generation reads SQN_HE, advances it and
 * stores it in a write transaction (BEGIN IMMEDIATE, two prepared statements, COMMIT, with nothing
 * awaited in between): the write lock is taken as it begins, so two generations for one subscriber, or
 * one here and one in another process on the file, run one after the other and never share an SQN; it is
 * committed before the vector leaves, so a restart never reuses it. K and OPc are opened after the
 * commit, outside the lock. A resynchronisation (rare) stores SQN_MS through the repository.
 *
 * On SQLite the generations asked for in one turn of the event loop share the database's turn
 * transaction (turn-transaction.ts) with the other stores' writes: one commit for a burst of
 * registrations, and while the records writer thread holds the write lock they wait without blocking
 * the event loop, and fail after `giveUpMs` (SQLite's busy timeout by default).
 */
export function createAuthenticationData(deps: {
  db: Db;
  subscribers: Pick<SubscribersRepository, 'updateSequenceNumber'>;
  secretBox: SecretBox;
  /** How long a generation waits for the write lock before it fails (SQLite; milliseconds). */
  giveUpMs?: number;
}): AuthenticationDataPort {
  const { db, subscribers, secretBox } = deps;
  const turn = maybeSqliteFileOf(db) ? turnTransactionOf(db) : undefined;
  // The read and the SQN it stores are one write: no other writer comes between them, and a failing
  // UPDATE is undone alone, so the write needs no savepoint.
  const generation: TurnWriteOptions = {
    statements: 'reads-then-one',
    notWritten: 'no authentication vector generated',
    ...(deps.giveUpMs === undefined ? {} : { giveUpMs: deps.giveUpMs }),
  };
  const findCredentials = preparedQuery(db, ['imsi'], ({ imsi }: { imsi: string }) =>
    db
      .selectFrom('subscribers')
      .select(['key_sealed', 'opc_sealed', 'sequence_number'])
      .where('imsi', '=', imsi),
  );
  const storeSequenceNumber = preparedQuery(
    db,
    ['imsi', 'sequenceNumber'],
    ({ imsi, sequenceNumber }: { imsi: string; sequenceNumber: string }) =>
      db.updateTable('subscribers').set({ sequence_number: sequenceNumber }).where('imsi', '=', imsi),
  );

  /** The next SQN of a subscriber's stored credentials (TS 33.102 C.3.2), or why there is none. */
  function next(sealed: StoredCredentials | undefined) {
    if (sealed === undefined) return undefined;
    let sqn: Buffer;
    try {
      sqn = nextSqn(Buffer.from(sealed.sequence_number, 'hex'));
    } catch (error) {
      // A stored SQN that cannot advance fails this subscriber's generation, not the group's.
      return error as Error;
    }
    return { keySealed: sealed.key_sealed, opcSealed: sealed.opc_sealed, sqn };
  }

  function advance(imsi: string): Generated | Error | undefined {
    const generated = next(findCredentials.all({ imsi })[0]);
    if (generated && !(generated instanceof Error))
      storeSequenceNumber.run({ imsi, sequenceNumber: generated.sqn.toString('hex') });
    return generated;
  }

  /**
   * PostgreSQL: the group's rows read in one statement, each next SQN computed here, and all stored in a
   * second statement that writes a row only if its SQN is still the one read (compare-and-set): a
   * statement's WHERE is checked again on the newest row once another writer's lock is gone, so two
   * connections or processes never both advance from one SQN. The requests whose row changed meanwhile
   * run again. Two round trips a group and no transaction: a SERIALIZABLE one took four and, with many
   * registrations at once, aborted on false conflicts in the subscribers index and ran again.
   */
  async function advanceOnPostgres(group: readonly string[]): Promise<(Generated | Error | undefined)[]> {
    const results: (Generated | Error | undefined)[] = new Array<undefined>(group.length);
    let open = group.map((_, index) => index);
    for (let attempt = 1; open.length > 0; attempt += 1) {
      if (attempt > CAS_ATTEMPTS)
        throw new OverloadedError('the database is busy (SQN generation); try again', 1);
      const imsis = [...new Set(open.map((index) => group[index]!))];
      const { rows } = await sql<{ imsi: string } & StoredCredentials>`
        select imsi, key_sealed, opc_sealed, sequence_number from subscribers
        where imsi = any(${imsis}::text[])`.execute(db);
      const stored = new Map(rows.map((row) => [row.imsi, row]));
      // A subscriber asked for twice in the group gets two SQNs in a row: the row stores the last.
      const advanced = new Map<string, { read: string; last: StoredCredentials }>();
      const outcomes = new Map<number, Generated | Error | undefined>();
      for (const index of open) {
        const imsi = group[index]!;
        const current = advanced.get(imsi)?.last ?? stored.get(imsi);
        const found = next(current);
        outcomes.set(index, found);
        if (found && !(found instanceof Error) && current !== undefined)
          advanced.set(imsi, {
            read: stored.get(imsi)!.sequence_number,
            last: { ...current, sequence_number: found.sqn.toString('hex') },
          });
      }
      const entries = [...advanced];
      const written =
        entries.length === 0
          ? new Set<string>()
          : new Set(
              (
                await sql<{ imsi: string }>`
                  update subscribers as s set sequence_number = v.next
                  from unnest(${entries.map(([imsi]) => imsi)}::text[],
                              ${entries.map(([, e]) => e.read)}::text[],
                              ${entries.map(([, e]) => e.last.sequence_number)}::text[]) as v(imsi, read, next)
                  where s.imsi = v.imsi and s.sequence_number = v.read
                  returning s.imsi`.execute(db)
              ).rows.map((row) => row.imsi),
            );
      const again: number[] = [];
      for (const index of open) {
        const imsi = group[index]!;
        if (advanced.has(imsi) && !written.has(imsi)) again.push(index);
        else results[index] = outcomes.get(index);
      }
      open = again;
    }
    return results;
  }

  /** PostgreSQL: the generations asked for in one turn of the event loop, read and stored together. */
  const generateOnPostgres = createTurnBatch(advanceOnPostgres);

  function generate(imsi: string): Promise<Generated | Error | undefined> {
    return turn ? turn(() => advance(imsi), generation) : generateOnPostgres(imsi);
  }

  return {
    async generateAuthenticationData(imsi) {
      const generated = await generate(imsi);
      if (generated === undefined) return undefined;
      if (generated instanceof Error) throw generated;
      return {
        k: Buffer.from(secretBox.open(generated.keySealed), 'hex'),
        opc: Buffer.from(secretBox.open(generated.opcSealed), 'hex'),
        sqn: generated.sqn,
      };
    },

    async resynchronise(imsi, sqnMs) {
      if (sqnMs.length !== SQN_BYTES) throw new RangeError(`SQN_MS is ${SQN_BYTES} bytes`);
      return subscribers.updateSequenceNumber(imsi, sqnMs.toString('hex'));
    },
  };
}
