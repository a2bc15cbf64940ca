import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig, secretKeyPath } from '../../src/config/config.ts';

const dir = mkdtempSync(join(tmpdir(), 'pmn-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('secret_key_file setting', () => {
  it('defaults to the database path with .key appended', () => {
    const config = loadConfig(['--db', '/var/lib/pmn/core.db'], {});
    assert.equal(secretKeyPath(config), '/var/lib/pmn/core.db.key');
  });

  it('comes from the YAML file, the environment and flags, each overriding the one before', () => {
    const file = join(dir, 'config.yaml');
    writeFileSync(file, 'secret_key_file: /from/file.key\n');
    assert.equal(secretKeyPath(loadConfig(['--config', file], {})), '/from/file.key');
    const env = { PMN_SECRET_KEY_FILE: '/from/env.key' };
    assert.equal(secretKeyPath(loadConfig(['--config', file], env)), '/from/env.key');
    const flags = ['--config', file, '--secret-key-file', '/from/flag.key'];
    assert.equal(secretKeyPath(loadConfig(flags, env)), '/from/flag.key');
  });

  it('refuses an empty path in the file', () => {
    const file = join(dir, 'empty.yaml');
    writeFileSync(file, 'secret_key_file: ""\n');
    assert.throws(() => loadConfig(['--config', file], {}), /secret_key_file must be a path/);
  });

  it('is documented in deploy/config.example.yaml in a form that loads once uncommented', () => {
    const example = new URL('../../deploy/config.example.yaml', import.meta.url);
    const path = join(dir, 'example.yaml');
    writeFileSync(path, readFileSync(example, 'utf8').replace(/^# (secret_key_file:)/m, '$1'));
    assert.equal(secretKeyPath(loadConfig(['--config', path], {})), '/etc/pmn-core/core.key');
  });
});
