import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { ROLE } from '../../src/identity/roles.ts';
import { sqliteFileOf } from '../../src/storage/database.ts';
import {
  createApiToken,
  ADMIN,
  auditEntries,
  createTestApp,
  initialize,
  login,
  result,
  userWithRole,
  type TestApp,
} from '../helpers/test-app.ts';
import { requestRestore, takeBackup } from '../helpers/backup.ts';
import { multipartFile as upload } from '../helpers/multipart.ts';

const SQLITE_MAGIC = 'SQLite format 3\0';

/** Every row of every table, read straight from the live connection, for comparing whole databases. */
function dump(t: TestApp): Record<string, unknown[]> {
  const sqlite = sqliteFileOf(t.db).connection();
  const tables = sqlite
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
  return Object.fromEntries(tables.map((name) => [name, sqlite.prepare(`SELECT * FROM "${name}"`).all()]));
}

/** The same database with one change made through SQLite directly, for building bad uploads. */
function altered(backup: Buffer, dir: string, change: (db: SQLite.Database) => void): Buffer {
  const path = join(dir, `altered-${Math.random().toString(16).slice(2)}.db`);
  writeFileSync(path, backup);
  const db = new SQLite(path);
  change(db);
  db.close();
  const bytes = readFileSync(path);
  rmSync(path);
  return bytes;
}

async function userEmails(t: TestApp, token: string): Promise<string[]> {
  const response = await t.request({ method: 'GET', url: '/api/v1/users?per_page=100', token });
  return result<{ items: { email: string }[] }>(response)
    .items.map((u) => u.email)
    .sort();
}

