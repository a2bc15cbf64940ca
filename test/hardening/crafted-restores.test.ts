import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { requestRestore, restoreBackup, takeBackup } from '../helpers/backup.ts';
import { createApiToken, createTestApp, initialize, type TestApp } from '../helpers/test-app.ts';

// Issue 12, finding 7: a backup edited to pass every structural check could still break the service for
// good once restored (a malformed audit timestamp answered 500 on every audit read, a garbage sealed key
// 500 on credential reads, a malformed TAC list failed every operator read). A restore now refuses, with
// 400 naming the table, row and column, every row the service could not read back.

const IMSI = '001010000000001';
const otherKeyBox = createSecretBox(randomBytes(32));

/** The backup with one change made through SQLite directly. */
function crafted(backup: Buffer, dir: string, change: (db: SQLite.Database) => void): Buffer {
  const path = join(dir, `crafted-${randomBytes(4).toString('hex')}.db`);
  writeFileSync(path, backup);
  const db = new SQLite(path);
  change(db);
  db.close();
  const bytes = readFileSync(path);
  rmSync(path);
  return bytes;
}

describe('restoring a crafted backup', () => {
  let dir: string;
  let t: TestApp;
  let admin: string;
  let backup: Buffer;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pmn-crafted-restore-'));
    t = await createTestApp({ database: join(dir, 'core.db') });
    admin = await initialize(t);
    await createApiToken(t, admin);
    const created = await t.request({
      method: 'POST',
      url: '/api/v1/subscribers',
      token: admin,
      payload: { imsi: IMSI, key: '00'.repeat(16), sequenceNumber: '000000000001', profile_name: 'default' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const key = await t.request({
      method: 'POST',
      url: '/api/v1/operator/home-network-keys',
      token: admin,
      payload: { scheme: 'A', id: 1 },
    });
    assert.equal(key.statusCode, 201, key.body);
    backup = await takeBackup(t, admin);
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const cases: { what: string; change: (db: SQLite.Database) => void; names: RegExp }[] = [
    {
      what: 'a malformed timestamp in the last audit row',
      change: (db) =>
        db.exec("UPDATE audit_logs SET timestamp = 'yesterday' WHERE id = (SELECT max(id) FROM audit_logs)"),
      names: /audit_logs row \d+: timestamp is not of its type/,
    },
    {
      what: 'a timestamp no date can hold',
      change: (db) => db.exec('UPDATE audit_logs SET timestamp = 9000000000000000 WHERE id = 1'),
      names: /audit_logs row 1: timestamp is not a time/,
    },
    {
      what: 'a negative expiry of an API token',
      change: (db) => db.exec('UPDATE api_tokens SET expires_at = -1'),
      names: /api_tokens row 1: expires_at is not a time/,
    },
    {
      what: 'a bad row hidden at a negative rowid',
      change: (db) =>
        db.exec(
          "INSERT INTO audit_logs (id, timestamp, level, actor, action, ip, details) VALUES (-5, -1, 'INFO', 'a', 'b', '', 'c')",
        ),
      names: /audit_logs row -5: timestamp is not a time/,
    },
    {
      what: 'a bad row far beyond the others (a sparse rowid)',
      change: (db) =>
        db.exec(
          "INSERT INTO audit_logs (id, timestamp, level, actor, action, ip, details) VALUES (4611686018427387904, 'x', 'INFO', 'a', 'b', '', 'c')",
        ),
      names: /audit_logs row 4611686018427387904: timestamp is not of its type/,
    },
    {
      what: 'a real number where the service stores integers',
      change: (db) => db.exec('UPDATE slices SET sst = 1.5'),
      names: /slices row 1: sst is not of its type \(integer\)/,
    },
    {
      what: 'a garbage sealed subscriber key',
      change: (db) => db.prepare('UPDATE subscribers SET key_sealed = ?').run('v1.garbage'),
      names: /subscribers row 1: key_sealed does not open under the key file/,
    },
    {
      what: 'an OPc sealed under another key file',
      change: (db) =>
        db.prepare('UPDATE subscribers SET opc_sealed = ?').run(otherKeyBox.seal('11'.repeat(16))),
      names: /subscribers row 1: opc_sealed does not open under the key file/,
    },
    {
      what: 'an OP sealed under another key file',
      change: (db) => db.prepare('UPDATE operator SET op_sealed = ?').run(otherKeyBox.seal('22'.repeat(16))),
      names: /operator row 1: op_sealed does not open/,
    },
    {
      what: 'a home network public key that is not its private key’s',
      change: (db) => db.prepare('UPDATE home_network_keys SET public_key = ?').run('ab'.repeat(32)),
      names: /home_network_keys row 1: public_key is not the public key of its private key/,
    },
    {
      what: 'a malformed stored TAC list',
      change: (db) => db.exec(`UPDATE operator SET supported_tacs = '["00000g"'`),
      names: /operator row 1: supported_tacs is not valid JSON/,
    },
    {
      what: 'a stored TAC list of the wrong shape',
      change: (db) => db.exec(`UPDATE operator SET supported_tacs = '["1"]'`),
      names: /operator row 1: supported_tacs does not have the shape/,
    },
    {
      what: 'an unknown NAS algorithm',
      change: (db) => db.exec(`UPDATE operator SET nas_ciphering = '["NEA9"]'`),
      names: /operator row 1: nas_ciphering does not have the shape/,
    },
    {
      what: 'a positioning result that is not JSON',
      change: (db) =>
        db
          .prepare(
            `INSERT INTO positioning_sessions (id, supi, session_type, method, mode, status, reports, last_result,
             created_at, updated_at) VALUES ('s1', ?, 0, 'cell_id', NULL, 1, 1, '{', 0, 0)`,
          )
          .run(`imsi-${IMSI}`),
      names: /positioning_sessions row \d+: last_result is not valid JSON/,
    },
    {
      what: 'a password hash whose cost asks for 8 GiB',
      change: (db) =>
        db
          .prepare('UPDATE users SET password_hash = ?')
          .run(`scrypt$${2 ** 26}$8$1$${'A'.repeat(24)}$${'B'.repeat(43)}=`),
      names: /users row 1: password_hash costs more than/,
    },
    {
      what: 'an e-mail no lookup can find',
      change: (db) => db.exec("UPDATE users SET email = 'Admin@Example.com'"),
      names: /users row 1: email is not a lower-case e-mail/,
    },
    {
      what: 'an IP pool that is not a network',
      change: (db) => db.exec("UPDATE profiles SET ue_ip_pool = '10.45.0.1/16'"),
      names: /profiles row 1: ue_ip_pool is not a value the service accepts/,
    },
    {
      what: 'an IPv6 pool longer than /64',
      change: (db) => db.exec("UPDATE profiles SET ue_ipv6_pool = '2001:db8:45::/96'"),
      names: /profiles row 1: ue_ipv6_pool is not a value the service accepts/,
    },
    {
      what: 'an IPv4 network as the IPv6 pool',
      change: (db) => db.exec("UPDATE profiles SET ue_ipv6_pool = '10.45.0.0/16'"),
      names: /profiles row 1: ue_ipv6_pool is not a value the service accepts/,
    },
    {
      what: 'a DNS server that is not an address',
      change: (db) => db.exec("UPDATE profiles SET dns = 'dns.example'"),
      names: /profiles row 1: dns is not a value the service accepts/,
    },
    {
      what: 'a bit rate the API never writes',
      change: (db) => db.exec("UPDATE policies SET bitrate_downlink = 'fast'"),
      names: /policies row 1: bitrate_downlink is not a value the service accepts/,
    },
    {
      what: 'an IMSI of the wrong form',
      change: (db) => db.exec("UPDATE subscribers SET imsi = '00101'"),
      names: /subscribers row 1: imsi is not a value the service accepts/,
    },
    {
      what: 'a home network key of an unknown scheme',
      change: (db) => db.exec("UPDATE home_network_keys SET scheme = 'C'"),
      names: /home_network_keys row \d+: scheme is not a value the service accepts/,
    },
    {
      what: 'an API token id no token can carry',
      change: (db) => db.exec("UPDATE api_tokens SET public_id = 'XYZ'"),
      names: /api_tokens row 1: public_id is not 16 lower-case hex digits/,
    },
  ];

  for (const { what, change, names } of cases) {
    it(`refuses ${what} with 400 {"error"} naming the row, and changes nothing`, async () => {
      const response = await requestRestore(t, admin, crafted(backup, dir, change));
      assert.equal(response.statusCode, 400, response.body);
      const body = response.json<{ error: string }>();
      assert.deepEqual(Object.keys(body), ['error']);
      assert.match(body.error, names);
      for (const url of [
        '/api/v1/logs/audit',
        `/api/v1/subscribers/${IMSI}/credentials`,
        '/api/v1/operator',
      ]) {
        const read = await t.request({ method: 'GET', url, token: admin });
        assert.equal(read.statusCode, 200, `${url} after the refusal: ${read.body}`);
      }
    });
  }

  it('still restores the backup as it was taken', async () => {
    await restoreBackup(t, admin, backup);
    const read = await t.request({
      method: 'GET',
      url: `/api/v1/subscribers/${IMSI}/credentials`,
      token: admin,
    });
    assert.equal(read.statusCode, 200, read.body);
  });
});
