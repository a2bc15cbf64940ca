import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sqliteFileOf } from '../../src/storage/database.ts';
import { openStorage } from '../../src/storage/storage.ts';

const dir = mkdtempSync(join(tmpdir(), 'pmn-files-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const mode = (path: string) => statSync(path).mode & 0o777;

describe('database files', () => {
  it('are created 0600, with the WAL and shared-memory files, even in an existing directory', async () => {
    const path = join(dir, 'core.db');
    const storage = await openStorage({ path });
    assert.equal(mode(path), 0o600);
    assert.equal(mode(`${path}-wal`), 0o600);
    assert.equal(mode(`${path}-shm`), 0o600);
    await storage.close();
  });

  it('are narrowed to 0600 when they were readable by others', async () => {
    const path = join(dir, 'old.db');
    const first = await openStorage({ path });
    await first.close();
    chmodSync(path, 0o644);
    writeFileSync(`${path}-wal`, '');
    chmodSync(`${path}-wal`, 0o644);
    const second = await openStorage({ path });
    assert.equal(mode(path), 0o600);
    assert.equal(mode(`${path}-wal`), 0o600);
    await second.close();
  });

  it('make a backup copy private from its first byte', async () => {
    const path = join(dir, 'backup-source.db');
    const storage = await openStorage({ path });
    const copy = join(dir, 'copy.db');
    await sqliteFileOf(storage.db).backupTo(copy);
    assert.equal(mode(copy), 0o600);
    await storage.close();
  });
});
