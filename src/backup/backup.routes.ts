import multipart from '@fastify/multipart';
import { basename } from 'node:path';
import { InvalidError, TooLargeError } from '../errors.ts';
import type { App } from '../http/app-types.ts';
import { actorOf } from '../http/authentication.ts';
import { Envelope, ErrorBody, FileResponse, message, MessageResult } from '../http/schemas.ts';
import type { BackupService } from './backup.service.ts';

/** Largest database a restore accepts by default. The upload goes to disk, never to memory. */
const RESTORE_MAX_BYTES = 16 * 1024 ** 3;

const tags = ['operations'];

export function backupRoutes(deps: { backup: BackupService; restoreMaxBytes?: number }) {
  const { backup } = deps;
  const maxBytes = deps.restoreMaxBytes ?? RESTORE_MAX_BYTES;

  return async (app: App): Promise<void> => {
    app.post(
      '/api/v1/backup',
      {
        config: { permission: 'backup' },
        schema: {
          tags,
          summary: 'Download a consistent copy of the database',
          description:
            'An SQLite file, taken with the online backup API while the service keeps serving. It does not ' +
            'contain the key file that encrypts subscriber credentials: keep that apart (docs/operations.md). ' +
            'One backup or restore runs at a time (409 otherwise). Audited as `backup_database`.',
          response: {
            200: FileResponse('The SQLite database file', 'application/vnd.sqlite3'),
            409: ErrorBody,
          },
        },
      },
      async (request, reply) => {
        const snapshot = await backup.snapshot(actorOf(request));
        return reply
          .type('application/vnd.sqlite3')
          .header('content-disposition', `attachment; filename="${snapshot.filename}"`)
          .header('content-length', snapshot.bytes)
          .send(snapshot.stream);
      },
    );

    // Multipart is accepted here and nowhere else: this scope drops the JSON parsers and adds multipart.
    await app.register(async (scope: App) => {
      scope.removeAllContentTypeParsers();
      await scope.register(multipart, { limits: { fileSize: maxBytes, files: 1 } });
      // An answer given before the upload was read to its end (a refusal, a 409) leaves the rest of the
      // body unread and the socket paused: kept alive, the connection is never idle again and the server's
      // close waits for it. "A server MUST read the entire request message body or close the connection
      // after sending its response" (RFC 9112 section 9.3).
      scope.addHook('onSend', async (request, reply) => {
        if (!request.raw.readableEnded) reply.header('connection', 'close');
      });

      scope.post(
        '/api/v1/restore',
        {
          config: { permission: 'backup', contentType: 'multipart/form-data' },
          schema: {
            tags,
            summary: 'Replace the database by an uploaded backup',
            description:
              'A `multipart/form-data` upload whose file part is a database from `POST /api/v1/backup`. It is ' +
              'refused with 400, changing nothing, unless it is an intact SQLite database whose migration ' +
              'history this version knows and whose schema, once migrated, is this version’s. Otherwise it ' +
              'replaces the database atomically once the requests in flight have finished; the previous file ' +
              'is kept beside it as `<db>.pre-restore-<time>`. Users, sessions and API tokens are those of ' +
              'the backup. One backup or restore runs at a time (409 otherwise). Audited as ' +
              '`restore_database` in the restored database.',
            consumes: ['multipart/form-data'],
            response: {
              200: Envelope(MessageResult),
              400: ErrorBody,
              409: ErrorBody,
              413: ErrorBody,
              415: ErrorBody,
            },
          },
        },
        async (request) => {
          const upload = await request.file().catch((error: Error) => {
            throw new InvalidError(`body is not valid multipart/form-data: ${error.message}`);
          });
          if (!upload) throw new InvalidError('file is required: send the backup as a multipart file part');
          // At the limit the parser quietly ends the part early; a shortened database must not pass as whole.
          const tooLarge = () =>
            new TooLargeError(`file is larger than the ${maxBytes} bytes a restore accepts`);
          if (upload.file.truncated) throw tooLarge();
          upload.file.once('limit', () => upload.file.destroy(tooLarge()));
          const { previous, bytes } = await backup.restore(upload.file, actorOf(request));
          return message(
            `Database restored (${bytes} bytes); the previous one is kept as ${basename(previous)}`,
          );
        },
      );
    });
  };
}
