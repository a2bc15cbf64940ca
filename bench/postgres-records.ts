/**
 * How the records writer should put rows into PostgreSQL, measured on the service's own schema (flow
 * reports: 13 columns and their five indexes, the table that takes the most rows) in one throwaway
 * cluster (test/helpers/postgres-cluster.ts):
 * `npx tsx bench/postgres-records.ts [--batches N] [--rounds N]`.
 *
 * Each way writes batches of 2,000 reports (the records writer's batch), one transaction per batch on
 * one connection, as the writer does:
 * - `32-row statements`: prepared multi-row INSERTs of 32 rows, sent together (the writer before COPY);
 * - `500-row statements`: the same with 500 rows a statement (6,500 parameters);
 * - `unnest arrays`: one INSERT ... SELECT FROM unnest() with one array parameter per column;
 * - `COPY`: COPY ... FROM STDIN in text format (src/storage/postgres-copy.ts).
 * The ways alternate batch by batch and round by round, so a change of the machine's load reaches all;
 * reported: rows a second, the median of the rounds, and each way against the 32-row statements.
 */
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { readFileSync } from 'node:fs';
import { dayPartition } from '../src/storage/migrations/0017-flow-report-partitions.ts';
import { copyText } from '../src/storage/postgres-copy.ts';
import { openStorage } from '../src/storage/storage.ts';
import { startPostgresCluster } from '../test/helpers/postgres-cluster.ts';

const { values } = parseArgs({
  options: { batches: { type: 'string', default: '20' }, rounds: { type: 'string', default: '3' } },
});
const BATCHES = Number(values.batches);
const ROUNDS = Number(values.rounds);
const BATCH = 2000;

const COLUMNS = [
  'bucket',
  'subscriber_id',
  'source_ip',
  'destination_ip',
  'source_port',
  'destination_port',
  'protocol',
  'packets',
  'bytes',
  'start_time',
  'end_time',
  'direction',
  'action',
] as const;
const TYPES = [
  'bigint',
  'text',
  'text',
  'text',
  'int',
  'int',
  'int',
  'bigint',
  'bigint',
  'bigint',
  'bigint',
  'text',
  'text',
];

let sequence = 0;
function batch(): unknown[][] {
  const now = Date.now();
  return Array.from({ length: BATCH }, () => {
    const i = sequence++;
    return [
      Math.floor(i / 8192),
      `00101${String(i % 10_000).padStart(10, '0')}`,
      `10.45.${(i >> 8) & 255}.${i & 255}`,
      `93.184.${(i * 7) & 255}.${(i * 13) & 255}`,
      1024 + (i % 50_000),
      i % 3 === 0 ? 53 : 443,
      i % 3 === 0 ? 17 : 6,
      1 + (i % 40),
      100 + (i % 60_000),
      now - 1000,
      now,
      i % 2 === 0 ? 'uplink' : 'downlink',
      'allow',
    ];
  });
}

type Way = (sql: postgres.ReservedSql, rows: unknown[][]) => Promise<void>;

function statements(size: number): Way {
  const text = (count: number) =>
    `insert into flow_reports (${COLUMNS.join(', ')}) values ${Array.from(
      { length: count },
      (_, r) => `(${COLUMNS.map((_, c) => `$${r * COLUMNS.length + c + 1}`).join(', ')})`,
    ).join(', ')}`;
  const full = text(size);
  return async (sql, rows) => {
    const sent: Promise<unknown>[] = [];
    let at = 0;
    for (; at + size <= rows.length; at += size)
      sent.push(sql.unsafe(full, rows.slice(at, at + size).flat() as never[], { prepare: true }));
    if (at < rows.length) {
      const rest = rows.slice(at);
      sent.push(sql.unsafe(text(rest.length), rest.flat() as never[], { prepare: true }));
    }
    await Promise.all(sent);
  };
}

const unnest: Way = async (sql, rows) => {
  const text = `insert into flow_reports (${COLUMNS.join(', ')}) select * from unnest(${TYPES.map(
    (type, c) => `$${c + 1}::${type}[]`,
  ).join(', ')})`;
  const arrays = COLUMNS.map((_, c) => rows.map((row) => row[c]));
  await sql.unsafe(text, arrays as never[], { prepare: true });
};

