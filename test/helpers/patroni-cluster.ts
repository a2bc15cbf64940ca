import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, postgresBinDir } from './postgres-cluster.ts';

/**
 * A two-node Patroni cluster with one etcd, on this machine, for the Patroni failover test: Debian's
 * `patroni` (3.0) and `etcd-server` (3.4), each node's PostgreSQL on its own temporary directory, unix
 * socket directory and free port on 127.0.0.1, run as the `postgres` user when we are root. Synchronous
 * mode (a commit waits for the standby), a leader lease of 20 s (Patroni's smallest `ttl`), so a lost
 * leader is replaced within about 20 s. Stopped and removed when the process exits.
 */
export interface PatroniCluster {
  /** The nodes' names (`n1`, `n2`) and their PostgreSQL ports, in that order. */
  nodes: { name: string; port: number }[];
  /** The superuser's password (user `postgres`); the service's role is made with `psql`. */
  superuserPassword: string;
  /** The leader's name, once Patroni's REST API of some node says which (waits up to `ms`). */
  leader(ms?: number): Promise<string>;
  /** Waits until `name` is the leader and the other node its synchronous standby (up to `ms`). */
  settled(name: string, ms?: number): Promise<void>;
  /** Runs SQL through `psql` as the superuser on `database` of node `name`; the rows, one a line. */
  psql(name: string, database: string, sql: string): string;
  /** `patronictl` with the cluster's configuration; its output. */
  patronictl(args: string[]): string;
  /** Kills node `name` as a crashed machine would die: its Patroni, then its PostgreSQL, with SIGKILL. */
  crash(name: string): void;
  /** The log of every process, for a failure's message. */
  logs(): string;
  stop(): void;
}

const SUPERUSER_PASSWORD = 'patroni-super-pw';

/** Why the cluster cannot run here, or undefined when it can. */
export function patroniUnavailable(): string | undefined {
  const missing = ['patroni', 'patronictl', 'etcd'].filter(
    (command) => spawnSync('sh', ['-c', `command -v ${command}`]).status !== 0,
  );
  if (missing.length > 0)
    return `${missing.join(', ')} not installed (Debian: apt-get install patroni etcd-server)`;
  if (!postgresBinDir()) return 'no PostgreSQL server installed (Debian: postgresql)';
  return undefined;
}

