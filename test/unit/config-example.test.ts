import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_CONFIG, loadConfig } from '../../src/config/config.ts';

const EXAMPLE = new URL('../../deploy/config.example.yaml', import.meta.url);

describe('deploy/config.example.yaml', () => {
  it('loads, with the documented values', () => {
    const config = loadConfig(['--config', EXAMPLE.pathname], {});
    assert.deepEqual(config, { ...DEFAULT_CONFIG, db: '/var/lib/pmn-core/core.db' });
  });

  it('documents the TLS setting in a form that loads once uncommented', () => {
    const text = readFileSync(EXAMPLE, 'utf8').replace(/^# (tls:| {2}cert:| {2}key:)/gm, '$1');
    const dir = mkdtempSync(join(tmpdir(), 'pmn-config-'));
    try {
      const path = join(dir, 'config.yaml');
      writeFileSync(path, text);
      assert.deepEqual(loadConfig(['--config', path], {}).tls, {
        cert: '/etc/pmn-core/tls/fullchain.pem',
        key: '/etc/pmn-core/tls/privkey.pem',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