const copy: Way = async (sql, rows) => {
  const stream = await sql.unsafe(`copy flow_reports (${COLUMNS.join(', ')}) from stdin`).writable();
  await new Promise<void>((resolve, reject) => {
    stream.on('error', reject);
    stream.on('finish', resolve);
    stream.end(copyText(rows));
  });
};

async function main(): Promise<void> {
  const cluster = await startPostgresCluster();
  try {
    cluster.psql('CREATE DATABASE bench');
    const storage = await openStorage({ path: cluster.url('bench'), poolSize: 1 });
    await storage.close();
    const client = postgres(cluster.url('bench'), { max: 1, onnotice: () => {} });
    const reserved = await client.reserve();
    // Reports go into their UTC day's partition (migration 0017), made as the records writer makes it.
    const day = Date.now() - (Date.now() % 86_400_000);
    for (const from of [day - 86_400_000, day, day + 86_400_000])
      await reserved.unsafe(
        `create table if not exists ${dayPartition(from)} partition of flow_reports for values from (${from}) to (${from + 86_400_000})`,
      );
    const [backend] = await reserved.unsafe<{ pid: number }[]>('select pg_backend_pid() as pid');
    // CPU seconds of this process and of the server's backend (utime + stime of /proc/<pid>/stat).
    const ticks = (pid: number) => {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      return (Number(fields[11]) + Number(fields[12])) / 100;
    };
    const cpu = () => ({ node: process.cpuUsage(), server: ticks(backend?.pid ?? 0) });
    const ways: [string, Way][] = [
      ['32-row statements', statements(32)],
      ['500-row statements', statements(500)],
      ['unnest arrays', unnest],
      ['COPY', copy],
    ];
    const seconds = new Map<string, number[]>();
    const clientCpu = new Map<string, number>();
    const serverCpu = new Map<string, number>();
    for (let round = 0; round < ROUNDS; round += 1) {
      const spent = new Map<string, number>();
      for (let b = 0; b < BATCHES; b += 1) {
        for (const [name, way] of ways) {
          const rows = batch();
          const start = performance.now();
          const before = cpu();
          await reserved.unsafe('begin');
          await way(reserved, rows);
          await reserved.unsafe('commit');
          spent.set(name, (spent.get(name) ?? 0) + (performance.now() - start) / 1000);
          const after = cpu();
          const used = process.cpuUsage(before.node);
          clientCpu.set(name, (clientCpu.get(name) ?? 0) + (used.user + used.system) / 1e6);
          serverCpu.set(name, (serverCpu.get(name) ?? 0) + after.server - before.server);
        }
      }
      for (const [name, time] of spent) seconds.set(name, [...(seconds.get(name) ?? []), time]);
    }
    const [counted] = await reserved.unsafe<{ count: number }[]>(
      'select count(*)::int as count from flow_reports',
    );
    const count = counted?.count ?? 0;
    reserved.release();
    await client.end();
    const median = (list: number[]) => [...list].sort((x, y) => x - y)[Math.floor(list.length / 2)] ?? 0;
    const rate = (name: string) => (BATCHES * BATCH) / median(seconds.get(name) ?? []);
    const base = rate('32-row statements');
    const lines = [
      `flow reports into PostgreSQL, ${BATCHES} batches of ${BATCH} a way a round, median of ${ROUNDS} rounds (${count} rows at the end)`,
      `${'way'.padEnd(20)} ${'rows/s'.padStart(9)} ${'ratio'.padStart(6)} ${'client µs/row'.padStart(14)} ${'server µs/row'.padStart(14)}`,
      ...ways.map(([name]) => {
        const perRow = (cpu: Map<string, number>) =>
          (((cpu.get(name) ?? 0) / (ROUNDS * BATCHES * BATCH)) * 1e6).toFixed(1).padStart(14);
        return `${name.padEnd(20)} ${rate(name).toFixed(0).padStart(9)} ${(rate(name) / base).toFixed(2).padStart(6)} ${perRow(clientCpu)} ${perRow(serverCpu)}`;
      }),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    cluster.stop();
  }
}

await main();
