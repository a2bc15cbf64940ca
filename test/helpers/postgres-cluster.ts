import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A throwaway PostgreSQL cluster for tests and benches: Debian's server binaries (`initdb`, `pg_ctl`) on
 * a temporary directory, its own unix socket directory and a free TCP port on 127.0.0.1, run as the
 * `postgres` system user when we are root (the server refuses to run as root). Password (SCRAM) login
 * over TCP, so a wrong password fails as on a real deployment. Durability is off (fsync, full page
 * writes): the cluster lives for one test run. Stopped and removed when the process exits.
 */
export interface PostgresCluster {
  port: number;
  user: string;
  password: string;
  /** `postgres://user:password@127.0.0.1:port/database`. */
  url(database: string): string;
  /** Runs SQL through `psql` on the `postgres` database (administration: create and drop databases). */
  psql(sql: string): string;
  /** Stops the server (fast shutdown: connections are ended), keeping its data; `startServer` starts it again. */
  stopServer(): void;
  startServer(): void;
  /** Stops the server and removes the cluster. */
  stop(): void;
}

const USER = 'pmn';
const PASSWORD = 'pmn-test-password';

/** The newest server installed under /usr/lib/postgresql (Debian's layout), or PMN_PG_BIN. */
export function postgresBinDir(): string | undefined {
  if (process.env.PMN_PG_BIN) return process.env.PMN_PG_BIN;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .map(Number)
    .filter((v) => Number.isInteger(v))
    .sort((a, b) => b - a);
  const found = versions
    .map((v) => join(root, String(v), 'bin'))
    .find((dir) => existsSync(join(dir, 'initdb')));
  return found;
}

/** A TCP port free on 127.0.0.1 now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL server binaries not found (Debian: apt-get install postgresql)');
  const root = mkdtempSync(join(tmpdir(), 'pmn-pg-'));
  const data = join(root, 'data');
  const socket = join(root, 'socket');
  mkdirSync(socket);
  const asRoot = process.getuid?.() === 0;
  // The server runs as `postgres` when we are root: it owns the directory it is given.
  const runAs = (command: string, args: string[]): string[] =>
    asRoot ? ['runuser', '-u', 'postgres', '--', command, ...args] : [command, ...args];
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(root, uid, gid);
    chownSync(socket, uid, gid);
  }
  const pwfile = join(root, 'pwfile');
  writeFileSync(pwfile, `${PASSWORD}\n`, { mode: 0o644 });
  const run = (command: string, args: string[]): string => {
    const [file, ...rest] = runAs(command, args);
    return execFileSync(file as string, rest, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
  };
  // C collation: text sorts by bytes, as SQLite's BINARY collation does.
  run(join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    USER,
    `--pwfile=${pwfile}`,
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '--locale=C',
    '--encoding=UTF8',
  ]);
  rmSync(pwfile);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k ${socket}`,
    "-c listen_addresses='127.0.0.1'",
    '-c fsync=off',
    '-c full_page_writes=off',
    '-c synchronous_commit=off',
    '-c max_connections=400',
  ].join(' ');
  const startServer = () =>
    void run(join(bin, 'pg_ctl'), ['-D', data, '-l', join(root, 'server.log'), '-o', options, '-w', 'start']);
  startServer();

  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    const [file, ...rest] = runAs(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
    spawnSync(file as string, rest, { stdio: 'ignore' });
    rmSync(root, { recursive: true, force: true });
  };
  // Synchronous, so it also runs when the process exits without awaiting anything.
  process.once('exit', stop);

  return {
    port,
    user: USER,
    password: PASSWORD,
    url: (database) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`,
    startServer,
    stopServer: () => void run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']),
    psql: (sql) =>
      execFileSync(
        join(bin, 'psql'),
        [
          '-h',
          socket,
          '-p',
          String(port),
          '-U',
          USER,
          '-d',
          'postgres',
          '-v',
          'ON_ERROR_STOP=1',
          '-qAtc',
          sql,
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      ).toString(),
    stop,
  };
}
