import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, linkSync, renameSync, unlinkSync } from 'node:fs';
import { open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { ConflictError, DomainError, InvalidError } from '../errors.ts';
import type { Actor } from '../identity/actor.ts';
import type { AuditLogService } from '../resources/audit-logs/audit-logs.service.ts';
import type { Db } from '../storage/database.ts';
import { prepareRestorableDatabase } from '../storage/restorable-database.ts';
import { openSqliteConnection, type SqliteFile } from '../storage/sqlite-file.ts';
import type { Executor } from '../storage/transaction.ts';
import { restoredRowsProblem } from './restore-checks/index.ts';

/** Called after a restore, with the restored database, by whatever keeps values read from the database. */
export type RestoredListener = (executor: Executor) => Promise<void>;

/**
 * Taken for the time of a backup or a restore by whatever else has the file open (the records writer
 * thread): it stops using the file, then resolves with the function that gives it back.
 */
export type FileHold = () => Promise<() => void>;

interface Snapshot {
  /** The copy's bytes; the file behind it is already unlinked and disappears when the stream closes. */
  stream: Readable;
  bytes: number;
  filename: string;
}

/** `20261122T101530.123Z`: sortable, unique to the millisecond, valid in every file system. */
function fileStamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '');
}

/**
 * Backup and restore of the embedded SQLite database.
 *
 * Both first take every file hold, so that the live connection is the only one on the file: SQLite
 * restarts a backup that another connection writes under, and a restore must close every connection.
 *
 * Backup uses SQLite's online backup API on the live connection: it copies the file in steps of 100
 * pages, yielding to the event loop between steps, so requests keep being served; writes made meanwhile
 * by the same connection are carried into the copy, and a step never copies an uncommitted transaction,
 * so the copy is the committed state at the moment it completes.
 *
 * Restore writes the upload beside the database, checks and migrates it there, then takes Kysely's single
 * connection (so the transactions in flight finish first and no new query starts), closes the live
 * connection, hard-links the current file to `<db>.pre-restore-<time>`, renames the upload over `<db>`
 * (atomic: the name always points at a whole database) and opens it again. Every service keeps its Kysely
 * instance, which now reads the restored file; listeners reload what they cached from the old one.
 */
