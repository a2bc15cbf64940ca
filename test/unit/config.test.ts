import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, DEFAULT_CONFIG, loadConfig } from '../../src/config/config.ts';

describe('configuration', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pmn-config-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (text: string) => {
    const path = join(dir, `config-${Math.random()}.yaml`);
    writeFileSync(path, text);
    return path;
  };

  it('has defaults 127.0.0.1:5002, ./data/core.db, info', () => {
    assert.deepEqual(loadConfig([], {}), DEFAULT_CONFIG);
  });

  it('lets flags beat environment, environment beat the file, the file beat defaults', () => {
    const path = file('listen: "0.0.0.0:6000"\ndb: /tmp/file.db\nlog_level: debug\n');
    const fromFile = loadConfig(['--config', path], {});
    assert.deepEqual(
      [fromFile.listen, fromFile.db, fromFile.logLevel],
      [{ host: '0.0.0.0', port: 6000 }, '/tmp/file.db', 'debug'],
    );
    const fromEnv = loadConfig([], { PMN_CONFIG: path, PMN_DB: '/tmp/env.db', PMN_LOG_LEVEL: 'warn' });
    assert.deepEqual([fromEnv.listen.port, fromEnv.db, fromEnv.logLevel], [6000, '/tmp/env.db', 'warn']);
    const fromFlags = loadConfig(['--config', path, '--db', '/tmp/flag.db', '--listen', '[::1]:7000'], {
      PMN_DB: '/tmp/env.db',
    });
    assert.deepEqual([fromFlags.listen, fromFlags.db], [{ host: '::1', port: 7000 }, '/tmp/flag.db']);
  });

  it('reads tls and login_rate_limit from the file', () => {
    const config = loadConfig(
      ['--config', file('tls:\n  cert: a.pem\n  key: b.pem\nlogin_rate_limit: 50\n')],
      {},
    );
    assert.deepEqual(config.tls, { cert: 'a.pem', key: 'b.pem' });
    assert.equal(config.loginRateLimit, 50);
  });

  it('refuses bad values, unknown settings and unknown flags with a clear message', () => {
    const bad: [string[], NodeJS.ProcessEnv, RegExp][] = [
      [['--listen', 'nowhere'], {}, /listen must be HOST:PORT/],
      [[], { PMN_LOG_LEVEL: 'loud' }, /log_level must be one of/],
      [['--config', file('colour: blue\n')], {}, /unknown setting "colour"/],
      [['--config', file('tls:\n  cert: only.pem\n')], {}, /tls needs both cert and key/],
      [['--config', join(dir, 'absent.yaml')], {}, /cannot read config file/],
      [['--verbose'], {}, /verbose/],
    ];
    for (const [argv, env, message] of bad)
      assert.throws(
        () => loadConfig(argv, env),
        (e: Error) => e instanceof ConfigError && message.test(e.message),
      );
  });
});
