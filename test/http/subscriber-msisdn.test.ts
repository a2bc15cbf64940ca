import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { requestRestore, restoreBackup, takeBackup } from '../helpers/backup.ts';
import { created, errorOf, imsi, newSubscriber, TEST_SET_1 } from '../helpers/network.ts';
import { postgresBinDir } from '../helpers/postgres-cluster.ts';
import { onPostgres } from '../helpers/postgres-test-database.ts';
import { auditEntries, createTestApp, initialize, result, type TestApp } from '../helpers/test-app.ts';
import { undoMigrationsScript } from '../helpers/migration-undo.ts';

/**
 * A subscriber's optional MSISDN (docs/decisions.md 23): E.164 digits (TS 23.003 3.3), a leading "+"
 * accepted and not stored, unique across subscribers (409, also when two writes race), null when none.
 */

let t: TestApp;
let token: string;

/** A fresh app for the enclosing describe, so that each test runs alone. */
function freshApp(options: Parameters<typeof createTestApp>[0] = {}): void {
  before(async () => {
    t = await createTestApp(options);
    token = await initialize(t);
  });
  after(() => t.close());
}

const RULE = 'msisdn must be an E.164 number: 1 to 15 digits, the first not 0, optionally after a "+"';

const create = (n: number, msisdn: unknown) =>
  t.request({ method: 'POST', url: '/api/v1/subscribers', token, payload: newSubscriber(n, { msisdn }) });
const update = (n: number, payload: Record<string, unknown>) =>
  t.request({ method: 'PUT', url: `/api/v1/subscribers/${imsi(n)}`, token, payload });
const msisdnOf = async (n: number): Promise<unknown> => {
  const response = await t.request({ method: 'GET', url: `/api/v1/subscribers/${imsi(n)}`, token });
  assert.equal(response.statusCode, 200, response.body);
  return result(response).msisdn;
};
const list = async (query: string) => {
  const response = await t.request({ method: 'GET', url: `/api/v1/subscribers${query}`, token });
  assert.equal(response.statusCode, 200, response.body);
  return result<{ items: { imsi: string; msisdn: string | null }[]; total_count: number }>(response);
};

describe('POST /api/v1/subscribers: msisdn', () => {
  freshApp();

  it('stores the digits without "+", reads them back in the single read and the list, audits them', async () => {
    assert.equal((await create(1, '+15551234567')).statusCode, 201);
    await created(t, token, '/api/v1/subscribers', newSubscriber(2));
    assert.equal(await msisdnOf(1), '15551234567');
    assert.equal(await msisdnOf(2), null);
    const page = await list('?per_page=100');
    assert.deepEqual(
      page.items.filter((item) => [imsi(1), imsi(2)].includes(item.imsi)).map((item) => item.msisdn),
      ['15551234567', null],
    );
    const entry = (await auditEntries(t, token)).find((e) => e.details.includes(imsi(1)));
    assert.equal(entry?.details, `Subscriber ${imsi(1)} created with profile default and MSISDN 15551234567`);
  });

  it('takes null as none, and the shortest and longest numbers E.164 allows', async () => {
    assert.equal((await create(3, null)).statusCode, 201);
    assert.equal(await msisdnOf(3), null);
    assert.equal((await create(4, '7')).statusCode, 201);
    assert.equal((await create(5, '+123456789012345')).statusCode, 201);
    assert.equal(await msisdnOf(5), '123456789012345');
  });

  const invalid: [string, unknown][] = [
    ['a leading 0 (no country code starts with 0)', '0155512345'],
    ['16 digits', '1234567890123456'],
    ['16 digits after "+"', '+1234567890123456'],
    ['a letter', '1555123456a'],
    ['two "+"', '++15551234567'],
    ['"+" alone', '+'],
    ['an empty string', ''],
    ['a space', '1555 1234567'],
    ['"+" inside', '1555+1234567'],
    ['a number rather than a string', 15551234567],
    ['an object', { number: '15551234567' }],
  ];
  for (const [what, value] of invalid) {
    it(`refuses ${what} with 400 naming the field`, async () => {
      assert.equal(errorOf(await create(10, value), 400), RULE);
    });
  }

  it('refuses (409) an MSISDN another subscriber holds, however it is written, and creates nothing', async () => {
    assert.equal((await create(20, '4930123456')).statusCode, 201);
    const response = await create(21, '+4930123456');
    assert.equal(errorOf(response, 409), `msisdn 4930123456 already belongs to subscriber ${imsi(20)}`);
    const read = await t.request({ method: 'GET', url: `/api/v1/subscribers/${imsi(21)}`, token });
    assert.equal(read.statusCode, 404);
  });

  it('gives one of two concurrent creates with the same MSISDN 201 and the other 409', async () => {
    const [first, second] = await Promise.all([create(30, '33123456789'), create(31, '+33123456789')]);
    assert.deepEqual([first.statusCode, second.statusCode].sort(), [201, 409]);
    const refused = first.statusCode === 409 ? first : second;
    const winner = first.statusCode === 201 ? 30 : 31;
    assert.equal(errorOf(refused, 409), `msisdn 33123456789 already belongs to subscriber ${imsi(winner)}`);
    assert.deepEqual(
      (await list('?msisdn=33123456789')).items.map((item) => item.imsi),
      [imsi(winner)],
    );
  });

  it('still answers a duplicate IMSI as one, whatever its MSISDN', async () => {
    const response = await create(20, '4930999999');
    assert.equal(errorOf(response, 409), `subscriber ${imsi(20)} already exists`);
  });
});

