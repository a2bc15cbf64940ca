import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { systemClock, type Clock } from './clock.ts';
import { DEFAULT_SCRYPT_COST, type ScryptCost } from './crypto/password-hash.ts';
import type { App } from './http/app-types.ts';
import type { Job } from './jobs/scheduler.ts';
import { installAuthentication } from './http/authentication.ts';
import { installErrorHandling } from './http/error-handler.ts';
import { installOpenApi } from './http/openapi.ts';
import { installSecurityHeaders } from './http/security-headers.ts';
import { validatorCompiler } from './http/validation.ts';
import { createApiTokensRepository } from './resources/api-tokens/api-tokens.repository.ts';
import { apiTokensRoutes } from './resources/api-tokens/api-tokens.routes.ts';
import { createApiTokensService } from './resources/api-tokens/api-tokens.service.ts';
import { createAuditLogsRepository } from './resources/audit-logs/audit-logs.repository.ts';
import { auditLogsRoutes } from './resources/audit-logs/audit-logs.routes.ts';
import { createAuditLogService } from './resources/audit-logs/audit-logs.service.ts';
import { authRoutes } from './resources/auth/auth.routes.ts';
import { createAuthService } from './resources/auth/auth.service.ts';
import { createAuthenticator } from './resources/auth/authenticator.ts';
import { createLoginRateLimiter } from './resources/auth/login-rate-limiter.ts';
import { createSessionsRepository } from './resources/auth/sessions.repository.ts';
import { loadSigningSecret } from './resources/auth/signing-secret.ts';
import { statusRoutes } from './resources/status/status.routes.ts';
import { createUsersRepository } from './resources/users/users.repository.ts';
import { usersRoutes } from './resources/users/users.routes.ts';
import { createUsersService } from './resources/users/users.service.ts';
import { createRetentionPoliciesRepository } from './retention/retention-policies.repository.ts';
import { retentionRoutes } from './retention/retention.routes.ts';
import { createRetentionService, type RetentionService } from './retention/retention.service.ts';
import type { Db } from './storage/database.ts';
import { VERSION } from './version.ts';
import { createDecoderRegistry, type DecoderRegistry } from './records/decoders.ts';
import type { RecordsIngestion } from './records/ingestion.ts';
import { createRecordsPipeline } from './records/records-pipeline.ts';
import { RECORD_RETENTION, registerRecordRetention } from './records/records-retention.ts';
import { createRadioRegistry } from './network/radio-registry.ts';
import { flowReportsRoutes } from './resources/flow-reports/flow-reports.routes.ts';
import { createFlowReportsService } from './resources/flow-reports/flow-reports.service.ts';
import { radioEventsRoutes } from './resources/radio-events/radio-events.routes.ts';
import { createRadioEventsService } from './resources/radio-events/radio-events.service.ts';
import { radioLogsRoutes } from './resources/radio-logs/radio-logs.routes.ts';
import { createRadioLogsService } from './resources/radio-logs/radio-logs.service.ts';
import { radiosRoutes } from './resources/radios/radios.routes.ts';
import { createRadiosService } from './resources/radios/radios.service.ts';
import { subscriberLogsRoutes } from './resources/subscriber-logs/subscriber-logs.routes.ts';
import { createSubscriberLogsService } from './resources/subscriber-logs/subscriber-logs.service.ts';
import { subscriberUsageRoutes } from './resources/subscriber-usage/subscriber-usage.routes.ts';
import { createSubscriberUsageService } from './resources/subscriber-usage/subscriber-usage.service.ts';

export interface AppOptions {
  /** A migrated database. */
  db: Db;
  logger: Logger;
  clock?: Clock;
  scryptCost?: ScryptCost;
  loginRateLimit?: number;
  tls?: { cert: Buffer; key: Buffer };
}

export interface BuiltApp {
  app: FastifyInstance;
  retention: RetentionService;
  /** Work the process runs at start and then on an interval (main.ts hands these to the scheduler). */
  backgroundJobs: { name: string; intervalMs: number; job: Job }[];
  /** Where the network functions hand in records and radio state; `app.close()` flushes it. */
  records: RecordsIngestion;
  /** Decoders of radio event messages by protocol; the network side registers its codecs here. */
  decoders: DecoderRegistry;
}

const HOUR_MS = 3_600_000;

const BODY_LIMIT = 1024 * 1024;