export async function startPatroniCluster(): Promise<PatroniCluster> {
  const bin = postgresBinDir() as string;
  const root = mkdtempSync(join(tmpdir(), 'pmn-patroni-'));
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot
    ? {
        uid: Number(execFileSync('id', ['-u', 'postgres']).toString()),
        gid: Number(execFileSync('id', ['-g', 'postgres']).toString()),
      }
    : undefined;
  const dir = (name: string) => {
    const path = join(root, name);
    mkdirSync(path, { mode: 0o700 });
    if (owner) chownSync(path, owner.uid, owner.gid);
    return path;
  };
  if (owner) chownSync(root, owner.uid, owner.gid);
  const children: { name: string; child: ChildProcess; log: string }[] = [];
  /** Spawned as `postgres` (no runuser in between, so the pid is the program's own, for crash()). */
  const run = (name: string, command: string, args: string[]) => {
    const log = join(root, `${name}.log`);
    const out = openSync(log, 'a');
    const child = spawn(command, args, {
      cwd: root,
      env: { ...process.env, HOME: root },
      stdio: ['ignore', out, out],
      ...(owner ?? {}),
    });
    children.push({ name, child, log });
    return child;
  };

  const [etcdClient, etcdPeer] = [await freePort(), await freePort()];
  run('etcd', 'etcd', [
    '--name',
    'e1',
    '--data-dir',
    join(dir('etcd'), 'data'),
    '--listen-client-urls',
    `http://127.0.0.1:${etcdClient}`,
    '--advertise-client-urls',
    `http://127.0.0.1:${etcdClient}`,
    '--listen-peer-urls',
    `http://127.0.0.1:${etcdPeer}`,
    '--initial-advertise-peer-urls',
    `http://127.0.0.1:${etcdPeer}`,
    '--initial-cluster',
    `e1=http://127.0.0.1:${etcdPeer}`,
  ]);

  const scope = `pmn-test-${process.pid}`;
  const nodes: { name: string; port: number; api: number; data: string; socket: string; config: string }[] =
    [];
  for (const name of ['n1', 'n2']) {
    const node = {
      name,
      port: await freePort(),
      api: await freePort(),
      data: join(dir(name), 'data'),
      socket: dir(`${name}-socket`),
      config: join(root, `${name}.yml`),
    };
    // The configuration of docs/operations.md ("Patroni with etcd"), on local addresses and a short lease.
    writeFileSync(
      node.config,
      `scope: ${scope}
name: ${name}
etcd3:
  hosts: 127.0.0.1:${etcdClient}
restapi:
  listen: 127.0.0.1:${node.api}
  connect_address: 127.0.0.1:${node.api}
bootstrap:
  dcs:
    ttl: 20
    loop_wait: 2
    retry_timeout: 5
    synchronous_mode: true
    postgresql:
      use_pg_rewind: true
      parameters:
        wal_log_hints: true
  initdb: [{ encoding: UTF8 }, { locale: C }]
postgresql:
  listen: 127.0.0.1:${node.port}
  connect_address: 127.0.0.1:${node.port}
  data_dir: ${node.data}
  bin_dir: ${bin}
  pgpass: ${join(root, `${name}.pgpass`)}
  parameters:
    unix_socket_directories: ${node.socket}
  authentication:
    superuser: { username: postgres, password: ${SUPERUSER_PASSWORD} }
    replication: { username: replicator, password: replicator-pw }
    rewind: { username: rewinder, password: rewinder-pw }
  pg_hba:
    - local all all trust
    - host replication replicator 127.0.0.1/32 scram-sha-256
    - host all all 127.0.0.1/32 scram-sha-256
`,
      { mode: 0o644 },
    );
    nodes.push(node);
  }
  const patroni = new Map<string, ChildProcess>();
  const startNode = (name: string) => {
    const node = nodes.find((n) => n.name === name) as (typeof nodes)[number];
    patroni.set(name, run(name, 'patroni', [node.config]));
  };

  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    for (const [, child] of patroni) child.kill('SIGKILL');
    for (const node of nodes) {
      if (!existsSync(join(node.data, 'postmaster.pid'))) continue;
      const args = [join(bin, 'pg_ctl'), '-D', node.data, '-m', 'immediate', '-w', 'stop'];
      spawnSync(args[0] as string, args.slice(1), { stdio: 'ignore', ...(owner ?? {}) });
    }
    for (const { child } of children) child.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  };
  // Synchronous, so it also runs when the process exits without awaiting anything.
  process.once('exit', stop);

  /** GET of a node's REST API: its status code, 0 when it does not answer. */
  const status = async (name: string, path: string): Promise<number> => {
    const node = nodes.find((n) => n.name === name) as (typeof nodes)[number];
    try {
      const response = await fetch(`http://127.0.0.1:${node.api}${path}`, {
        signal: AbortSignal.timeout(2000),
      });
      await response.arrayBuffer();
      return response.status;
    } catch {
      return 0;
    }
  };
  const waitFor = async (what: string, done: () => Promise<boolean>, ms: number) => {
    const deadline = Date.now() + ms;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${logs()}`);
      await sleep(200);
    }
  };
  const logs = () =>
    children
      .map(
        ({ name, log }) => `\n--- ${name}\n${existsSync(log) ? readFileSync(log, 'utf8').slice(-3000) : ''}`,
      )
      .join('');
  const leader = async (ms = 60_000): Promise<string> => {
    let found: string | undefined;
    await waitFor(
      'a leader',
      async () => {
        for (const node of nodes) if ((await status(node.name, '/primary')) === 200) found = node.name;
        return found !== undefined;
      },
      ms,
    );
    return found as string;
  };
  const settled = async (name: string, ms = 60_000): Promise<void> => {
    const other = nodes.find((n) => n.name !== name)?.name as string;
    await waitFor(
      `${name} to lead with ${other} its synchronous standby`,
      async () => (await status(name, '/primary')) === 200 && (await status(other, '/sync')) === 200,
      ms,
    );
  };

  try {
    startNode('n1');
    await leader();
    startNode('n2');
    await settled('n1');
  } catch (error) {
    stop();
    throw error;
  }

  return {
    nodes: nodes.map(({ name, port }) => ({ name, port })),
    superuserPassword: SUPERUSER_PASSWORD,
    leader,
    settled,
    psql(name, database, sql) {
      const node = nodes.find((n) => n.name === name) as (typeof nodes)[number];
      const args = ['-h', node.socket, '-p', String(node.port), '-U', 'postgres', '-d', database];
      return execFileSync(join(bin, 'psql'), [...args, '-v', 'ON_ERROR_STOP=1', '-qAtc', sql], {
        stdio: ['ignore', 'pipe', 'pipe'],
      }).toString();
    },
    patronictl: (args) =>
      execFileSync('patronictl', ['-c', nodes[0]?.config as string, ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
      }).toString(),
    crash(name) {
      const node = nodes.find((n) => n.name === name) as (typeof nodes)[number];
      // Patroni first: alive, it would start its PostgreSQL again and keep the leader lock.
      patroni.get(name)?.kill('SIGKILL');
      const pid = Number(readFileSync(join(node.data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGKILL');
    },
    logs,
    stop,
  };
}
