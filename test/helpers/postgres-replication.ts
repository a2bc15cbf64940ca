import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, postgresBinDir } from './postgres-cluster.ts';

/**
 * A primary and a streaming standby with synchronous replication, for the failover test: Debian's server
 * binaries (`initdb`, `pg_ctl`, `pg_basebackup`) on temporary directories, each server on its own unix
 * socket directory and free TCP port on 127.0.0.1, run as the `postgres` user when we are root. A commit
 * on the primary is acknowledged only once the standby has it (`synchronous_standby_names`, set on the
 * primary once the standby runs, so the standby, a copy of its directory made before, does not wait for
 * a standby of its own once promoted). Stopped and removed when the process exits.
 */
export interface ReplicatedPostgres {
  user: string;
  password: string;
  primaryPort: number;
  standbyPort: number;
  /** Runs SQL through `psql` on `database` of the server at `port`; the rows, one a line. */
  psql(port: number, database: string, sql: string): string;
  /** Stops the primary as a crash would (`pg_ctl -m immediate`): no shutdown checkpoint, connections cut. */
  crashPrimary(): void;
  /** Promotes the standby to primary and waits until it accepts writes. */
  promoteStandby(): void;
  /** Stops both servers and removes their directories. */
  stop(): void;
}

const USER = 'pmn';
const PASSWORD = 'pmn-test-password';
const STANDBY_NAME = 'standby1';

export async function startReplicatedPostgres(databases: string[]): Promise<ReplicatedPostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL server binaries not found (Debian: apt-get install postgresql)');
  const root = mkdtempSync(join(tmpdir(), 'pmn-pg-failover-'));
  const primaryData = join(root, 'primary');
  const standbyData = join(root, 'standby');
  const sockets = { primary: join(root, 'socket-primary'), standby: join(root, 'socket-standby') };
  mkdirSync(sockets.primary);
  mkdirSync(sockets.standby);
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    for (const dir of [root, sockets.primary, sockets.standby]) chownSync(dir, uid, gid);
  }
  const run = (command: string, args: string[]): string => {
    const [file, ...rest] = asRoot
      ? ['runuser', '-u', 'postgres', '--', command, ...args]
      : [command, ...args];
    return execFileSync(file, rest, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
  };
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    for (const data of [primaryData, standbyData]) {
      const args = [join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', '-w', 'stop'];
      const [file, ...rest] = asRoot ? ['runuser', '-u', 'postgres', '--', ...args] : args;
      spawnSync(file as string, rest, { stdio: 'ignore' });
    }
    rmSync(root, { recursive: true, force: true });
  };
  // Synchronous, so it also runs when the process exits without awaiting anything.
  process.once('exit', stop);

  try {
    const pwfile = join(root, 'pwfile');
    writeFileSync(pwfile, `${PASSWORD}\n`, { mode: 0o644 });
    // Replication connections over the unix socket are trusted (initdb's default pg_hba with
    // --auth-local=trust); PMN Core logs in with its password over TCP.
    run(join(bin, 'initdb'), [
      '-D',
      primaryData,
      '-U',
      USER,
      `--pwfile=${pwfile}`,
      '--auth-local=trust',
      '--auth-host=scram-sha-256',
      '--locale=C',
      '--encoding=UTF8',
    ]);
    rmSync(pwfile);
    const primaryPort = await freePort();
    const standbyPort = await freePort();
    const options = (port: number, socket: string, extra: string[] = []) =>
      [`-p ${port}`, `-k ${socket}`, "-c listen_addresses='127.0.0.1'", ...extra].join(' ');
    const start = (data: string, port: number, socket: string, extra?: string[]) =>
      run(join(bin, 'pg_ctl'), [
        '-D',
        data,
        '-l',
        join(root, `${port}.log`),
        '-o',
        options(port, socket, extra),
        '-w',
        'start',
      ]);
    start(primaryData, primaryPort, sockets.primary);

    const psql = (port: number, database: string, sql: string): string => {
      const socket = port === primaryPort ? sockets.primary : sockets.standby;
      const args = ['-h', socket, '-p', String(port), '-U', USER, '-d', database, '-v', 'ON_ERROR_STOP=1'];
      return execFileSync(join(bin, 'psql'), [...args, '-qAtc', sql], {
        stdio: ['ignore', 'pipe', 'pipe'],
      }).toString();
    };
    for (const database of databases)
      psql(primaryPort, 'postgres', `CREATE DATABASE ${database} TEMPLATE template0 LOCALE 'C'`);

    run(join(bin, 'pg_basebackup'), [
      '-D',
      standbyData,
      '-h',
      sockets.primary,
      '-p',
      String(primaryPort),
      '-U',
      USER,
      '-X',
      'stream',
      '--checkpoint=fast',
      '-R',
    ]);
    // -R wrote standby.signal and a primary_conninfo; this one adds the name the primary waits for.
    appendFileSync(
      join(standbyData, 'postgresql.auto.conf'),
      `primary_conninfo = 'host=${sockets.primary} port=${primaryPort} user=${USER} application_name=${STANDBY_NAME}'\n`,
    );
    start(standbyData, standbyPort, sockets.standby);
    // Only now, and only on the primary: commits wait for the standby from here on.
    psql(primaryPort, 'postgres', `ALTER SYSTEM SET synchronous_standby_names = '${STANDBY_NAME}'`);
    psql(primaryPort, 'postgres', 'SELECT pg_reload_conf()');
    await waitFor(
      'the standby to replicate synchronously',
      () =>
        psql(
          primaryPort,
          'postgres',
          `SELECT sync_state FROM pg_stat_replication WHERE application_name = '${STANDBY_NAME}'`,
        ).trim() === 'sync',
    );

    return {
      user: USER,
      password: PASSWORD,
      primaryPort,
      standbyPort,
      psql,
      crashPrimary: () => void run(join(bin, 'pg_ctl'), ['-D', primaryData, '-m', 'immediate', '-w', 'stop']),
      promoteStandby: () => void run(join(bin, 'pg_ctl'), ['-D', standbyData, '-w', 'promote']),
      stop,
    };
  } catch (error) {
    stop();
    throw error;
  }
}

/** Polls `done` every 100 ms; fails after 30 s. */
async function waitFor(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}