/** Builds the whole service from its parts; it never listens, so tests drive it with `inject`. */
export async function buildApp(options: AppOptions): Promise<BuiltApp> {
  const { db, logger } = options;
  const clock = options.clock ?? systemClock;
  const scryptCost = options.scryptCost ?? DEFAULT_SCRYPT_COST;

  const users = createUsersRepository(db);
  const sessions = createSessionsRepository(db);
  const apiTokens = createApiTokensRepository(db);
  const auditLogs = createAuditLogsRepository(db);
  const signingSecret = await loadSigningSecret(db);
  const audit = createAuditLogService({ repository: auditLogs, clock });
  const retention = createRetentionService({
    db,
    policies: createRetentionPoliciesRepository(db),
    audit,
    clock,
    logger,
  });
  retention.register({
    recordType: 'audit_logs',
    label: 'audit log',
    defaultDays: 90,
    deleteOlderThan: (cutoff, limit) => auditLogs.deleteOlderThan(cutoff, limit),
  });
  const authenticator = createAuthenticator({ sessions, apiTokens, signingSecret, clock });
  const rateLimiter = createLoginRateLimiter({ limit: options.loginRateLimit ?? 10, clock });
  const auth = createAuthService({
    db,
    users,
    sessions,
    signingSecret,
    audit,
    rateLimiter,
    clock,
    scryptCost,
  });
  const usersService = createUsersService({ db, users, sessions, audit, clock, scryptCost });
  const apiTokensService = createApiTokensService({ db, users, apiTokens, audit, clock, scryptCost });

  // Records: radios, radio events, subscriber and radio logs, flow reports, usage (docs/records.md).
  const radioRegistry = createRadioRegistry({ clock });
  const decoders = createDecoderRegistry({ logger });
  const records = createRecordsPipeline({ db, radios: radioRegistry, clock, logger });
  registerRecordRetention(retention, records.repositories);
  const flushRecords = () => records.ingestion.flush();
  const recordServices = {
    radios: createRadiosService({ registry: radioRegistry }),
    radioEvents: createRadioEventsService({
      db,
      repository: records.repositories.radioEvents,
      decoders,
      audit,
      flushRecords,
    }),
    subscriberLogs: createSubscriberLogsService({
      db,
      repository: records.repositories.subscriberLogs,
      audit,
      flushRecords,
    }),
    radioLogs: createRadioLogsService({
      db,
      repository: records.repositories.radioLogs,
      audit,
      flushRecords,
    }),
    flowReports: createFlowReportsService({
      db,
      repository: records.repositories.flowReports,
      audit,
      clock,
      flushRecords,
    }),
    subscriberUsage: createSubscriberUsageService({
      db,
      repository: records.repositories.subscriberUsage,
      audit,
      clock,
      flushRecords,
    }),
  };

  const app = Fastify({
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    return503OnClosing: true,
    ...(options.tls ? { https: { cert: options.tls.cert, key: options.tls.key } } : {}),
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;
  const root = app as unknown as FastifyInstance;

  root.setValidatorCompiler(validatorCompiler);
  // Only JSON bodies are accepted; anything else is 415.
  root.removeContentTypeParser(['text/plain']);
  installErrorHandling(root);
  installSecurityHeaders(root, { tls: options.tls !== undefined });
  installAuthentication(root, authenticator);
  await installOpenApi(root, VERSION);
  root.addHook('onResponse', (request, reply, done) => {
    request.log.debug(
      {
        method: request.method,
        route: request.routeOptions.url,
        status: reply.statusCode,
        ms: reply.elapsedTime,
      },
      'request',
    );
    done();
  });

  await app.register(statusRoutes({ users, version: VERSION }));
  await app.register(authRoutes({ auth, authenticator, secureCookies: options.tls !== undefined }));
  await app.register(usersRoutes({ users: usersService }));
  await app.register(apiTokensRoutes({ apiTokens: apiTokensService }));
  await app.register(auditLogsRoutes({ audit }));
  await app.register(
    retentionRoutes({
      retention,
      path: '/api/v1/logs/audit/retention',
      recordType: 'audit_logs',
      label: 'audit log',
      tag: 'logs',
      readPermission: 'audit:retention',
      writePermission: 'audit:retention',
    }),
  );

  await app.register(radiosRoutes({ radios: recordServices.radios }));
  await app.register(radioEventsRoutes({ radioEvents: recordServices.radioEvents }));
  await app.register(subscriberLogsRoutes({ subscriberLogs: recordServices.subscriberLogs }));
  await app.register(radioLogsRoutes({ radioLogs: recordServices.radioLogs }));
  await app.register(flowReportsRoutes({ flowReports: recordServices.flowReports }));
  await app.register(subscriberUsageRoutes({ subscriberUsage: recordServices.subscriberUsage }));
  const recordRetentionPaths = [
    { target: RECORD_RETENTION.radioEvents, path: '/api/v1/ran/events/retention', tag: 'radios' },
    { target: RECORD_RETENTION.subscriberLogs, path: '/api/v1/logs/subscribers/retention', tag: 'logs' },
    { target: RECORD_RETENTION.radioLogs, path: '/api/v1/logs/radio/retention', tag: 'logs' },
    { target: RECORD_RETENTION.flowReports, path: '/api/v1/flow-reports/retention', tag: 'flow reports' },
    {
      target: RECORD_RETENTION.subscriberUsage,
      path: '/api/v1/subscriber-usage/retention',
      tag: 'subscriber usage',
    },
  ];
  for (const { target, path, tag } of recordRetentionPaths) {
    await app.register(
      retentionRoutes({
        retention,
        path,
        recordType: target.recordType,
        label: target.label,
        tag,
        readPermission: 'records:read',
        writePermission: 'records:write',
      }),
    );
  }
  // Every record accepted before shutdown is written before the database closes (main.ts closes the
  // app first, then the database).
  root.addHook('onClose', () => records.ingestion.close());

  await app.ready();
  return {
    app: root,
    retention,
    backgroundJobs: [
      {
        name: 'retention',
        intervalMs: HOUR_MS,
        job: async (signal) => void (await retention.enforce(signal)),
      },
      { name: 'expired-sessions', intervalMs: HOUR_MS, job: () => sessions.deleteExpired(clock.now()) },
    ],
    records: records.ingestion,
    decoders,
  };
}