describe('backup and restore', () => {
  let dir: string;
  let dbPath: string;
  let t: TestApp;
  let admin: string;
  let readOnly: string;
  let networkManager: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pmn-backup-test-'));
    dbPath = join(dir, 'core.db');
    t = await createTestApp({ database: dbPath });
    admin = await initialize(t);
    readOnly = await userWithRole(t, admin, ROLE.readOnly, 'reader@example.com');
    networkManager = await userWithRole(t, admin, ROLE.networkManager, 'manager@example.com');
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Files in the data directory besides the database, its WAL and its index, and kept previous files. */
  const strayFiles = () =>
    readdirSync(dir).filter((name) => !/^core\.db(-wal|-shm|\.pre-restore-.*|\.key)?$/.test(name));

  describe('POST /api/v1/backup', () => {
    it('downloads the database as an SQLite file attachment', async () => {
      const response = await t.request({ method: 'POST', url: '/api/v1/backup', token: admin });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'application/vnd.sqlite3');
      assert.match(
        String(response.headers['content-disposition']),
        /^attachment; filename="pmn-core-[\w.-]+-\d{8}T\d{6}\.\d{3}Z\.db"$/,
      );
      assert.equal(Number(response.headers['content-length']), response.rawPayload.length);
      assert.equal(response.rawPayload.subarray(0, 16).toString('latin1'), SQLITE_MAGIC);
      assert.deepEqual(strayFiles(), [], 'the temporary copy is gone');
    });

    it('is audited as backup_database', async () => {
      await takeBackup(t, admin);
      const [latest] = await auditEntries(t, admin);
      assert.equal(latest?.action, 'backup_database');
      assert.equal(latest?.actor, ADMIN.email);
      assert.match(latest?.details ?? '', /^Database backup taken \(\d+ bytes\)$/);
    });

    it('answers 403 to the read-only and network manager roles, 401 without credentials', async () => {
      for (const token of [readOnly, networkManager]) {
        const response = await t.request({ method: 'POST', url: '/api/v1/backup', token });
        assert.equal(response.statusCode, 403);
      }
      assert.equal((await t.request({ method: 'POST', url: '/api/v1/backup' })).statusCode, 401);
    });

    it('runs one backup or restore at a time: a concurrent one answers 409', async () => {
      const [first, second] = await Promise.all([
        t.request({ method: 'POST', url: '/api/v1/backup', token: admin }),
        t.request({ method: 'POST', url: '/api/v1/backup', token: admin }),
      ]);
      assert.deepEqual([first.statusCode, second.statusCode].sort(), [200, 409]);
      const refused = first.statusCode === 409 ? first : second;
      assert.deepEqual(refused.json(), {
        error: 'a database backup is running; try again when it has finished',
      });
    });
  });

  describe('POST /api/v1/restore', () => {
    it('round-trips a populated database: users, API tokens and audit logs come back as they were', async () => {
      const keptToken = await createApiToken(t, admin, 'kept');
      const before = dump(t);
      const backup = await takeBackup(t, admin);

      // Changes after the backup, which the restore must undo.
      const laterToken = await createApiToken(t, admin, 'later');
      await userWithRole(t, admin, ROLE.readOnly, 'later@example.com');
      await t.request({ method: 'DELETE', url: '/api/v1/users/manager@example.com', token: admin });

      const response = await requestRestore(t, keptToken, backup);
      assert.equal(response.statusCode, 200, response.body);
      assert.match(
        result<{ message: string }>(response).message,
        /^Database restored \(\d+ bytes\); the previous one is kept as core\.db\.pre-restore-\d{8}T\d{6}\.\d{3}Z$/,
      );

      const after = dump(t);
      // Identical, except for the entry recording the backup (written after the copy) and the restore.
      const { audit_logs: auditAfter, ...restAfter } = after;
      const { audit_logs: auditBefore, ...restBefore } = before;
      assert.deepEqual(restAfter, restBefore);
      assert.deepEqual(auditAfter?.slice(0, auditBefore?.length), auditBefore);

      assert.deepEqual(await userEmails(t, keptToken), [
        'admin@example.com',
        'manager@example.com',
        'reader@example.com',
      ]);
      const rejected = await t.request({ method: 'GET', url: '/api/v1/users/me', token: laterToken });
      assert.equal(rejected.statusCode, 401, 'a token created after the backup does not exist any more');
      assert.deepEqual(strayFiles(), []);
    });

    it('keeps the previous database beside the restored one', async () => {
      const backup = await takeBackup(t, admin);
      await userWithRole(t, admin, ROLE.readOnly, 'only-in-previous@example.com');
      assert.equal((await requestRestore(t, admin, backup)).statusCode, 200);

      const kept = readdirSync(dir)
        .filter((name) => name.startsWith('core.db.pre-restore-'))
        .sort()
        .at(-1);
      assert.ok(kept);
      const previous = new SQLite(join(dir, kept), { readonly: true });
      const emails = previous.prepare('SELECT email FROM users').pluck().all();
      previous.close();
      assert.ok(emails.includes('only-in-previous@example.com'));
      assert.ok(!(await userEmails(t, admin)).includes('only-in-previous@example.com'));
    });

    it('is audited as restore_database in the restored database', async () => {
      const backup = await takeBackup(t, admin);
      assert.equal((await requestRestore(t, admin, backup)).statusCode, 200);
      const [latest] = await auditEntries(t, admin);
      assert.equal(latest?.action, 'restore_database');
      assert.equal(latest?.actor, ADMIN.email);
      assert.match(latest?.details ?? '', /previous one is kept as core\.db\.pre-restore-/);
    });

    it('brings back the signing secret and sessions of the backup', async () => {
      const backup = await takeBackup(t, admin);
      await t.request({ method: 'POST', url: '/api/v1/auth/rotate-secret', token: admin });
      assert.equal(
        (await t.request({ method: 'GET', url: '/api/v1/users/me', token: admin })).statusCode,
        401,
      );
      const afterRotation = await login(t, ADMIN.email, ADMIN.password);

      assert.equal((await requestRestore(t, afterRotation, backup)).statusCode, 200);
      const me = (token: string) => t.request({ method: 'GET', url: '/api/v1/users/me', token });
      assert.equal((await me(admin)).statusCode, 200, 'the session of the backup works again');
      assert.equal((await me(afterRotation)).statusCode, 401, 'a session newer than the backup does not');
    });

    it('leaves the key file beside the database untouched', async () => {
      const keyFile = `${dbPath}.key`;
      writeFileSync(keyFile, `${'ab'.repeat(32)}\n`, { mode: 0o600 });
      const backup = await takeBackup(t, admin);
      assert.equal((await requestRestore(t, admin, backup)).statusCode, 200);
      assert.equal(readFileSync(keyFile, 'utf8'), `${'ab'.repeat(32)}\n`);
      rmSync(keyFile);
    });

    it('restores a backup taken while requests kept writing, to a consistent database', async () => {
      // Enough rows that the online backup takes many steps, with writes landing between them.
      sqliteFileOf(t.db)
        .connection()
        .prepare(
          `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
           INSERT INTO audit_logs (timestamp, level, actor, action, ip, details)
           SELECT 1795300000000, 'INFO', 'load@example.com', 'load', '127.0.0.1', printf('filler row %d %s', i, hex(randomblob(64)))
           FROM n`,
        )
        .run();
      let writing = true;
      let written = 0;
      const writer = (async () => {
        while (writing) {
          await createApiToken(t, admin, `load-${written}`);
          await t.request({ method: 'DELETE', url: '/api/v1/users/me/api-tokens/none', token: admin });
          written++;
          if (written % 10 === 0) {
            // Keep the user's tokens under the limit of 12.
            const list = await t.request({ method: 'GET', url: '/api/v1/users/me/api-tokens', token: admin });
            for (const item of result<{ items: { id: string; name: string }[] }>(list).items) {
              if (item.name.startsWith('load-')) {
                await t.request({
                  method: 'DELETE',
                  url: `/api/v1/users/me/api-tokens/${item.id}`,
                  token: admin,
                });
              }
            }
          }
        }
      })();
      const backup = await takeBackup(t, admin);
      const writtenDuringBackup = written;
      writing = false;
      await writer;
      assert.ok(writtenDuringBackup > 0, 'writes landed while the backup ran');

      assert.equal((await requestRestore(t, admin, backup)).statusCode, 200);
      const sqlite = sqliteFileOf(t.db).connection();
      assert.equal(sqlite.pragma('integrity_check', { simple: true }), 'ok');
      // Each token change wrote its audit entry in the same transaction: a consistent copy holds both or neither.
      const tokens = sqlite.prepare("SELECT name FROM api_tokens WHERE name LIKE 'load-%'").pluck().all();
      const created = sqlite
        .prepare(
          "SELECT count(*) FROM audit_logs WHERE action = 'create_api_token' AND details LIKE '%\"load-%'",
        )
        .pluck()
        .get() as number;
      const deleted = sqlite
        .prepare(
          "SELECT count(*) FROM audit_logs WHERE action = 'delete_api_token' AND details LIKE '%\"load-%'",
        )
        .pluck()
        .get() as number;
      assert.equal(tokens.length, created - deleted);
      assert.equal(
        sqlite.prepare("SELECT count(*) FROM audit_logs WHERE action = 'load'").pluck().get(),
        20000,
      );
    });

    it('keeps serving while it restores: requests around it all finish without error', async () => {
      const backup = await takeBackup(t, admin);
      const around = Array.from({ length: 20 }, (_, i) =>
        i % 2 === 0
          ? t.request({ method: 'GET', url: '/api/v1/users', token: admin })
          : t.request({ method: 'GET', url: '/api/v1/logs/audit', token: admin }),
      );
      const [restored, ...others] = await Promise.all([requestRestore(t, admin, backup), ...around]);
      assert.equal(restored?.statusCode, 200);
      for (const response of others) assert.equal(response.statusCode, 200, response.body);
    });

    it('refuses a file that is not an SQLite database with 400, changing nothing', async () => {
      const before = dump(t);
      const response = await requestRestore(t, admin, Buffer.from('id,name\n1,not a database\n'));
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json(), { error: 'file is not an SQLite database' });
      assert.deepEqual(dump(t), before);
      assert.deepEqual(strayFiles(), []);
    });

    it('refuses a damaged database with 400', async () => {
      const backup = await takeBackup(t, admin);
      const damaged = Buffer.from(backup);
      // Keep the header, scramble the pages after the first.
      for (let i = 4096; i < damaged.length; i += 7) damaged[i] = (damaged[i] ?? 0) ^ 0x5a;
      const response = await requestRestore(t, admin, damaged);
      assert.equal(response.statusCode, 400);
      assert.match(
        response.json<{ error: string }>().error,
        /damaged SQLite database|not a usable SQLite database/,
      );
    });

    it('refuses an SQLite database that is not a PMN Core database with 400', async () => {
      const path = join(dir, 'other.sqlite');
      const other = new SQLite(path);
      other.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)');
      other.close();
      const bytes = readFileSync(path);
      rmSync(path);
      const response = await requestRestore(t, admin, bytes);
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json(), {
        error: 'file is not a PMN Core database: it has no migration history',
      });
    });

    it('refuses a database with a migration this version does not know with 400 naming it', async () => {
      const backup = await takeBackup(t, admin);
      const newer = altered(backup, dir, (db) =>
        db
          .prepare("INSERT INTO kysely_migration (name, timestamp) VALUES ('9999-from-the-future', 'now')")
          .run(),
      );
      const before = await userEmails(t, admin);
      const response = await requestRestore(t, admin, newer);
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json(), {
        error:
          'database comes from a newer PMN Core: this version does not know its migration "9999-from-the-future"',
      });
      assert.deepEqual(await userEmails(t, admin), before);
    });

    it('refuses a database whose schema differs from this version’s with 400', async () => {
      const backup = await takeBackup(t, admin);
      const extra = altered(backup, dir, (db) => db.exec('CREATE TABLE extra (id INTEGER)'));
      const response = await requestRestore(t, admin, extra);
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json(), {
        error: "database schema is not this version's: it has a table extra this version does not define",
      });
      assert.deepEqual(strayFiles(), []);
    });

    it('refuses a body that is not multipart with 415, and a multipart body without a file with 400', async () => {
      const json = await t.request({ method: 'POST', url: '/api/v1/restore', token: admin, payload: {} });
      assert.equal(json.statusCode, 415);
      assert.deepEqual(json.json(), { error: 'Content-Type must be multipart/form-data' });

      const boundary = 'x-boundary';
      const noFile = await t.request({
        method: 'POST',
        url: '/api/v1/restore',
        token: admin,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        payload: `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n--${boundary}--\r\n`,
      });
      assert.equal(noFile.statusCode, 400);
      assert.deepEqual(noFile.json(), {
        error: 'file is required: send the backup as a multipart file part',
      });
    });

    it('refuses a malformed or cut-off multipart body with 400, changing nothing', async () => {
      const before = dump(t);
      const boundary = 'x-boundary';
      const part = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="b.db"\r\n\r\n`;
      for (const [payload, error] of [
        [
          `${part}SQLite format 3\0 and then the connection dropped`,
          /^the upload ended before the file was complete/,
        ],
        ['no multipart structure at all', /^body is not valid multipart\/form-data/],
      ] as const) {
        const response = await t.request({
          method: 'POST',
          url: '/api/v1/restore',
          token: admin,
          headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
          payload,
        });
        assert.equal(response.statusCode, 400, payload);
        assert.match(response.json<{ error: string }>().error, error);
      }
      assert.deepEqual(dump(t), before);
      assert.deepEqual(strayFiles(), []);
    });

    it('refuses a file over the size limit with 413, changing nothing', async () => {
      const smallDir = mkdtempSync(join(tmpdir(), 'pmn-backup-limit-'));
      const small = await createTestApp({ database: join(smallDir, 'core.db'), restoreMaxBytes: 4096 });
      try {
        const token = await initialize(small);
        const backup = await takeBackup(small, token);
        assert.ok(backup.length > 4096);
        const response = await requestRestore(small, token, backup);
        assert.equal(response.statusCode, 413);
        assert.deepEqual(response.json(), { error: 'file is larger than the 4096 bytes a restore accepts' });
        assert.deepEqual(
          readdirSync(smallDir).filter((name) => !name.startsWith('core.db')),
          [],
        );
      } finally {
        await small.close();
        rmSync(smallDir, { recursive: true, force: true });
      }
    });

    it('answers 403 to the read-only and network manager roles, 401 without credentials', async () => {
      const backup = await takeBackup(t, admin);
      for (const token of [readOnly, networkManager]) {
        assert.equal((await requestRestore(t, token, backup)).statusCode, 403);
      }
      const anonymous = await t.request({ method: 'POST', url: '/api/v1/restore', ...upload(backup) });
      assert.equal(anonymous.statusCode, 401);
    });

    it('answers 409 on a service running on an in-memory database', async () => {
      const memory = await createTestApp({ database: ':memory:' });
      try {
        const token = await initialize(memory);
        const backup = await takeBackup(memory, token);
        const response = await requestRestore(memory, token, backup);
        assert.equal(response.statusCode, 409);
        assert.match(response.json<{ error: string }>().error, /restore needs a database file/);
      } finally {
        await memory.close();
      }
    });
  });

  it('keeps no temporary file behind', () => {
    assert.deepEqual(strayFiles(), []);
    assert.ok(existsSync(dbPath));
  });
});
