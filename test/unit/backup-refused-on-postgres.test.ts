import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { createBackupService } from '../../src/backup/backup.service.ts';
import type { SecretBox } from '../../src/crypto/secret-box.ts';
import { ConflictError } from '../../src/errors.ts';
import type { Actor } from '../../src/identity/actor.ts';
import type { AuditLogService } from '../../src/resources/audit-logs/audit-logs.service.ts';
import type { Db } from '../../src/storage/database.ts';

// On PostgreSQL (no file) a backup is PostgreSQL's own tools' (409). A file hold taken first would close
// the records writer thread's connection for nothing, and the next batch would connect again.
test('a backup without a database file is refused before any file hold is taken', async () => {
  const backup = createBackupService({
    db: {} as Db,
    file: undefined,
    audit: {} as AuditLogService,
    clock: { now: () => 0 },
    logger: pino({ level: 'silent' }),
    version: 'test',
    secretBox: {} as SecretBox,
  });
  let holds = 0;
  backup.onFileHold(async () => {
    holds += 1;
    return () => {};
  });
  await assert.rejects(backup.snapshot({} as Actor), ConflictError);
  assert.equal(holds, 0, 'no file hold taken');
});
