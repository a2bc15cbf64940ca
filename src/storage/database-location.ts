/**
 * Where the database is, as `--db` / `PMN_DB` / `db:` give it: a PostgreSQL URL (`postgres://` or
 * `postgresql://`, libpq's forms including several hosts, `postgres://u@a:5432,b:5432/db?
 * target_session_attrs=read-write`), or else the path of an SQLite file (`:memory:` for none).
 */
type DatabaseLocation =
  | { dialect: 'sqlite'; path: string }
  | {
      dialect: 'postgres';
      url: string;
      /** The URL without its password, for logs and error messages. */
      shown: string;
    };

const POSTGRES_SCHEME = /^postgres(?:ql)?:\/\//i;

/** libpq's values (PostgreSQL docs, 34.1.2 Parameter Key Words) that the driver (Postgres.js) implements. */
const TARGET_SESSION_ATTRS = new Set([
  'any',
  'read-write',
  'read-only',
  'primary',
  'standby',
  'prefer-standby',
]);

export class DatabaseLocationError extends Error {}

/** Connections the service keeps to PostgreSQL unless told otherwise (`--db-pool-size`). */
export const DEFAULT_POOL_SIZE = 10;

export function isPostgresUrl(value: string): boolean {
  return POSTGRES_SCHEME.test(value);
}

/** Reads `value`; throws DatabaseLocationError (one line, naming the problem) for a malformed URL. */
export function parseDatabaseLocation(value: string): DatabaseLocation {
  if (!isPostgresUrl(value)) return { dialect: 'sqlite', path: value };
  // WHATWG URL parsing rejects a host list ("a:5432,b:5432"): the authority is read by hand.
  const rest = value.replace(POSTGRES_SCHEME, '');
  const slash = rest.search(/[/?]/);
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  const tail = slash < 0 ? '' : rest.slice(slash);
  const at = authority.lastIndexOf('@');
  const credentials = at < 0 ? '' : authority.slice(0, at);
  const hosts = at < 0 ? authority : authority.slice(at + 1);
  const fail = (problem: string): never => {
    throw new DatabaseLocationError(`db: ${problem} in PostgreSQL URL ${show(credentials, hosts, tail)}`);
  };
  for (const host of hosts === '' ? [] : hosts.split(',')) {
    const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]*)(?::(\d*))?$/.exec(host);
    if (!match) fail(`host "${host}" is not HOST[:PORT]`);
    const port = match?.[2];
    if (port !== undefined && (port === '' || Number(port) < 1 || Number(port) > 65535))
      fail(`port "${port}" is not 1..65535`);
  }
  const query = new URLSearchParams(tail.includes('?') ? tail.slice(tail.indexOf('?') + 1) : '');
  const attrs = query.get('target_session_attrs');
  if (attrs !== null && !TARGET_SESSION_ATTRS.has(attrs))
    fail(`target_session_attrs "${attrs}" is not one of ${[...TARGET_SESSION_ATTRS].join(', ')}`);
  const path = tail.split('?')[0] ?? '';
  if (path !== '' && path !== '/' && path.slice(1).includes('/'))
    fail(`database name "${path.slice(1)}" has a "/"`);
  return { dialect: 'postgres', url: value, shown: show(credentials, hosts, tail) };
}

/** The URL with its password replaced by `***`. */
function show(credentials: string, hosts: string, tail: string): string {
  const colon = credentials.indexOf(':');
  const user = colon < 0 ? credentials : `${credentials.slice(0, colon)}:***`;
  const query = tail.includes('?') ? tail.slice(tail.indexOf('?')) : '';
  const redactedQuery = query.replace(/([?&]password=)[^&]*/i, '$1***');
  return `postgres://${user === '' ? '' : `${user}@`}${hosts}${tail.split('?')[0] ?? ''}${redactedQuery}`;
}

/** The location as logs may show it: a PostgreSQL URL without its password, a path as it is. */
export function shownLocation(value: string): string {
  const location = parseDatabaseLocation(value);
  return location.dialect === 'postgres' ? location.shown : location.path;
}

/** The files the database is made of on this machine: an SQLite file and its WAL and shared memory. */
export function databaseFiles(value: string): string[] {
  const location = parseDatabaseLocation(value);
  if (location.dialect === 'postgres' || location.path === ':memory:') return [];
  return [location.path, `${location.path}-wal`, `${location.path}-shm`];
}