describe('PUT /api/v1/subscribers/{imsi}: msisdn', () => {
  freshApp();
  before(async () => {
    await created(t, token, '/api/v1/subscribers', newSubscriber(1));
    await created(t, token, '/api/v1/subscribers', newSubscriber(2, { msisdn: '15550000002' }));
    await created(t, token, '/api/v1/subscribers', newSubscriber(3));
    await created(t, token, '/api/v1/subscribers', newSubscriber(4));
  });

  it('sets, changes and clears (null) the MSISDN, audited; a PUT without msisdn keeps it', async () => {
    assert.equal((await update(1, { profile_name: 'default', msisdn: '+15550000001' })).statusCode, 200);
    assert.equal(await msisdnOf(1), '15550000001');
    const [set] = await auditEntries(t, token);
    assert.equal(
      set?.details,
      `Subscriber ${imsi(1)} profile changed from default to default, MSISDN changed from none to 15550000001`,
    );
    assert.equal((await update(1, { profile_name: 'default' })).statusCode, 200);
    assert.equal(await msisdnOf(1), '15550000001');
    assert.equal((await update(1, { profile_name: 'default', msisdn: '15550000011' })).statusCode, 200);
    assert.equal(await msisdnOf(1), '15550000011');
    assert.equal((await update(1, { profile_name: 'default', msisdn: null })).statusCode, 200);
    assert.equal(await msisdnOf(1), null);
    const [cleared] = await auditEntries(t, token);
    assert.match(cleared?.details ?? '', /MSISDN changed from 15550000011 to none$/);
  });

  it('lets a subscriber keep its own MSISDN in a PUT', async () => {
    assert.equal((await update(2, { profile_name: 'default', msisdn: '15550000002' })).statusCode, 200);
    assert.equal(await msisdnOf(2), '15550000002');
  });

  it('refuses (409) an MSISDN another subscriber holds, and changes nothing', async () => {
    const response = await update(3, { profile_name: 'default', msisdn: '+15550000002' });
    assert.equal(errorOf(response, 409), `msisdn 15550000002 already belongs to subscriber ${imsi(2)}`);
    assert.equal(await msisdnOf(3), null);
  });

  it('gives one of two concurrent updates to the same MSISDN 200 and the other 409', async () => {
    const [first, second] = await Promise.all([
      update(3, { profile_name: 'default', msisdn: '15550000099' }),
      update(4, { profile_name: 'default', msisdn: '15550000099' }),
    ]);
    assert.deepEqual([first.statusCode, second.statusCode].sort(), [200, 409]);
    const holders = (await list('?msisdn=15550000099')).items.map((item) => item.imsi);
    assert.equal(holders.length, 1);
  });

  it('refuses a malformed MSISDN with 400 naming the field', async () => {
    assert.equal(errorOf(await update(1, { profile_name: 'default', msisdn: '0' }), 400), RULE);
    assert.equal(errorOf(await update(1, { profile_name: 'default', msisdn: 5 }), 400), RULE);
  });
});

describe('GET /api/v1/subscribers?msisdn=', () => {
  freshApp();
  before(async () => {
    await created(t, token, '/api/v1/subscribers', newSubscriber(1, { msisdn: '15550000001' }));
    await created(t, token, '/api/v1/subscribers', newSubscriber(2, { msisdn: '15550000002' }));
  });

  it('answers the one subscriber with that MSISDN, "+" or not', async () => {
    for (const query of ['?msisdn=15550000002', '?msisdn=%2B15550000002']) {
      const page = await list(query);
      assert.deepEqual([page.items.map((item) => item.imsi), page.total_count], [[imsi(2)], 1], query);
    }
  });

  it('gives an empty page for an MSISDN no subscriber holds, and combines with data_network', async () => {
    assert.deepEqual(await list('?msisdn=4912345'), { items: [], page: 1, per_page: 25, total_count: 0 });
    assert.equal((await list('?msisdn=15550000001&data_network=internet')).total_count, 1);
    assert.equal((await list('?msisdn=15550000001&data_network=nowhere')).total_count, 0);
  });

  it('refuses a malformed msisdn with 400 naming the query parameter', async () => {
    const response = await t.request({ method: 'GET', url: '/api/v1/subscribers?msisdn=0123', token });
    assert.equal(errorOf(response, 400), `query parameter ${RULE}`);
  });
});

