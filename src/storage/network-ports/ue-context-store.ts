import { systemClock, type Clock } from '../../clock.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type {
  UeContextRecord,
  UeContextSeen,
  UeContextStore,
  UeContextWrite,
  UeTaken,
} from '../../network/ports/ue-contexts.ts';
import { localChangeNotices, type ChangeNotices } from '../change-notices.ts';
import { sql } from 'kysely';
import { isUniqueViolation } from '../constraint-errors.ts';
import { maybeSqliteFileOf, withConnection, type Db } from '../database.ts';
import type { UeContextsTable } from '../tables/working-state.ts';
import type { Executor } from '../transaction.ts';
import { postgresTurnTransactionOf, turnTransactionOf, type QueryRunner } from '../turn-transaction.ts';
import { preparedQuery } from './prepared-query.ts';

/** One statement of a write and its values; the driver answers with the rows it returned. */
type Step = { run: (executor: QueryRunner | undefined) => Promise<unknown[]> | unknown[] };

/**
 * A write as a sequence of statements (a generator yields each and gets its rows back), so that one
 * body runs synchronously in SQLite's write transaction and awaited in PostgreSQL's.
 */
type Steps<T> = Generator<Step, T, unknown[]>;

/** A row as a type alias (an interface is no `Record<string, unknown>` for the prepared query). */
type Row = { [K in keyof UeContextsTable]: UeContextsTable[K] };

/** The change notice of a take-over, to the other processes on the database (docs/amf-set.md). */
const UE_TAKEN_TOPIC = 'ue-context-taken';

/** A notice's detail as another process sent it, checked before anyone hears it. */
const isUeTaken = (detail: unknown): detail is UeTaken => {
  const d = detail as Partial<UeTaken> | null;
  return (
    typeof d === 'object' &&
    d !== null &&
    typeof d.supi === 'string' &&
    typeof d.owner === 'string' &&
    Number.isSafeInteger(d.epoch)
  );
};

/** What SQL does not see of a record: all but its keys and KAMF, as JSON. */
type Opaque = Omit<UeContextRecord, 'supi' | 'epoch' | 'owner' | 'security'> & {
  security: Omit<NonNullable<UeContextRecord['security']>, 'kamf'> | null;
};

/**
 * The UE context port (the UDSF role, TS 23.501 6.2.15) over `ue_contexts` (migration 0019; docs/amf-set.md),
 * on SQLite and PostgreSQL. Every write checks the fencing epoch in the statement that writes, so a
 * fenced write changes nothing; a write that frees another UE's 5G-TMSI runs in one transaction with
 * it (on PostgreSQL only when the 5G-TMSI is taken, see `write`; SQLite's write lock). KAMF is stored
 * sealed with the service's secret box, never in clear. On SQLite the statements run prepared and
 * synchronously, and the writes of one turn of the event loop share the database's turn transaction
 * (turn-transaction.ts) with the other stores' writes, each in a savepoint of its own: one commit for a
 * burst of registrations, and no wait for the records writer's lock in the event loop's thread. On
 * PostgreSQL a write's first statement goes into the database's turn transaction
 * (`postgresTurnTransactionOf`): the writes of one turn in one round trip and one commit.
 */
