// CPU per message in the SMSF's store on SQLite or PostgreSQL (storage/network-ports/sms-store.ts), apart from NAS and
// N2: the statements one MO -> MT message costs (the sender's SMS data, the recipient by MSISDN, the
// insert, the recipient's queue read, the attempt and the delivered status), run --messages times on a
// fresh database file after 1,000 unmeasured, --concurrency messages at a time (their writes of one turn
// of the event loop share a transaction, as in the service at hundreds of messages a second). CPU is the
// process's (user + system) over the loop: it hardly depends on what else runs; the wall time does.
// --db postgres: a fresh database on the cluster of PMN_TEST_POSTGRES_URL (give it a durable one, as
// deployed: commits wait for their WAL flush), else on a throwaway one (test/helpers/postgres-cluster.ts),
// which runs without fsync; the server's CPU is not counted, the wall time shows its part.
// Run: npx tsx bench/sms-store.ts [--messages N (5000)] [--concurrency N (1)] [--db sqlite|postgres]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { NewSms } from '../src/network/ports/sms-store.ts';
import { createSmsStore, createSmsSubscribers } from '../src/storage/network-ports/sms-store.ts';
import { openStorage } from '../src/storage/storage.ts';
import { freshPostgresDatabase } from '../test/helpers/postgres-test-database.ts';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '1' },
    db: { type: 'string', default: 'sqlite' },
  },
});
const messages = Number(values.messages);
const concurrency = Number(values.concurrency);

if (values.db !== 'sqlite' && values.db !== 'postgres') throw new Error('--db is sqlite or postgres');
const onPostgres = values.db === 'postgres';
const dir = mkdtempSync(join(tmpdir(), 'pmn-sms-store-'));
const storage = await openStorage({
  path: onPostgres ? await freshPostgresDatabase() : join(dir, 'bench.db'),
  poolSize: onPostgres ? 10 : 1,
});
try {
  const store = createSmsStore({ db: storage.db });
  const subscribers = createSmsSubscribers({ db: storage.db });
  const message = (i: number): NewSms => ({
    createdAt: i,
    originatorImsi: '001010000000001',
    originator: { typeOfNumber: 1, value: '15550000001' },
    destinationImsi: `00101${String(i % 1000).padStart(10, '0')}`,
    destinationMsisdn: '15550000002',
    messageReference: 1,
    protocolIdentifier: 0,
    dataCodingScheme: 0,
    userData: { headerIndicator: false, length: 5, bytes: Uint8Array.of(0xe8, 0x32, 0x9b, 0xfd, 0x06) },
    statusReportRequested: false,
    validUntil: 1e13,
  });
  const one = async (i: number): Promise<void> => {
    await subscribers.smsSubscription('001010000000001');
    await subscribers.imsiOf('15550000002');
    const saved = await store.save(message(i));
    const [queued] = await store.queuedFor(saved.destinationImsi!, 8);
    await store.attempted(queued!.id);
    await store.settle(queued!.id, { status: 'delivered', at: i });
  };
  /** `count` messages, `concurrency` of them in flight at a time. */
  const run = async (count: number): Promise<void> => {
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < count) await one(next++);
    };
    await Promise.all(Array.from({ length: concurrency }, lane));
  };
  await run(1000);
  const cpu = process.cpuUsage();
  const start = performance.now();
  await run(messages);
  const used = process.cpuUsage(cpu);
  const wall = performance.now() - start;
  process.stdout.write(
    `SMS store on ${onPostgres ? 'PostgreSQL' : 'SQLite'}, ${messages} messages of six statements, ${concurrency} at a time: ` +
      `${((used.user + used.system) / messages).toFixed(0)} µs CPU a message, ` +
      `${((wall * 1000) / messages).toFixed(0)} µs wall\n`,
  );
} finally {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
}
// The throwaway cluster is stopped at exit (postgres-cluster.ts).
process.exit(0);
