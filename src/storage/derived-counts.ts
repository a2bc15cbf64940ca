import type SQLite from 'better-sqlite3';

/**
 * Recomputes the numbers the database keeps beside the rows they count (migrations 0008 and 0009:
 * subscribers in all and by profile) from those rows. Triggers keep them exact for every write made through SQLite, but a restored
 * file is whatever its author made it: a count edited by hand would otherwise be answered as every
 * list's total from then on.
 */
export function recountDerived(sqlite: SQLite.Database): void {
  sqlite.transaction(() => {
    sqlite.prepare('DELETE FROM subscriber_count').run();
    sqlite.prepare('INSERT INTO subscriber_count (id, total) SELECT 1, count(*) FROM subscribers').run();
    sqlite.prepare('DELETE FROM subscriber_count_by_profile').run();
    sqlite
      .prepare(
        'INSERT INTO subscriber_count_by_profile (profile_id, total) SELECT profile_id, count(*) FROM subscribers GROUP BY profile_id',
      )
      .run();
  })();
}
