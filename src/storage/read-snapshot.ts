import { maybeSqliteFileOf, type Db } from './database.ts';
import { inReadSnapshot } from './postgres-dialect.ts';

/**
 * Runs `work`, whose reads go to `db`, so that they see one state of the database: on PostgreSQL in one
 * read-only REPEATABLE READ transaction on one connection (a pool runs concurrent reads on several
 * connections, each seeing the commits made before it began); on SQLite as they are, one after another
 * on the service's one connection. `work` must be done with the database when it resolves.
 */
export function readSnapshot<T>(db: Db, work: () => Promise<T>): Promise<T> {
  if (maybeSqliteFileOf(db)) return work();
  return db.getExecutor().provideConnection((connection) => inReadSnapshot(connection, work));
}
