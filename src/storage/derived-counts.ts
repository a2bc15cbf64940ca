import type SQLite from 'better-sqlite3';

/**
 * Recomputes the numbers the database keeps beside the rows they count (migration 0008's subscriber
 * count) from those rows. Triggers keep them exact for every write made through SQLite, but a restored
 * file is whatever its author made it: a count edited by hand would otherwise be answered as every
 * list's total from then on.
 */
export function recountDerived(sqlite: SQLite.Database): void {
  sqlite.transaction(() => {
    sqlite.prepare('DELETE FROM subscriber_count').run();
    sqlite.prepare('INSERT INTO subscriber_count (id, total) SELECT 1, count(*) FROM subscribers').run();
  })();
}