export function createUeContextStore(deps: {
  db: Db;
  secretBox: SecretBox;
  /** The time a handed-over address lease is taken at (`address_leases.leased_at`). */
  clock?: Clock;
  /** Tells the other processes on the database of take-overs (PostgreSQL; nobody on SQLite). */
  notices?: ChangeNotices;
}): UeContextStore {
  const { db, secretBox } = deps;
  const clock = deps.clock ?? systemClock;
  const notices = deps.notices ?? localChangeNotices;
  const sqlite = maybeSqliteFileOf(db) !== undefined;
  const turn = sqlite ? turnTransactionOf(db) : undefined;
  const turnOnPostgres = sqlite ? undefined : postgresTurnTransactionOf(db);
  const columns = ['supi', 'tmsi', 'epoch', 'owner', 'record', 'kamf_sealed'] as const;

  const bySupi = preparedQuery(db, ['supi'], ({ supi }: { supi: string }) =>
    db.selectFrom('ue_contexts').select(columns).where('supi', '=', supi),
  );
  const byTmsi = preparedQuery(db, ['tmsi'], ({ tmsi }: { tmsi: number }) =>
    db.selectFrom('ue_contexts').select(columns).where('tmsi', '=', tmsi),
  );
  /** A 5G-TMSI names one UE: the record that takes it ends another's claim, unless the write is fenced. */
  const freeTmsi = preparedQuery(
    db,
    ['supi', 'tmsi', 'epoch'],
    ({ supi, tmsi, epoch }: { supi: string; tmsi: number; epoch: number }) =>
      db
        .updateTable('ue_contexts')
        .set({ tmsi: null })
        .where('tmsi', '=', tmsi)
        .where('supi', '<>', supi)
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('ue_contexts as fencing')
                .select('fencing.supi')
                .where('fencing.supi', '=', supi)
                .where('fencing.epoch', '>', epoch),
            ),
          ),
        )
        // Rows back, as every step's statement gives (SQLite's `all` runs only statements that return).
        .returning('supi'),
  );
  /**
   * Replaces the record unless a newer epoch is stored: the check and the write are one statement. A UE
   * with no record is not written (only a take-over makes an owner), so a member fenced off a UE that
   * its new owner then deleted cannot bring the record back.
   */
  const update = preparedQuery(db, columns, (row: Row) =>
    db
      .updateTable('ue_contexts')
      .set({
        tmsi: row.tmsi,
        epoch: row.epoch,
        owner: row.owner,
        record: row.record,
        kamf_sealed: row.kamf_sealed,
      })
      .where('supi', '=', row.supi)
      .where('epoch', '<=', row.epoch)
      .returning('epoch'),
  );
  /** Takes a UE with no record (the first owner). */
  const insert = preparedQuery(db, columns, (row: Row) =>
    db
      .insertInto('ue_contexts')
      .values(row)
      .onConflict((oc) => oc.column('supi').doNothing())
      .returning('epoch'),
  );
  /** Takes the UE whatever is stored: its epoch + 1, or 1 for a UE with no record. */
  const takeAny = preparedQuery(db, columns, (row: Row) =>
    db
      .insertInto('ue_contexts')
      .values(row)
      .onConflict((oc) =>
        oc.column('supi').doUpdateSet((eb) => ({
          tmsi: eb.ref('excluded.tmsi'),
          epoch: eb('ue_contexts.epoch', '+', 1),
          owner: eb.ref('excluded.owner'),
          record: eb.ref('excluded.record'),
          kamf_sealed: eb.ref('excluded.kamf_sealed'),
        })),
      )
      .returning('epoch'),
  );
  /** Takes the UE when its stored epoch is `seen` (compare-and-set), raising it to `epoch` (seen + 1). */
  const takeSeen = preparedQuery(db, [...columns, 'seen'], ({ seen, ...row }: Row & { seen: number }) =>
    db
      .updateTable('ue_contexts')
      .set({
        tmsi: row.tmsi,
        epoch: row.epoch,
        owner: row.owner,
        record: row.record,
        kamf_sealed: row.kamf_sealed,
      })
      .where('supi', '=', row.supi)
      .where('epoch', '=', seen)
      .returning('epoch'),
  );
  /**
   * A lease of the UE's session moves with its record to the record's new owner, whoever held it (the
   * epoch is the authority): only a lease made for that UE, so an address its old owner meanwhile
   * released and leased to another UE stays that UE's.
   */
  const handOver = preparedQuery(
    db,
    ['address', 'supi', 'owner', 'now'],
    ({ address, supi, owner, now }: { address: string; supi: string; owner: string; now: number }) =>
      db
        .updateTable('address_leases')
        .set({ owner, leased_at: now })
        .where('address', '=', address)
        .where('supi', '=', supi)
        .returning('address'),
  );
  const remove = preparedQuery(db, ['supi', 'epoch'], ({ supi, epoch }: { supi: string; epoch: number }) =>
    db.deleteFrom('ue_contexts').where('supi', '=', supi).where('epoch', '<=', epoch).returning('supi'),
  );

  const step = <P extends Record<string, unknown>>(
    statement: { all(values: P): unknown[]; query(executor: QueryRunner, values: P): Promise<unknown[]> },
    values: P,
  ): Step => ({
    run: (executor) => (executor === undefined ? statement.all(values) : statement.query(executor, values)),
  });

  const rowOf = (record: UeContextRecord, epoch: number): Row => {
    // The keys are columns of their own; `epoch` is the one given (a take-over's is the store's).
    const { supi, owner, security, ...rest } = record;
    delete (rest as Partial<UeContextRecord>).epoch;
    let opaque: Opaque;
    let kamfSealed: string | null = null;
    if (security === null) opaque = { ...rest, security: null };
    else {
      const { kamf, ...keyless } = security;
      opaque = { ...rest, security: keyless };
      kamfSealed = secretBox.seal(kamf);
    }
    return {
      supi,
      tmsi: record.guti?.tmsi ?? null,
      epoch,
      owner,
      record: JSON.stringify(opaque),
      kamf_sealed: kamfSealed,
    };
  };

  const recordOf = (row: Row): UeContextRecord => {
    const opaque = JSON.parse(row.record) as Opaque;
    const { security, ...rest } = opaque;
    if ((security === null) !== (row.kamf_sealed === null))
      throw new Error(`UE context of ${row.supi}: its security context and KAMF disagree`);
    return {
      supi: row.supi,
      epoch: Number(row.epoch),
      owner: row.owner,
      ...rest,
      // A record written before the field: SMS over NAS not allowed, until the UE registers again.
      smsOverNas: rest.smsOverNas === true,
      security: security === null ? null : { ...security, kamf: secretBox.open(row.kamf_sealed as string) },
    };
  };

  function* putSteps(record: UeContextRecord, freeFirst: boolean): Steps<UeContextWrite> {
    const row = rowOf(record, record.epoch);
    if (freeFirst && row.tmsi !== null)
      yield step(freeTmsi, { supi: row.supi, tmsi: row.tmsi, epoch: row.epoch });
    return (yield step(update, row)).length === 0 ? 'fenced' : 'stored';
  }

  function* takeOverSteps(
    record: UeContextRecord,
    seen: UeContextSeen,
    freeFirst: boolean,
    now: number,
  ): Steps<number | 'fenced'> {
    const epoch = seen === 'any' ? Number.MAX_SAFE_INTEGER : seen + 1;
    const row = rowOf(record, seen === 'any' ? 1 : epoch);
    if (freeFirst && row.tmsi !== null) yield step(freeTmsi, { supi: row.supi, tmsi: row.tmsi, epoch });
    const taken =
      seen === 'any'
        ? yield step(takeAny, row)
        : seen === 0
          ? yield step(insert, row)
          : yield step(takeSeen, { ...row, seen });
    const stored = taken[0] as { epoch: number | string } | undefined;
    if (stored === undefined) return 'fenced';
    // Taken from another member (an epoch seen): its sessions' address leases come with the record.
    if (seen !== 'any' && seen > 0)
      for (const session of record.pduSessions)
        for (const address of [session.ipv4, session.ipv6Prefix])
          if (address !== null)
            yield step(handOver, { address, supi: record.supi, owner: record.owner, now });
    return Number(stored.epoch);
  }

  function* deleteSteps(supi: string, epoch: number): Steps<UeContextWrite> {
    if ((yield step(remove, { supi, epoch })).length > 0) return 'stored';
    // Nothing deleted: no record (deleting an absent UE is no error), or a newer owner's.
    return (yield step(bySupi, { supi })).length === 0 ? 'stored' : 'fenced';
  }

  function runSync<T>(steps: Steps<T>): T {
    let next = steps.next();
    while (!next.done) next = steps.next(next.value.run(undefined) as unknown[]);
    return next.value;
  }

  async function runAsync<T>(steps: Steps<T>, executor: Executor): Promise<T> {
    let next = steps.next();
    while (!next.done) next = steps.next(await next.value.run(executor));
    return next.value;
  }

  /**
   * PostgreSQL, outside a transaction of its own: the first statement in the database's turn transaction
   * (its writes of one turn share a round trip and a commit; READ COMMITTED, as alone), any after it alone
   * (a deletion's check of what it did not delete).
   */
  async function runInTurn<T>(steps: Steps<T>): Promise<T> {
    let next = steps.next();
    if (next.done) return next.value;
    const { run } = next.value;
    next = steps.next(
      await turnOnPostgres!(async (runner) => run(runner), { notWritten: 'UE context not written' }),
    );
    while (!next.done) next = steps.next(await next.value.run(db));
    return next.value;
  }

  /**
   * Runs a write's statements in one transaction on either database. `steps(true)` frees the 5G-TMSI
   * from any other UE's record first. On PostgreSQL a write first runs without that, as single
   * statements outside a transaction of its own (each checks the epoch itself, on the newest row once a
   * concurrent writer's lock is gone; `runInTurn`): a fresh 5G-TMSI is almost never held by another record, and a SERIALIZABLE
   * transaction around the two statements took four round trips and, with many registrations at once,
   * aborted on false conflicts and ran again. Only when the 5G-TMSI is taken (a unique violation) does
   * the write run again whole, freeing it, in a transaction.
   */
  async function write<T>(steps: (freeFirst: boolean) => Steps<T>): Promise<T> {
    if (!turn) {
      try {
        return await runInTurn(steps(false));
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        return db.transaction().execute((trx) => runAsync(steps(true), trx));
      }
    }
    return turn(() => runSync(steps(true)), { notWritten: 'UE context not written' });
  }

  const read = async <P extends Record<string, unknown>>(
    statement: { all(values: P): Row[]; query(executor: Executor, values: P): Promise<Row[]> },
    values: P,
  ): Promise<Row[]> =>
    sqlite ? withConnection(db, () => statement.all(values)) : statement.query(db, values);

  const listeners = new Set<(taken: UeTaken) => void>();
  const tell = (taken: UeTaken): void => {
    for (const listener of listeners) listener(taken);
  };
  notices.listen(UE_TAKEN_TOPIC, (detail) => {
    if (isUeTaken(detail)) tell({ supi: detail.supi, epoch: detail.epoch, owner: detail.owner });
  });

  /**
   * PostgreSQL: the compare-and-set and the hand-over of its leases as one statement (data-modifying
   * CTEs: the leases move only if the record did), one round trip in READ COMMITTED: of two members
   * racing, the later UPDATE waits for the earlier's row lock, finds the epoch moved and changes nothing.
   * (A SERIALIZABLE transaction around the statements aborted on false conflicts when a thousand UEs
   * came back at once.) Undefined when the 5G-TMSI is another record's (a unique violation).
   */
  async function takeFromOnPostgres(
    record: UeContextRecord,
    seen: number,
    now: number,
  ): Promise<number | 'fenced' | undefined> {
    const row = rowOf(record, seen + 1);
    const addresses = record.pduSessions
      .flatMap((session) => [session.ipv4, session.ipv6Prefix])
      .filter((address): address is string => address !== null);
    const moved =
      addresses.length === 0
        ? sql``
        : sql`, moved AS (UPDATE address_leases SET owner = ${row.owner}, leased_at = ${now}
            WHERE address IN (${sql.join(addresses)}) AND supi = ${row.supi}
            AND EXISTS (SELECT 1 FROM taken) RETURNING address)`;
    try {
      const { rows } = await sql<{ epoch: number | string }>`
        WITH taken AS (UPDATE ue_contexts SET tmsi = ${row.tmsi}, epoch = ${row.epoch},
          owner = ${row.owner}, record = ${row.record}, kamf_sealed = ${row.kamf_sealed}
          WHERE supi = ${row.supi} AND epoch = ${seen} RETURNING epoch)${moved}
        SELECT epoch FROM taken`.execute(db);
      const stored = rows[0];
      return stored === undefined ? 'fenced' : Number(stored.epoch);
    } catch (error) {
      if (isUniqueViolation(error)) return undefined;
      throw error;
    }
  }

  /**
   * A take-over from another member: the record and its address leases in one transaction; once it has
   * committed, this process's listeners hear it and (PostgreSQL) the change notice tells the others.
   */
  async function takeFrom(record: UeContextRecord, seen: number): Promise<number | 'fenced'> {
    const now = clock.now();
    const taken = sqlite
      ? await write((freeFirst) => takeOverSteps(record, seen, freeFirst, now))
      : ((await takeFromOnPostgres(record, seen, now)) ??
        // The 5G-TMSI is another record's (rare): freed first, in one transaction with the take-over.
        (await db.transaction().execute((trx) => runAsync(takeOverSteps(record, seen, true, now), trx))));
    if (taken === 'fenced') return taken;
    const detail: UeTaken = { supi: record.supi, epoch: taken, owner: record.owner };
    notices.send(UE_TAKEN_TOPIC, detail);
    tell(detail);
    return taken;
  }

  return {
    put: (record) => write((freeFirst) => putSteps(record, freeFirst)),
    takeOver: (record, seen) =>
      seen !== 'any' && seen > 0
        ? takeFrom(record, seen)
        : write((freeFirst) => takeOverSteps(record, seen, freeFirst, clock.now())),
    onTaken(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    delete: (supi, epoch) => write(() => deleteSteps(supi, epoch)),
    async get(supi) {
      const [row] = await read(bySupi, { supi });
      return row === undefined ? undefined : recordOf(row);
    },
    async findByGuti(guti) {
      const [row] = await read(byTmsi, { tmsi: guti.tmsi });
      if (row === undefined) return undefined;
      const record = recordOf(row);
      const stored = record.guti;
      // The 5G-TMSI finds the row; the rest of the 5G-GUTI must match too (another AMF's or PLMN's UE).
      const same =
        stored !== null &&
        stored.mcc === guti.mcc &&
        stored.mnc === guti.mnc &&
        stored.amfRegionId === guti.amfRegionId &&
        stored.amfSetId === guti.amfSetId &&
        stored.amfPointer === guti.amfPointer;
      return same ? record : undefined;
    },
    async ownedBy(owner, after, limit) {
      // Keyset pages on the primary key: each batch starts where the last ended, whatever changed meanwhile.
      const rows = await db
        .selectFrom('ue_contexts')
        .select(columns)
        .where('owner', '=', owner)
        .where('supi', '>', after)
        .orderBy('supi')
        .limit(limit)
        .execute();
      return rows.map(recordOf);
    },
  };
}
