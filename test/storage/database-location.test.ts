import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { databaseFiles, parseDatabaseLocation, shownLocation } from '../../src/storage/database-location.ts';

describe('the database location (--db, PMN_DB, db:)', () => {
  it('reads postgres:// and postgresql:// URLs as PostgreSQL, anything else as an SQLite path', () => {
    for (const url of [
      'postgres://pmn@db.example:5432/core',
      'postgresql://pmn@db.example/core',
      'POSTGRES://h/d',
    ]) {
      assert.equal(parseDatabaseLocation(url).dialect, 'postgres', url);
    }
    for (const path of [
      './data/core.db',
      ':memory:',
      'postgres.db',
      '/var/lib/postgres/core.db',
      'postgres:/x',
    ]) {
      assert.deepEqual(parseDatabaseLocation(path), { dialect: 'sqlite', path });
    }
  });

  it("takes libpq's host lists with target_session_attrs", () => {
    const url =
      'postgres://pmn:secret@a.example:5432,b.example:5433,[::1]:5434/core?target_session_attrs=read-write';
    const location = parseDatabaseLocation(url);
    assert.equal(location.dialect, 'postgres');
    assert.equal(location.dialect === 'postgres' && location.url, url);
  });

  it('never shows the password', () => {
    assert.equal(
      shownLocation('postgres://pmn:s3cret@a:5432,b/core?target_session_attrs=primary'),
      'postgres://pmn:***@a:5432,b/core?target_session_attrs=primary',
    );
    assert.equal(
      shownLocation('postgres://pmn@a/core?password=s3cret&x=1'),
      'postgres://pmn@a/core?password=***&x=1',
    );
    assert.equal(shownLocation('./data/core.db'), './data/core.db');
  });

  it('refuses a malformed URL with one line naming the problem, without the password', () => {
    const cases: [string, RegExp][] = [
      ['postgres://u:pw@h:0/core', /port "0" is not 1\.\.65535/],
      ['postgres://u:pw@h:99999/core', /port "99999"/],
      ['postgres://u:pw@h:/core', /port "" is not/],
      ['postgres://u:pw@a:1:2/core', /host "a:1:2" is not HOST\[:PORT\]/],
      ['postgres://u:pw@h/core?target_session_attrs=master', /target_session_attrs "master" is not one of/],
      ['postgres://u:pw@h/core/extra', /database name "core\/extra"/],
    ];
    for (const [url, problem] of cases) {
      assert.throws(
        () => parseDatabaseLocation(url),
        (error: Error) =>
          problem.test(error.message) && !error.message.includes('pw@') && !error.message.includes('\n'),
        url,
      );
    }
  });

  it('names the files of an SQLite database, and none for PostgreSQL or memory', () => {
    assert.deepEqual(databaseFiles('/d/core.db'), ['/d/core.db', '/d/core.db-wal', '/d/core.db-shm']);
    assert.deepEqual(databaseFiles(':memory:'), []);
    assert.deepEqual(databaseFiles('postgres://h/core'), []);
  });
});

describe('PostgreSQL settings', () => {
  const url = 'postgres://pmn:pw@db.example/core';

  it('refuse a PostgreSQL database without a named key file (no file to keep it beside)', () => {
    assert.throws(
      () => loadConfig(['--db', url], {}),
      (error: Error) => {
        return error instanceof ConfigError && /secret_key_file .* must be set/.test(error.message);
      },
    );
    assert.equal(loadConfig(['--db', url, '--secret-key-file', '/etc/pmn/core.key'], {}).db, url);
    assert.equal(loadConfig([], { PMN_DB: url, PMN_SECRET_KEY_FILE: '/k' }).db, url);
  });

  it('refuse a malformed URL as a configuration error', () => {
    assert.throws(
      () => loadConfig(['--db', 'postgres://h:70000/core', '--secret-key-file', '/k'], {}),
      (error: Error) => error instanceof ConfigError && /flags: db: port "70000"/.test(error.message),
    );
  });

  it('size the pool from db_pool_size (1..1000, default 10)', () => {
    assert.equal(loadConfig([], {}).dbPoolSize, 10);
    assert.equal(loadConfig(['--db-pool-size', '25'], {}).dbPoolSize, 25);
    assert.equal(loadConfig([], { PMN_DB_POOL_SIZE: '3' }).dbPoolSize, 3);
    for (const bad of ['0', '1001', 'many', '2.5']) {
      assert.throws(
        () => loadConfig(['--db-pool-size', bad], {}),
        /db_pool_size must be an integer in 1\.\.1000/,
      );
    }
  });
});