describe('POST /api/v1/subscribers/import: msisdn', () => {
  freshApp();
  before(async () => {
    await created(t, token, '/api/v1/subscribers', newSubscriber(1, { msisdn: '15550000001' }));
  });
  const importJson = (payload: unknown) =>
    t.request({ method: 'POST', url: '/api/v1/subscribers/import', token, payload: payload as object });
  const importCsv = (payload: string) =>
    t.request({
      method: 'POST',
      url: '/api/v1/subscribers/import',
      token,
      payload,
      headers: { 'content-type': 'text/csv' },
    });

  it('imports the msisdn of JSON rows ("+" dropped, null none)', async () => {
    const response = await importJson([
      newSubscriber(10, { msisdn: '+15550000010' }),
      newSubscriber(11, { msisdn: null }),
      newSubscriber(12),
    ]);
    assert.equal(response.statusCode, 201, response.body);
    assert.deepEqual(
      [await msisdnOf(10), await msisdnOf(11), await msisdnOf(12)],
      ['15550000010', null, null],
    );
  });

  it('imports an msisdn CSV column, an empty cell meaning none', async () => {
    const csv =
      'imsi,key,sequenceNumber,profile_name,msisdn\n' +
      `${imsi(20)},${TEST_SET_1.key},000000000001,default,+15550000020\n` +
      `${imsi(21)},${TEST_SET_1.key},000000000001,default,\n`;
    const response = await importCsv(csv);
    assert.equal(response.statusCode, 201, response.body);
    assert.deepEqual([await msisdnOf(20), await msisdnOf(21)], ['15550000020', null]);
  });

  it('refuses (400) malformed and repeated MSISDNs, listing each row, and imports none', async () => {
    const response = await importJson([
      newSubscriber(30, { msisdn: '15550000030' }),
      newSubscriber(31, { msisdn: '015550000031' }),
      newSubscriber(32, { msisdn: '+15550000030' }),
      newSubscriber(33, { msisdn: '15550000001' }),
    ]);
    assert.equal(
      errorOf(response, 400),
      '3 of 4 rows cannot be imported, so none was: ' +
        `row 2: ${RULE}; ` +
        'row 3: msisdn 15550000030 repeats row 1; ' +
        `row 4: msisdn 15550000001 already belongs to subscriber ${imsi(1)}`,
    );
    const read = await t.request({ method: 'GET', url: `/api/v1/subscribers/${imsi(30)}`, token });
    assert.equal(read.statusCode, 404);
  });

  it('answers 409 when the only fault is an MSISDN a subscriber already holds', async () => {
    const response = await importJson([newSubscriber(40), newSubscriber(41, { msisdn: '+15550000001' })]);
    assert.equal(
      errorOf(response, 409),
      `1 of 2 rows cannot be imported, so none was: row 2: msisdn 15550000001 already belongs to subscriber ${imsi(1)}`,
    );
  });
});

describe('POST /api/v1/restore: msisdn', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pmn-msisdn-'));
  freshApp({ database: join(dir, 'core.db') });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A backup taken now, edited by `edit` with SQLite. */
  async function editedBackup(name: string, edit: (database: SQLite.Database) => void): Promise<Buffer> {
    const path = join(dir, name);
    writeFileSync(path, await takeBackup(t, token));
    const database = new SQLite(path);
    edit(database);
    database.close();
    return readFileSync(path);
  }

  it('carries the MSISDNs: a restore brings them back', async () => {
    await created(t, token, '/api/v1/subscribers', newSubscriber(1, { msisdn: '15550000001' }));
    const backup = await takeBackup(t, token);
    assert.equal((await update(1, { profile_name: 'default', msisdn: null })).statusCode, 200);
    await restoreBackup(t, token, backup);
    assert.equal(await msisdnOf(1), '15550000001');
  });

  it('refuses a backup holding an MSISDN the API would not have stored', async () => {
    for (const stored of ['+15550000001', '0155', 'abc', '1234567890123456']) {
      const bytes = await editedBackup('crafted.db', (database) =>
        database.prepare('UPDATE subscribers SET msisdn = ? WHERE imsi = ?').run(stored, imsi(1)),
      );
      const response = await requestRestore(t, token, bytes);
      assert.match(errorOf(response, 400), /subscribers.*msisdn.*is not a value the service accepts/, stored);
    }
    assert.equal(await msisdnOf(1), '15550000001');
  });

  it('migrates a backup taken before subscribers had an MSISDN: none has one, and one can be set', async () => {
    const undo = await undoMigrationsScript('0014');
    const bytes = await editedBackup('before-0014.db', (database) => database.exec(undo));
    await restoreBackup(t, token, bytes);
    assert.equal(await msisdnOf(1), null);
    assert.equal((await update(1, { profile_name: 'default', msisdn: '15550000001' })).statusCode, 200);
    assert.equal(await msisdnOf(1), '15550000001');
  });
});

