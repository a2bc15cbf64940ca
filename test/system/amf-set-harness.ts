/**
 * An AMF set of real member processes for system tests and the failover bench: N members (the production
 * bundle, as `npm start` runs it: test/helpers/service-process.ts) on one fresh PostgreSQL database, each
 * with its own AMF Name and AMF Pointer, its own N2 address (the `udp` transport, so the simulator's gNB
 * needs no privilege for it) and its own UPF: N3 on a loopback address of its own, its N6 TUN moved into
 * a data-network namespace of its own (as session-traffic-harness.ts does for one in-process UPF), where
 * `DN` answers. Root (namespaces, TUN devices) and a PostgreSQL server (test/helpers/postgres-cluster.ts).
 *
 * Addresses, ports and names depend on the process id, so files run at the same time never collide.
 * `stop` ends every process it started (SIGKILL for one that does not leave after SIGTERM, SIGCONT first
 * for a stopped one) and removes every namespace.
 */
import assert from 'node:assert/strict';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { placeN6 } from '../helpers/netns.ts';
import { postgresBinDir } from '../helpers/postgres-cluster.ts';
import { freshPostgresDatabase } from '../helpers/postgres-test-database.ts';
import { spawnService } from '../helpers/service-process.ts';
import { run, sessionTrafficUnavailable } from './session-traffic-harness.ts';

/** Why an AMF set of processes cannot run here, or undefined. */
export function amfSetUnavailable(): string | undefined {
  if (!postgresBinDir() && !process.env.PMN_TEST_POSTGRES_URL)
    return 'no PostgreSQL server installed (Debian: postgresql)';
  return sessionTrafficUnavailable();
}

const id = process.pid % 100000;
// Loopback addresses of this process: 127.<x>.<y>.<host> (the whole of 127/8 is loopback on Linux).
const x = 50 + ((process.pid >> 3) % 150);
const y = (process.pid * 7) % 250;
const address = (host: number): string => `127.${x}.${y}.${host}`;

/** The simulated gNB's address, for its N2 (SCTP over UDP) and its N3 (GTP-U). */
export const GNB_ADDRESS = address(2);
/** What every member's data network answers on, in its own namespace. */
export const DN = '10.99.0.1';
export const UE_POOL = '10.45.0.0/16';
/** The operator's network as the members start (the service's defaults). */
export const AMF_REGION_ID = 1;
export const AMF_SET_ID = 1;

export interface AmfSetMember {
  readonly index: number;
  readonly name: string;
  readonly pointer: number;
  /** N2: SCTP over UDP on this address, `AmfSet.n2Port` and `AmfSet.udpPort`. */
  readonly n2Address: string;
  /** The UPF's N3 (GTP-U) address. */
  readonly n3Address: string;
  /** The namespace the member's N6 TUN is in, where `DN` answers. */
  readonly dnNamespace: string;
  /** The running process (a new one after `restart`). */
  child: ChildProcessWithoutNullStreams;
  /** `http://127.0.0.1:<port>` of its API. */
  base: string;
  /** Everything the current process wrote to stdout and stderr. */
  output(): string;
  /** Resolves when the current process has exited. */
  exited(): Promise<void>;
}

export interface AmfSetOptions {
  /** Two letters or fewer: tells files' interface and namespace names apart. */
  tag: string;
  members: number;
  /** The heartbeat and the lease of each member (defaults 1 s and 2 s: a dead member is gone within 3 s). */
  heartbeatSeconds?: number;
  leaseSeconds?: number;
  /** Each member's relative capacity (default 255). */
  capacity?: (index: number) => number;
  /** More service flags for member `index`. */
  args?: (index: number) => string[];
  /** More node flags for member `index` (a bench's `--cpu-prof`). */
  nodeFlags?: (index: number) => string[];
  /** The URL member `index` reaches the shared database by (default `url`): a test's proxy in between. */
  databaseUrl?: (index: number, url: string) => string | Promise<string>;
}

export interface AmfSet {
  readonly members: readonly AmfSetMember[];
  /** The database the members share (for reading what they stored). */
  readonly databaseUrl: string;
  /** The members' N2 SCTP port and UDP encapsulation port (RFC 6951), the same for all. */
  readonly n2Port: number;
  readonly udpPort: number;
  /** An API token of the first admin (any member accepts it: one database). */
  readonly token: string;
  /** `fetch` on the member's API with the token; the body parsed as JSON when it is. */
  api(member: AmfSetMember, method: string, path: string, body?: unknown): Promise<ApiAnswer>;
  /** The members as `GET /api/v1/amf-set` of `member` lists them, by name: their state. */
  states(member: AmfSetMember): Promise<Record<string, string>>;
  /** Waits until `member`'s API lists every named member in `state`. */
  waitStates(member: AmfSetMember, expected: Record<string, string>): Promise<void>;
  /** A member's metric samples named `name` (Prometheus text), e.g. `pmn_ue_context_write_failures_total`. */
  metric(member: AmfSetMember, name: string): Promise<string[]>;
  /** Runs SQL on the shared database. */
  sql<T extends object>(query: string, ...parameters: (string | number)[]): Promise<T[]>;
  /** Starts a member that exited again (same name, pointer and addresses), waits until it serves. */
  restart(member: AmfSetMember): Promise<void>;
  /**
   * Starts another process under `member`'s AMF Name and pointer (an operator's mistake, or a restart on
   * another host) with addresses of its own (N2, N3, TUN, data-network namespace); resolves once it
   * listens on N2 or has exited (its `exited()`, `output()`). Ended by `stop` as the members are.
   */
  twin(member: AmfSetMember): Promise<AmfSetMember>;
  /** A fresh namespace with loopback up (for a UE's TUN), removed by `stop`. */
  namespace(): Promise<string>;
  /** Ends every process and namespace this set started; the logs to PMN_AMF_SET_LOG when set. */
  stop(): Promise<void>;
}

