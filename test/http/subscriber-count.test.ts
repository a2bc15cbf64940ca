import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { restoreBackup, takeBackup } from '../helpers/backup.ts';
import { imsi, newPolicy, newProfile, newSubscriber } from '../helpers/network.ts';
import { createTestApp, initialize, result, type TestApp } from '../helpers/test-app.ts';
import { undoMigrationsScript } from '../helpers/migration-undo.ts';

// The list's total_count comes from a count kept by triggers (migration 0008), not from counting the
// rows on every page: it must equal COUNT(*) whatever changed the table.
async function totalCount(t: TestApp, token: string): Promise<number> {
  const response = await t.request({ method: 'GET', url: '/api/v1/subscribers?per_page=1', token });
  return result<{ total_count: number }>(response).total_count;
}

async function rowCount(t: TestApp): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM subscribers`.execute(t.db);
  return Number(rows[0]?.n);
}

async function assertExact(t: TestApp, token: string, expected: number): Promise<void> {
  assert.equal(await rowCount(t), expected, 'rows in the table');
  assert.equal(await totalCount(t, token), expected, 'total_count of the list');
}

describe('GET /api/v1/subscribers: total_count', () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await createTestApp();
    token = await initialize(t);
  });
  after(() => t.close());

  it('counts creates, deletes, imports and a refused import exactly', async () => {
    await assertExact(t, token, 0);
    for (const n of [1, 2, 3]) {
      const response = await t.request({
        method: 'POST',
        url: '/api/v1/subscribers',
        token,
        payload: newSubscriber(n),
      });
      assert.equal(response.statusCode, 201, response.body);
    }
    await assertExact(t, token, 3);
    const imported = await t.request({
      method: 'POST',
      url: '/api/v1/subscribers/import',
      token,
      payload: Array.from({ length: 50 }, (_, i) => newSubscriber(100 + i)),
    });
    assert.equal(imported.statusCode, 201, imported.body);
    await assertExact(t, token, 53);
    // One row repeats an existing IMSI: the import is refused whole and counts nothing.
    const refused = await t.request({
      method: 'POST',
      url: '/api/v1/subscribers/import',
      token,
      payload: [newSubscriber(500), newSubscriber(1)],
    });
    assert.equal(refused.statusCode, 409, refused.body);
    await assertExact(t, token, 53);
    const deleted = await t.request({ method: 'DELETE', url: `/api/v1/subscribers/${imsi(2)}`, token });
    assert.equal(deleted.statusCode, 200);
    const missing = await t.request({ method: 'DELETE', url: `/api/v1/subscribers/${imsi(2)}`, token });
    assert.equal(missing.statusCode, 404);
    await assertExact(t, token, 52);
  });

  it('stays exact under concurrent creates and deletes', async () => {
    const existing = await t.request({
      method: 'POST',
      url: '/api/v1/subscribers/import',
      token,
      payload: Array.from({ length: 20 }, (_, i) => newSubscriber(2000 + i)),
    });
    assert.equal(existing.statusCode, 201, existing.body);
    const before = await rowCount(t);
    const creates = Array.from({ length: 40 }, (_, i) =>
      t.request({ method: 'POST', url: '/api/v1/subscribers', token, payload: newSubscriber(1000 + i) }),
    );
    const deletes = Array.from({ length: 20 }, (_, i) =>
      t.request({ method: 'DELETE', url: `/api/v1/subscribers/${imsi(2000 + i)}`, token }),
    );
    const answers = await Promise.all([...creates, ...deletes]);
    for (const answer of answers) assert.ok(answer.statusCode < 300, answer.body);
    await assertExact(t, token, before + 40 - 20);
  });

  it('follows rows written by SQL directly', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/api/v1/subscribers',
      token,
      payload: newSubscriber(3000),
    });
    assert.equal(response.statusCode, 201, response.body);
    const before = await rowCount(t);
    await t.db.deleteFrom('subscribers').where('imsi', '=', imsi(3000)).execute();
    await assertExact(t, token, before - 1);
  });
});

describe('POST /api/v1/restore: the kept subscriber count', () => {
  let dir: string;
  let t: TestApp;
  let token: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pmn-subscriber-count-'));
    t = await createTestApp({ database: join(dir, 'core.db') });
    token = await initialize(t);
    const response = await t.request({
      method: 'POST',
      url: '/api/v1/subscribers/import',
      token,
      payload: Array.from({ length: 30 }, (_, i) => newSubscriber(i)),
    });
    assert.equal(response.statusCode, 201, response.body);
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A backup of the service, edited with `edit` on a copy. */
  async function editedBackup(edit: (database: SQLite.Database) => void): Promise<Buffer> {
    const path = join(dir, `edited-${Date.now()}.db`);
    writeFileSync(path, await takeBackup(t, token));
    const database = new SQLite(path);
    edit(database);
    database.close();
    return readFileSync(path);
  }

  it('recounts a count edited in the backup', async () => {
    const bytes = await editedBackup((database) => {
      database.prepare('DELETE FROM subscribers WHERE imsi = ?').run(imsi(0));
      database.prepare('UPDATE subscriber_count SET total = 1000000').run();
    });
    await restoreBackup(t, token, bytes);
    await assertExact(t, token, 29);
  });

  it('recounts a backup whose count row was deleted', async () => {
    const before = await rowCount(t);
    const bytes = await editedBackup((database) => database.prepare('DELETE FROM subscriber_count').run());
    await restoreBackup(t, token, bytes);
    await assertExact(t, token, before);
  });

  it('counts the subscribers of a backup taken before the counts were kept', async () => {
    const before = await rowCount(t);
    const undo = await undoMigrationsScript('0008');
    const bytes = await editedBackup((database) => {
      database.exec(undo);
      database.prepare('DELETE FROM subscribers WHERE imsi = ?').run(imsi(1));
    });
    await restoreBackup(t, token, bytes);
    await assertExact(t, token, before - 1);
    assert.equal(await totalReaching(t, token, 'internet'), before - 1);
  });

  it('recounts a count by profile edited in the backup', async () => {
    const before = await rowCount(t);
    const bytes = await editedBackup((database) =>
      database.prepare('UPDATE subscriber_count_by_profile SET total = 7').run(),
    );
    await restoreBackup(t, token, bytes);
    assert.equal(await totalReaching(t, token, 'internet'), before);
  });
});

/** total_count of the list filtered by data network. */
async function totalReaching(t: TestApp, token: string, dataNetwork: string): Promise<number> {
  const response = await t.request({
    method: 'GET',
    url: `/api/v1/subscribers?per_page=1&data_network=${dataNetwork}`,
    token,
  });
  return result<{ total_count: number }>(response).total_count;
}

describe('GET /api/v1/subscribers?data_network=: total_count from the counts by profile', () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await createTestApp();
    token = await initialize(t);
    const gold = await t.request({
      method: 'POST',
      url: '/api/v1/profiles',
      token,
      payload: newProfile('gold'),
    });
    assert.equal(gold.statusCode, 201, gold.body);
    const corp = await t.request({
      method: 'POST',
      url: '/api/v1/networking/data-networks',
      token,
      payload: { name: 'corp' },
    });
    assert.equal(corp.statusCode, 201, corp.body);
    // corp is reached by profile gold only; internet (the first-start policy) by profile default only.
    const policy = await t.request({
      method: 'POST',
      url: '/api/v1/policies',
      token,
      payload: newPolicy('corp-gold', { data_network_name: 'corp', profile_name: 'gold' }),
    });
    assert.equal(policy.statusCode, 201, policy.body);
  });
  after(() => t.close());

  /** Both totals, checked against COUNT(*) over the rows. */
  async function assertTotals(expected: { internet: number; corp: number }): Promise<void> {
    const { rows } = await sql<{ profile: string; n: number }>`SELECT profiles.name AS profile, count(*) AS n
      FROM subscribers JOIN profiles ON profiles.id = subscribers.profile_id GROUP BY profiles.name`.execute(
      t.db,
    );
    const byProfile = Object.fromEntries(rows.map((row) => [row.profile, Number(row.n)]));
    assert.deepEqual(
      { internet: byProfile.default ?? 0, corp: byProfile.gold ?? 0 },
      expected,
      'rows in the table',
    );
    assert.deepEqual(
      { internet: await totalReaching(t, token, 'internet'), corp: await totalReaching(t, token, 'corp') },
      expected,
      'total_count of the filtered lists',
    );
  }

  it('follows creates, imports, profile changes, deletes and SQL writes', async () => {
    await assertTotals({ internet: 0, corp: 0 });
    const imported = await t.request({
      method: 'POST',
      url: '/api/v1/subscribers/import',
      token,
      payload: Array.from({ length: 20 }, (_, i) =>
        newSubscriber(i, { profile_name: i < 5 ? 'gold' : 'default' }),
      ),
    });
    assert.equal(imported.statusCode, 201, imported.body);
    await assertTotals({ internet: 15, corp: 5 });
    const moved = await t.request({
      method: 'PUT',
      url: `/api/v1/subscribers/${imsi(10)}`,
      token,
      payload: { profile_name: 'gold' },
    });
    assert.equal(moved.statusCode, 200, moved.body);
    await assertTotals({ internet: 14, corp: 6 });
    const deleted = await t.request({ method: 'DELETE', url: `/api/v1/subscribers/${imsi(0)}`, token });
    assert.equal(deleted.statusCode, 200, deleted.body);
    await assertTotals({ internet: 14, corp: 5 });
    await sql`UPDATE subscribers SET profile_id = (SELECT id FROM profiles WHERE name = 'default')
      WHERE imsi = ${imsi(1)}`.execute(t.db);
    await t.db.deleteFrom('subscribers').where('imsi', '=', imsi(19)).execute();
    await assertTotals({ internet: 14, corp: 4 });
  });

  it('counts every subscriber when a policy for the data network names no profile', async () => {
    const any = await t.request({
      method: 'POST',
      url: '/api/v1/policies',
      token,
      payload: newPolicy('corp-any', { data_network_name: 'corp' }),
    });
    assert.equal(any.statusCode, 201, any.body);
    assert.equal(await totalReaching(t, token, 'corp'), await rowCount(t));
    assert.equal(await totalReaching(t, token, 'nowhere'), 0);
  });
});