// Only PostgreSQL runs two writes at once; SQLite's one connection orders them, so the checks see all.
const skipRace = !onPostgres
  ? 'a PostgreSQL test: npm run test:postgres'
  : !postgresBinDir() && !process.env.PMN_TEST_POSTGRES_URL && 'no PostgreSQL server installed';

describe('msisdn: a write racing another transaction that gives the number away', { skip: skipRace }, () => {
  freshApp();
  before(async () => {
    for (const n of [1, 2, 3]) await created(t, token, '/api/v1/subscribers', newSubscriber(n));
  });

  /**
   * Runs `request` while another transaction has given subscriber 1 the MSISDN `msisdn` and not yet
   * committed: the request's check does not see it, its transaction waits, fails once the other commits
   * (SERIALIZABLE), and runs again, when its check does see it.
   */
  async function racing<T>(msisdn: string, request: () => Promise<T>): Promise<T> {
    let release = (): void => {};
    const released = new Promise<void>((done) => (release = done));
    let written = (): void => {};
    const isWritten = new Promise<void>((done) => (written = done));
    const holder = t.db.transaction().execute(async (trx) => {
      await trx.updateTable('subscribers').set({ msisdn }).where('imsi', '=', imsi(1)).execute();
      written();
      await released;
    });
    await isWritten;
    const pending = request();
    // Until the request waits for the holder's lock (a condition, not a time).
    for (;;) {
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(t.db);
      if ((rows[0]?.n ?? 0) > 0) break;
      await new Promise((done) => setImmediate(done));
    }
    release();
    await holder;
    return pending;
  }

  it('answers a create 409 naming the holder', async () => {
    const response = await racing('15557770001', () => create(4, '15557770001'));
    assert.equal(errorOf(response, 409), `msisdn 15557770001 already belongs to subscriber ${imsi(1)}`);
    const read = await t.request({ method: 'GET', url: `/api/v1/subscribers/${imsi(4)}`, token });
    assert.equal(read.statusCode, 404);
  });

  it('answers an update 409 naming the holder', async () => {
    const response = await racing('15557770002', () =>
      update(2, { profile_name: 'default', msisdn: '15557770002' }),
    );
    assert.equal(errorOf(response, 409), `msisdn 15557770002 already belongs to subscriber ${imsi(1)}`);
    assert.equal(await msisdnOf(2), null);
  });
});

describe(
  'msisdn: the unique index refuses what the checks could not see',
  { skip: onPostgres && 'SQLite triggers' },
  () => {
    freshApp();
    before(async () => {
      for (const n of [1, 2]) await created(t, token, '/api/v1/subscribers', newSubscriber(n));
      // Stands for another process writing the database: as subscriber 2's write runs, after its checks,
      // subscriber 1 takes the number in the same statement.
      await sql`CREATE TRIGGER take_msisdn_on_update BEFORE UPDATE OF msisdn ON subscribers
      WHEN NEW.msisdn = '15556660001' AND NEW.imsi <> ${sql.lit(imsi(1))}
      BEGIN UPDATE subscribers SET msisdn = NEW.msisdn WHERE imsi = ${sql.lit(imsi(1))}; END`.execute(t.db);
      await sql`CREATE TRIGGER take_msisdn_on_insert BEFORE INSERT ON subscribers
      WHEN NEW.msisdn = '15556660002'
      BEGIN UPDATE subscribers SET msisdn = NEW.msisdn WHERE imsi = ${sql.lit(imsi(1))}; END`.execute(t.db);
    });

    it('answers an update 409 naming the field, not 500', async () => {
      const response = await update(2, { profile_name: 'default', msisdn: '15556660001' });
      assert.equal(errorOf(response, 409), 'msisdn 15556660001 already belongs to another subscriber');
      assert.deepEqual([await msisdnOf(1), await msisdnOf(2)], [null, null]);
    });

    it('answers a create 409 naming both unique values', async () => {
      const response = await create(3, '15556660002');
      assert.equal(errorOf(response, 409), `subscriber ${imsi(3)} or msisdn 15556660002 already exists`);
      assert.equal(await msisdnOf(1), null);
    });
  },
);