export interface ApiAnswer {
  status: number;
  body: unknown;
  text: string;
}

/** Polls `done` every 50 ms until it holds; fails after `ms`, with `detail()` in the message. */
export async function until(
  what: string,
  done: () => boolean | Promise<boolean>,
  detail: () => string = () => '',
  ms = 30_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}${detail()}`);
    await sleep(50);
  }
}

/**
 * `POST /api/v1/amf-set/drain` on `member`. The member knows a peer serving from its own heartbeat's read
 * of the set, which may come a heartbeat after the API listed both: until then the drain is refused (409,
 * nobody to take its UEs), so that answer is asked again for up to 10 s.
 */
export async function drain(set: AmfSet, member: AmfSetMember): Promise<ApiAnswer> {
  let answer = await set.api(member, 'POST', '/api/v1/amf-set/drain');
  for (let tries = 0; answer.status === 409 && /no other member/.test(answer.text) && tries < 50; tries++) {
    await sleep(200);
    answer = await set.api(member, 'POST', '/api/v1/amf-set/drain');
  }
  return answer;
}

/** Member `index` of a set, not started: its own name and pointer, or `as`'s. */
function newMember(index: number, dnNamespace: string, as?: AmfSetMember): AmfSetMember {
  return {
    index,
    name: as?.name ?? `amf-${String.fromCharCode(97 + index)}`,
    pointer: as?.pointer ?? index + 1,
    n2Address: address(10 + index),
    n3Address: address(20 + index),
    dnNamespace,
    child: undefined as unknown as ChildProcessWithoutNullStreams,
    base: '',
    output: () => '',
    exited: () => Promise.resolve(),
  };
}

/** Starts the set: the first member alone (it creates the key file and the first admin), then the rest. */
export async function startAmfSet(options: AmfSetOptions): Promise<AmfSet> {
  const dir = mkdtempSync(join(tmpdir(), 'pmn-amf-set-'));
  const keyFile = join(dir, 'core.key');
  const databaseUrl = await freshPostgresDatabase();
  const n2Port = 38412;
  // One UDP encapsulation port for every member (the gNB's udp transport has one peer port), bound
  // to each member's own address: no other process binds these addresses.
  const udpPort = 20000 + (id % 20000);
  const heartbeat = options.heartbeatSeconds ?? 1;
  const lease = options.leaseSeconds ?? 2;
  const namespaces: string[] = [];
  const members: AmfSetMember[] = [];
  const logs: string[] = [];
  const db = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  let token = '';

  const stopAll = async (): Promise<void> => {
    for (const member of members) await end(member);
    await db.end();
    for (const name of namespaces) await run('ip', ['netns', 'del', name]).catch(() => undefined);
    if (process.env.PMN_AMF_SET_LOG) writeFileSync(process.env.PMN_AMF_SET_LOG, logs.join('\n'));
    rmSync(dir, { recursive: true, force: true });
  };

  const end = async (member: AmfSetMember): Promise<void> => {
    const { child } = member;
    // A member whose process never started (a failed start of an earlier one) has nothing to end.
    if ((child as ChildProcessWithoutNullStreams | undefined) === undefined) return;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = member.exited();
    child.kill('SIGCONT');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };

  const api = async (member: AmfSetMember, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${member.base}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token === '' ? {} : { authorization: `Bearer ${token}` }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON (metrics): the text.
    }
    return { status: response.status, body: parsed, text };
  };

  const spawnMember = async (member: AmfSetMember, { mayExit = false } = {}): Promise<void> => {
    const tun = `pmn${options.tag}n${member.index}x${id}`;
    const reach = (await options.databaseUrl?.(member.index, databaseUrl)) ?? databaseUrl;
    const args = [
      ...['--listen', '127.0.0.1:0', '--db', reach, '--secret-key-file', keyFile],
      ...['--n2-transport', 'udp', '--n2-addresses', member.n2Address, '--n2-port', String(n2Port)],
      ...['--n2-udp-port', String(udpPort)],
      ...['--amf-name', member.name, '--amf-pointer', String(member.pointer)],
      ...['--amf-relative-capacity', String(options.capacity?.(member.index) ?? 255)],
      ...['--amf-set-heartbeat-seconds', String(heartbeat), '--amf-set-lease-seconds', String(lease)],
      ...['--n3-address', member.n3Address, '--n6-tun', tun, '--upf-datapath', 'tun'],
      ...(options.args?.(member.index) ?? []),
    ];
    const child = spawnService(args, { nodeFlags: options.nodeFlags?.(member.index) ?? [] });
    let output = '';
    const log = logs.length;
    logs.push('');
    const append = (chunk: Buffer) => {
      output += chunk.toString();
      logs[log] = `--- ${member.name} (pid ${child.pid}) ---\n${output}`;
    };
    child.stdout.on('data', append);
    child.stderr.on('data', append);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    member.child = child;
    member.output = () => output;
    member.exited = () => exited;
    let gone = false;
    void exited.then(() => (gone = true));
    // N2 listens once the UPF has started (its TUN made) and the member has joined the set.
    await until(
      `${member.name} to listen on N2`,
      () => gone || /N2 \(NGAP\) listening on/.test(output),
      () => `\n${output}`,
    );
    if (gone && mayExit) return;
    assert.ok(!gone, `${member.name} exited at start:\n${output}`);
    member.base = /listening on (http:\/\/[^"\s]+)/.exec(output)?.[1] as string;
    // The UPF created its TUN at start; the data network's side of it lives in the member's namespace.
    await placeN6(tun, member.dnNamespace, { ipv4: DN, uePool: UE_POOL });
  };

  const set: AmfSet = {
    members,
    databaseUrl,
    n2Port,
    udpPort,
    get token() {
      return token;
    },
    api,
    async states(member) {
      const answer = await api(member, 'GET', '/api/v1/amf-set');
      assert.equal(answer.status, 200, answer.text);
      const list = (answer.body as { result: { members: { name: string; state: string }[] } }).result.members;
      return Object.fromEntries(list.map((m) => [m.name, m.state]));
    },
    async waitStates(member, expected) {
      let seen: Record<string, string> = {};
      await until(
        `${member.name} to see ${JSON.stringify(expected)}`,
        async () => {
          seen = await set.states(member);
          return Object.entries(expected).every(([name, state]) => seen[name] === state);
        },
        () => ` (seen ${JSON.stringify(seen)})`,
      );
    },
    async metric(member, name) {
      const answer = await api(member, 'GET', '/api/v1/metrics');
      assert.equal(answer.status, 200, answer.text);
      return answer.text.split('\n').filter((line) => line.startsWith(name));
    },
    async sql(query, ...parameters) {
      return (await db.unsafe(query, parameters)) as unknown as never[];
    },
    async restart(member) {
      assert.ok(member.child.exitCode !== null || member.child.signalCode !== null, 'still running');
      await spawnMember(member);
      await set.waitStates(member, { [member.name]: 'serving' });
    },
    async twin(member) {
      const index = members.length;
      const dnNamespace = `pmn${options.tag}d${index}x${id}`;
      await run('ip', ['netns', 'add', dnNamespace]);
      namespaces.push(dnNamespace);
      const twin = newMember(index, dnNamespace, member);
      members.push(twin);
      await spawnMember(twin, { mayExit: true });
      return twin;
    },
    async namespace() {
      const name = `pmn${options.tag}u${namespaces.length}x${id}`;
      await run('ip', ['netns', 'add', name]);
      namespaces.push(name);
      await run('ip', ['-n', name, 'link', 'set', 'lo', 'up']);
      return name;
    },
    stop: stopAll,
  };

  try {
    for (let index = 0; index < options.members; index++) {
      const dnNamespace = `pmn${options.tag}d${index}x${id}`;
      await run('ip', ['netns', 'add', dnNamespace]);
      namespaces.push(dnNamespace);
      members.push(newMember(index, dnNamespace));
    }
    const [first, ...rest] = members;
    assert.ok(first !== undefined, 'an AMF set of at least one member');
    await spawnMember(first);
    const init = await api(first, 'POST', '/api/v1/init', {
      email: 'admin@example.com',
      password: 'admin-password',
    });
    assert.equal(init.status, 201, init.text);
    token = (init.body as { result: { token: string } }).result.token;
    const created = await api(first, 'POST', '/api/v1/users/me/api-tokens', { name: 'amf-set' });
    assert.equal(created.status, 201, created.text);
    token = (created.body as { result: { token: string } }).result.token;
    await Promise.all(rest.map((member) => spawnMember(member)));
    await set.waitStates(first, Object.fromEntries(members.map((m) => [m.name, 'serving'])));
    return set;
  } catch (error) {
    if (process.env.PMN_AMF_SET_LOG === undefined) process.stderr.write(`${logs.join('\n')}\n`);
    await stopAll();
    throw error;
  }
}
