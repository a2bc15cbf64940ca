import { sql, type RawBuilder } from 'kysely';

/**
 * A column the query planner reads as a plain value, so it cannot pick the column's index for that
 * condition; the repositories use it to steer a query to the index that leads. SQLite's way is to
 * write the column inside an expression that changes nothing (`x + 0`, `x || ''`, its documented
 * idiom); a second dialect would give its own here.
 */
function unindexed<T extends number | string>(column: string, type: 'number' | 'text'): RawBuilder<T> {
  return type === 'number' ? sql<T>`${sql.ref(column)} + 0` : sql<T>`${sql.ref(column)} || ''`;
}

/** The column itself when `indexed`, else `unindexed(column)`. */
export function maybeIndexed<T extends number | string>(
  column: string,
  type: 'number' | 'text',
  indexed: boolean,
): RawBuilder<T> {
  return indexed ? sql<T>`${sql.ref(column)}` : unindexed<T>(column, type);
}
