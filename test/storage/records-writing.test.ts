import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { createLogRecordsService } from '../../src/records/log-records.service.ts';
import type { RecordRows } from '../../src/records/ingestion.ts';
import { flowReportRow, radioLogRow } from '../../src/records/record-inputs.ts';
import { createRecordRepositories, createRecordStore } from '../../src/records/record-store.ts';
import { createRecordsPipeline, type RecordsPipeline } from '../../src/records/records-pipeline.ts';
import type { AuditLogService } from '../../src/resources/audit-logs/audit-logs.service.ts';
import { openStorage, type Storage } from '../../src/storage/storage.ts';
import { freshPostgresDatabase, onPostgres } from '../helpers/postgres-test-database.ts';

/** A fresh PostgreSQL database whose storage notes the text of every statement it sends. */
async function loggedPostgres(): Promise<{ statements: string[]; logged: Storage }> {
  const statements: string[] = [];
  const logged = await openStorage({
    path: await freshPostgresDatabase(),
    log: (event) => {
      if (event.level === 'query') statements.push(event.query.sql);
    },
  });
  return { statements, logged };
}

/**
 * The records pipeline against the test run's database (PostgreSQL with PMN_TEST_DB=postgres, else an
 * in-memory SQLite): what goes in comes back out, value for value.
 */
