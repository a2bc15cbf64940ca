/**
 * Recognises constraint violations from either dialect, so a service can turn a race the database caught
 * (a duplicate insert, a reference to a row deleted meanwhile) into a 409 instead of a 500.
 * SQLite (better-sqlite3) reports `SQLITE_CONSTRAINT_*` codes, PostgreSQL SQLSTATE 23505 / 23503.
 */
function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function isUniqueViolation(error: unknown): boolean {
  const code = codeOf(error);
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}

export function isForeignKeyViolation(error: unknown): boolean {
  const code = codeOf(error);
  return code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === '23503';
}