export function createBackupService(deps: {
  db: Db;
  /** The SQLite file; undefined on PostgreSQL, whose backups are its own tools' (docs/operations.md). */
  file: SqliteFile | undefined;
  audit: AuditLogService;
  clock: Clock;
  logger: Logger;
  version: string;
  /** Opens the sealed values of a restored database, to check them before it is installed. */
  secretBox: SecretBox;
}) {
  const { db, audit, clock, logger, version, secretBox } = deps;
  /** The SQLite file, or the 409 naming PostgreSQL's own tools (the only dialect without a file). */
  function sqliteFile(): SqliteFile {
    if (deps.file !== undefined) return deps.file;
    throw new ConflictError(
      "backup and restore of a PostgreSQL database are PostgreSQL's own: pg_dump and pg_restore, or base backups (pg_basebackup) with point-in-time recovery (docs/operations.md)",
    );
  }
  const restoredListeners: RestoredListener[] = [];
  const fileHolds: FileHold[] = [];
  let running: 'backup' | 'restore' | undefined;

  async function exclusively<T>(what: 'backup' | 'restore', work: () => Promise<T>): Promise<T> {
    if (running) throw new ConflictError(`a database ${running} is running; try again when it has finished`);
    running = what;
    const releases: (() => void)[] = [];
    try {
      for (const hold of fileHolds) releases.push(await hold());
      return await work();
    } finally {
      for (const release of releases) release();
      running = undefined;
    }
  }

  /** A fresh temporary path beside the database, so a rename can move it into place. */
  function workPath(kind: 'backup' | 'restore'): string {
    const dir = sqliteFile().path === ':memory:' ? tmpdir() : dirname(sqliteFile().path);
    return join(dir, `.pmn-${kind}-${randomBytes(6).toString('hex')}.tmp`);
  }

  /** Replaces the live file by `candidate`, keeping the current one as `previous`. Synchronous on purpose. */
  function swapIn(candidate: string, previous: string): void {
    for (const suffix of ['-wal', '-shm']) {
      // SQLite deletes these when its last connection closes; one left means another process has it open.
      if (existsSync(`${sqliteFile().path}${suffix}`)) {
        throw new ConflictError(
          `the database is open in another process (${basename(sqliteFile().path)}${suffix} exists); stop it first`,
        );
      }
    }
    linkSync(sqliteFile().path, previous);
    try {
      renameSync(candidate, sqliteFile().path);
    } catch (error) {
      // Still the live file under a second name: drop it, or it would keep changing with the live one.
      unlinkSync(previous);
      throw error;
    }
  }

  /**
   * Refuses (InvalidError) a database with a row the service could not read back: a restore must not
   * install a value that makes a read fail for every later request (restore-checks/).
   */
  async function refuseUntrustworthyRows(candidate: string): Promise<void> {
    const connection = openSqliteConnection(candidate);
    try {
      const problem = await restoredRowsProblem(connection, secretBox);
      if (problem) throw new InvalidError(`backup refused, nothing changed: ${problem}`);
    } finally {
      connection.close();
    }
  }

  return {
    /** Registers work to do right after a restore, inside the restore's hold on the database. */
    onRestored(listener: RestoredListener): void {
      restoredListeners.push(listener);
    },

    /** Registers a hold taken for the time of each backup and restore. */
    onFileHold(hold: FileHold): void {
      fileHolds.push(hold);
    },

    /** A consistent copy of the database, taken while the service keeps serving. */
    async snapshot(actor: Actor): Promise<Snapshot> {
      // Refused before the holds, as a restore is: on PostgreSQL they would close the records writer
      // thread's connection for nothing.
      sqliteFile();
      return exclusively('backup', async () => {
        const path = workPath('backup');
        try {
          await sqliteFile().backupTo(path);
          const { size } = await stat(path);
          await audit.record(actor, {
            action: 'backup_database',
            details: `Database backup taken (${size} bytes)`,
          });
          // Opened, then unlinked: the copy is readable through the handle and gone once it closes.
          const handle = await open(path, 'r');
          await rm(path);
          return {
            stream: handle.createReadStream(),
            bytes: size,
            filename: `pmn-core-${version}-${fileStamp(clock.now())}.db`,
          };
        } catch (error) {
          await rm(path, { force: true });
          throw error;
        }
      });
    },

    /**
     * Replaces the database by the uploaded one, or throws InvalidError (nothing changed) when it is not
     * a database this version can run on. Returns the path the previous database is kept at.
     */
    async restore(upload: Readable, actor: Actor): Promise<{ previous: string; bytes: number }> {
      if (sqliteFile().path === ':memory:') {
        throw new ConflictError('restore needs a database file; this service runs on an in-memory database');
      }
      return exclusively('restore', async () => {
        const candidate = workPath('restore');
        try {
          try {
            await pipeline(upload, createWriteStream(candidate, { mode: 0o600 }));
          } catch (error) {
            if (!upload.errored) throw error;
            // The upload failed, not the disk: the client sent too much, too little or something malformed.
            throw error instanceof DomainError
              ? error
              : new InvalidError(
                  `the upload ended before the file was complete: ${(error as Error).message}`,
                );
          }
          const { size } = await stat(candidate);
          await prepareRestorableDatabase(candidate);
          await refuseUntrustworthyRows(candidate);
          const previous = `${sqliteFile().path}.pre-restore-${fileStamp(clock.now())}`;
          await db.connection().execute(async (connection) => {
            sqliteFile().reopen(() => swapIn(candidate, previous));
            for (const listener of restoredListeners) await listener(connection);
            await audit.record(
              actor,
              {
                action: 'restore_database',
                details: `Database restored from an upload of ${size} bytes; the previous one is kept as ${basename(previous)}`,
              },
              connection,
            );
          });
          logger.info({ previous }, 'database restored');
          return { previous, bytes: size };
        } finally {
          // After a swap the candidate has become the database and this finds nothing.
          await rm(candidate, { force: true });
        }
      });
    },
  };
}

export type BackupService = ReturnType<typeof createBackupService>;