describe(`records written on ${onPostgres ? 'PostgreSQL' : 'SQLite'}`, () => {
  let storage: Storage;
  let now = 1_001_542.75;
  let pipeline: RecordsPipeline;
  before(async () => {
    storage = await openStorage({ path: onPostgres ? await freshPostgresDatabase() : ':memory:' });
    pipeline = createRecordsPipeline({
      db: storage.db,
      clock: { now: () => now },
      logger: pino({ level: 'silent' }),
    });
  });
  after(async () => {
    await pipeline.ingestion.close();
    await storage.close();
  });

  it('stores a record timed by a clock with a fraction of a millisecond, in whole milliseconds', async () => {
    // A manual clock moved by SCTP's jittered timers has fractions; PostgreSQL's bigint refused one, and
    // the records writer then lost the whole batch it was in.
    now = 1_001_542.75;
    pipeline.ingestion.recordRadioLog({
      ranId: '001:01:00000a',
      event: 'SCTP Association Down',
      direction: 'inbound',
      raw: new Uint8Array(),
    });
    pipeline.ingestion.recordSubscriberLog({
      imsi: '001010000000001',
      event: 'Registration accept',
      direction: 'outbound',
      raw: new Uint8Array([1]),
    });
    await pipeline.ingestion.flush();
    const radio = await pipeline.repositories.radioLogs.list({}, 10, 0);
    const subscriber = await pipeline.repositories.subscriberLogs.list({}, 10, 0);
    assert.deepEqual(
      [...radio, ...subscriber].map((log) => log.timestamp),
      [1_001_542, 1_001_542],
    );
  });

  // SQLite has one connection: a pool's reads and writes at once are PostgreSQL's.
  const pool = onPostgres ? {} : { skip: 'on PostgreSQL: a pool of connections' };
  it(
    'lists a page and counts its total at one moment, whatever commits between the two reads',
    pool,
    async () => {
      const radioLogs = pipeline.repositories.radioLogs;
      const record = () =>
        pipeline.ingestion.recordRadioLog({
          ranId: '001:01:00000b',
          event: 'NG Setup',
          direction: 'inbound',
          raw: new Uint8Array(),
        });
      record();
      await pipeline.ingestion.flush();
      // A record committed after the list was read and before the count is: the service must not see it.
      let listed!: () => void;
      const afterList = new Promise<void>((resolve) => (listed = resolve));
      const service = createLogRecordsService(
        {
          db: storage.db,
          audit: {} as AuditLogService,
          flushRecords: () => pipeline.ingestion.flush(),
          repository: {
            ...radioLogs,
            async list(
              filter: Parameters<RecordsPipeline['repositories']['radioLogs']['list']>[0],
              limit: number,
              offset: number,
            ) {
              const items = await radioLogs.list(filter, limit, offset);
              record();
              await pipeline.ingestion.flush();
              listed();
              return items;
            },
            async count(filter: Parameters<RecordsPipeline['repositories']['radioLogs']['list']>[0]) {
              await afterList;
              return radioLogs.count(filter);
            },
          },
        },
        { action: 'clear_radio_logs', records: 'radio logs' },
      );
      const page = await service.list({ ranId: '001:01:00000b' }, 100, 0);
      assert.equal(page.total, page.items.length);
      assert.equal((await service.list({ ranId: '001:01:00000b' }, 100, 0)).total, 2);
    },
  );

  it('stores one batch at a time, so ids commit in order', pool, async () => {
    // Transactions of the records writer at once, seen through the database it is given.
    let open = 0;
    let most = 0;
    const counted = new Proxy(storage.db, {
      get(target, property) {
        if (property !== 'transaction') {
          // Kysely's members are private (#props): its methods run on the database itself.
          const value = Reflect.get(target, property, target) as unknown;
          return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
        }
        return () => {
          const builder = target.transaction();
          return {
            execute: async (callback: Parameters<typeof builder.execute>[0]) => {
              open += 1;
              most = Math.max(most, open);
              try {
                return await builder.execute(callback);
              } finally {
                open -= 1;
              }
            },
          };
        };
      },
    });
    const writer = createRecordsPipeline({
      db: counted,
      clock: { now: () => 1_000 },
      logger: pino({ level: 'silent' }),
      writerOptions: { batchSize: 2 },
    });
    const log = {
      ranId: '001:01:00000c',
      event: 'NG Setup',
      direction: 'inbound',
      raw: new Uint8Array(),
    } as const;
    // Two full batches wait: the writer hands both to the store at once (batching-writer.ts).
    for (let i = 0; i < 6; i += 1) writer.ingestion.recordRadioLog(log);
    await writer.ingestion.close();
    assert.equal(most, 1);
    const ids = (await writer.repositories.radioLogs.list({ ranId: '001:01:00000c' }, 10, 0)).map(
      (r) => r.id,
    );
    assert.equal(ids.length, 6);
  });

  it(
    'reads in a batch only what its kinds need: the last flow report id once, for flow reports only',
    { skip: onPostgres ? false : 'SQLite runs a row query when it is called, not as the transaction begins' },
    async () => {
      // PostgreSQL reads a batch's row queries as its transaction begins (row-statement.ts): every one ever
      // made on the database was read for every batch, and once per repository that made it.
      const { statements, logged } = await loggedPostgres();
      // The store the records writer runs (its thread's or the service's), over repositories made twice.
      createRecordRepositories(logged.db);
      const store = createRecordStore(logged.db, createRecordRepositories(logged.db));
      statements.length = 0; // the migrations' own
      const lastIdReads = () => statements.filter((text) => /max\("id"\).*"flow_reports"/.test(text)).length;
      try {
        const log = radioLogRow(
          { ranId: '001:01:00000d', event: 'NG Setup', direction: 'inbound', raw: new Uint8Array() },
          1_000,
        );
        await store(new Map([['radio_logs', [log]]]));
        assert.equal(lastIdReads(), 0, `a batch of radio logs sent:\n${statements.join('\n')}`);
        const report = flowReportRow({
          subscriberId: '001010000000003',
          sourceIp: '10.45.0.3',
          destinationIp: '10.0.0.1',
          sourcePort: 1,
          destinationPort: 2,
          protocol: 17,
          packets: 1,
          bytes: 10,
          startTime: 1_000,
          endTime: 1_000,
          direction: 'uplink',
          action: 'allow',
        });
        await store(
          new Map<keyof RecordRows, RecordRows[keyof RecordRows][]>([
            ['radio_logs', [log]],
            ['flow_reports', [report]],
          ]),
        );
        assert.equal(lastIdReads(), 1, `a batch with one flow report sent:\n${statements.join('\n')}`);
      } finally {
        await logged.close();
      }
    },
  );

  it(
    "writes the batches of a PostgreSQL database on a connection of the writer thread, not the service's",
    { skip: onPostgres ? false : "in memory, SQLite has the service's connection only" },
    async () => {
      // The rows are built and sent beside the service's thread, as on an SQLite file
      // (records-writer-thread.test.ts); the service's own connection sends none of them.
      const { statements, logged } = await loggedPostgres();
      const writer = createRecordsPipeline({
        db: logged.db,
        clock: { now: () => 1_000 },
        logger: pino({ level: 'silent' }),
      });
      try {
        statements.length = 0; // the migrations' own
        writer.ingestion.recordRadioLog({
          ranId: '001:01:00000e',
          event: 'NG Setup',
          direction: 'inbound',
          raw: new Uint8Array(),
        });
        await writer.ingestion.flush();
        const written = statements.filter((text) => /^(copy|insert)/i.test(text));
        assert.deepEqual(written, [], "the service's connection wrote the batch");
        const listed = await writer.repositories.radioLogs.list({ ranId: '001:01:00000e' }, 10, 0);
        assert.equal(listed.length, 1);
      } finally {
        await writer.ingestion.close();
        await logged.close();
      }
    },
  );

  it(
    "adds a batch's daily counts with one statement a table, however many destinations it holds",
    { skip: onPostgres ? false : 'SQLite runs prepared 32-row statements in its own process' },
    async () => {
      // On PostgreSQL each statement is a message to the server and a plan to run: 32 rows a statement
      // made a batch of reports to many destinations dozens of upserts.
      const { statements, logged } = await loggedPostgres();
      const store = createRecordStore(logged.db, createRecordRepositories(logged.db));
      try {
        const reports = Array.from({ length: 100 }, (_, n) =>
          flowReportRow({
            subscriberId: '001010000000004',
            sourceIp: '10.45.0.4',
            destinationIp: `10.1.0.${n}`,
            sourcePort: 1,
            destinationPort: 2,
            protocol: 6 + (n % 2) * 11,
            packets: 1,
            bytes: 10,
            startTime: 1_000,
            endTime: 1_000 + (n % 2) * 86_400_000,
            direction: 'uplink',
            action: 'allow',
          }),
        );
        statements.length = 0; // the migrations' own
        await store(new Map([['flow_reports', reports]]));
        const upserts = statements.filter((text) => /^insert into "flow_report_daily/.test(text));
        assert.equal(upserts.length, 2, upserts.join('\n'));
        const byDestination = await logged.db
          .selectFrom('flow_report_daily_uplink_destinations')
          .select(['day', 'destination_ip', 'reports'])
          .orderBy('destination_ip')
          .execute();
        assert.equal(byDestination.length, 100);
        assert.deepEqual(byDestination[0], { day: 0, destination_ip: '10.1.0.0', reports: 1 });
        await store(new Map([['flow_reports', reports.slice(0, 3)]]));
        const byProtocol = await logged.db
          .selectFrom('flow_report_daily_protocols')
          .select(['day', 'protocol', 'reports'])
          .orderBy('day')
          .execute();
        assert.deepEqual(byProtocol, [
          { day: 0, protocol: 6, reports: 52 },
          { day: 86_400_000, protocol: 17, reports: 51 },
        ]);
      } finally {
        await logged.close();
      }
    },
  );

  it('gives back every value as written: tabs, line ends and backslashes in text, every byte, no imsi', async () => {
    // On PostgreSQL the rows go in with COPY's text format, which escapes these (postgres-copy.ts).
    const raw = new Uint8Array([0x00, 0x09, 0x0a, 0x0d, 0x5c, 0x4e, 0xff]);
    const awkward = 'tab\there\nnew line\r\\N back\\slash \u00e9';
    pipeline.ingestion.recordRadioEvent({
      protocol: 'NGAP',
      messageType: 'NGSetupRequest',
      direction: 'inbound',
      raw,
      details: { text: awkward },
      timestamp: 5_000,
    });
    pipeline.ingestion.recordSubscriberLog({
      imsi: '001010000000002',
      event: awkward,
      direction: 'outbound',
      raw,
      timestamp: 5_001,
    });
    const report = {
      subscriberId: '001010000000002',
      sourceIp: '10.45.0.2',
      destinationIp: '2001:db8::1',
      sourcePort: 40_000,
      destinationPort: 443,
      protocol: 6,
      packets: 3,
      bytes: 2 ** 40,
      startTime: 5_000,
      endTime: 5_002,
      direction: 'uplink',
      action: 'drop',
    } as const;
    pipeline.ingestion.recordFlowReports([report, { ...report, sourcePort: 40_001 }]);
    await pipeline.ingestion.flush();
    const { radioEvents, subscriberLogs, flowReports } = pipeline.repositories;
    const [event] = await radioEvents.list({ messageType: 'NGSetupRequest' }, 10, 0);
    assert.deepEqual([event?.raw, JSON.parse(event?.details ?? '{}')], [Buffer.from(raw), { text: awkward }]);
    assert.equal((await radioEvents.findMessage(event?.id ?? 0))?.raw.equals(raw), true);
    const [log] = await subscriberLogs.list({ imsi: '001010000000002' }, 10, 0);
    assert.deepEqual([log?.event, log?.raw], [awkward, Buffer.from(raw)]);
    const reports = await flowReports.list(
      { subscriberId: '001010000000002', from: 0, before: 10_000 },
      10,
      0,
    );
    assert.deepEqual(
      reports.map(({ id: _, ...rest }) => rest),
      [
        { ...report, sourcePort: 40_001 },
        { ...report, sourcePort: 40_000 },
      ],
    );
  });
});
