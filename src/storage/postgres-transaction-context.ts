import { AsyncLocalStorage } from 'node:async_hooks';
import type { CompiledQuery, Transaction } from 'kysely';
import type { Database } from './schema.ts';

/**
 * The PostgreSQL transaction a piece of code runs in, so that the synchronous row statements
 * (row-statement.ts), which on SQLite run on the one connection the open transaction holds, join it on
 * PostgreSQL too. Each is sent on the transaction at once, in call order (Kysely runs a transaction's
 * queries one after another, in the order they were asked), and the transaction awaits them all before
 * it commits; the first failure fails it.
 */
interface TransactionContext {
  trx: Transaction<Database>;
  pending: Promise<unknown>[];
  /** What each row query a `writeTransaction` listed read as it began (row-statement.ts). */
  reads?: Map<() => unknown[], unknown[]>;
}

const context = new AsyncLocalStorage<TransactionContext>();

export function transactionContext(): TransactionContext | undefined {
  return context.getStore();
}

/** Sends `query` on the current transaction without awaiting it (see TransactionContext). */
export function sendInTransaction(query: CompiledQuery): void {
  const current = context.getStore();
  if (!current) throw new Error('on PostgreSQL, row statements run inside a transaction');
  current.pending.push(current.trx.executeQuery(query));
}

/** Runs `callback` as the body of `trx`, then waits for the statements it sent. */
export async function runInTransaction<T>(
  trx: Transaction<Database>,
  callback: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  const store: TransactionContext = { trx, pending: [] };
  return context.run(store, async () => {
    let result: T;
    try {
      result = await callback(trx);
    } catch (error) {
      await Promise.allSettled(store.pending);
      throw error;
    }
    await Promise.all(store.pending);
    return result;
  });
}
