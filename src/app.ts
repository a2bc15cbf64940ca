import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { systemClock, systemTimers, type Clock, type Timers } from './clock.ts';
import { DEFAULT_SCRYPT_COST, type ScryptCost } from './crypto/password-hash.ts';
import type { App } from './http/app-types.ts';
import type { Job } from './jobs/scheduler.ts';
import { installAuthentication } from './http/authentication.ts';
import { installErrorHandling } from './http/error-handler.ts';
import { installOpenApi } from './http/openapi.ts';
import type { Permission } from './http/permissions.ts';
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
import { createAuthenticator } from './identity/authenticator.ts';
import { createLoginRateLimiter } from './resources/auth/login-rate-limiter.ts';
import { createLoginSessionsRepository } from './resources/auth/login-sessions.repository.ts';
import { loadSigningSecret } from './resources/auth/signing-secret.ts';
import { createInitializationState } from './resources/status/initialization.ts';
import { statusRoutes } from './resources/status/status.routes.ts';
import { createUsersRepository } from './resources/users/users.repository.ts';
import { usersRoutes } from './resources/users/users.routes.ts';
import { createUsersService } from './resources/users/users.service.ts';
import { createRetentionPoliciesRepository } from './retention/retention-policies.repository.ts';
import { retentionRoutes } from './retention/retention.routes.ts';
import { createRetentionService, type RetentionService } from './retention/retention.service.ts';
import { sqliteFileOf, type Db } from './storage/database.ts';
import type { Executor } from './storage/transaction.ts';
import { VERSION } from './version.ts';
import { backupRoutes } from './backup/backup.routes.ts';
import { createBackupService } from './backup/backup.service.ts';
import { installHttpMetrics } from './metrics/http-metrics.ts';
import { createMetrics } from './metrics/metrics.ts';
import { metricsRoutes } from './metrics/metrics.routes.ts';
import { createDiagnostics } from './profiling/diagnostics.ts';
import { pprofRoutes } from './profiling/pprof.routes.ts';
import { createProfiler } from './profiling/profiler.ts';
import { createRetentionMetrics } from './retention/retention-metrics.ts';
import { registerDatabaseMetrics } from './storage/database-metrics.ts';
import { createSecretBox } from './crypto/secret-box.ts';
import { installNetworkMetrics } from './network/network-metrics.ts';
import { createNetworkState, type NetworkState } from './network/network-state.ts';
import { createDataNetworksRepository } from './resources/data-networks/data-networks.repository.ts';
import { dataNetworksRoutes } from './resources/data-networks/data-networks.routes.ts';
import { createDataNetworksService } from './resources/data-networks/data-networks.service.ts';
import { seedNetworkDefaults } from './resources/operator/network-defaults.ts';
import { createOperatorRepository } from './resources/operator/operator.repository.ts';
import { operatorRoutes } from './resources/operator/operator.routes.ts';
import { createOperatorService } from './resources/operator/operator.service.ts';
import { createPoliciesRepository } from './resources/policies/policies.repository.ts';
import { policiesRoutes } from './resources/policies/policies.routes.ts';
import { createPoliciesService } from './resources/policies/policies.service.ts';
import { createProfilesRepository } from './resources/profiles/profiles.repository.ts';
import { profilesRoutes } from './resources/profiles/profiles.routes.ts';
import { createProfilesService } from './resources/profiles/profiles.service.ts';
import { createSlicesRepository } from './resources/slices/slices.repository.ts';
import { slicesRoutes } from './resources/slices/slices.routes.ts';
import { createSlicesService } from './resources/slices/slices.service.ts';
import { subscriberImportRoutes } from './resources/subscribers/subscriber-import.routes.ts';
import { createSubscribersRepository } from './resources/subscribers/subscribers.repository.ts';
import { subscribersRoutes } from './resources/subscribers/subscribers.routes.ts';
import { createSubscribersService } from './resources/subscribers/subscribers.service.ts';
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
import { createUuidV7Generator } from './ids/uuid-v7.ts';
import { createCellPositionsRepository } from './resources/cell-positions/cell-positions.repository.ts';
import { cellPositionsRoutes } from './resources/cell-positions/cell-positions.routes.ts';
import { createCellPositionsService } from './resources/cell-positions/cell-positions.service.ts';
import { createLocator } from './resources/positioning/locator.ts';
import { createPositioningSessionsRepository } from './resources/positioning/positioning-sessions.repository.ts';
import { positioningRoutes } from './resources/positioning/positioning.routes.ts';
import { createPositioningService } from './resources/positioning/positioning.service.ts';
import { createSessionRunner, type SessionRunner } from './resources/positioning/session-runner.ts';

export interface AppOptions {
  /** A migrated database. */
  db: Db;
  logger: Logger;
  clock?: Clock;
  /** Timers of background work that runs per item (positioning sessions); tests pass a manual clock. */
  timers?: Timers;
  scryptCost?: ScryptCost;
  loginRateLimit?: number;
  tls?: { cert: Buffer; key: Buffer };
  /** Largest database upload a restore accepts (default 16 GiB). */
  restoreMaxBytes?: number;
  /** The 32-byte key that seals secrets at rest (subscriber keys and OPcs, the OP); kept outside the database. */
  secretKey: Buffer;
}

export interface RouteSummary {
  method: string;
  url: string;
  permission: Permission;
}

export interface BuiltApp {
  app: FastifyInstance;
  retention: RetentionService;
  /** Every route with the permission that guards it (docs and the permission test read this). */
  routes: RouteSummary[];
  /** The live picture of the network: the network functions write it, the API reads it. */
  networkState: NetworkState;
  /** Drives the active positioning sessions; tests wait on `settled()` after moving a manual clock. */
  positioning: SessionRunner;
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
  // Created first so that every part can register what it measures.
  const metrics = createMetrics();

  const users = createUsersRepository(db);
  const sessions = createLoginSessionsRepository(db);
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
  const initialization = createInitializationState(users);
  const authenticator = createAuthenticator({ loginSessions: sessions, apiTokens, signingSecret, clock });
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
  const usersService = createUsersService({
    db,
    users,
    sessions,
    audit,
    clock,
    scryptCost,
    credentialCache: authenticator.credentialCache,
  });
  const apiTokensService = createApiTokensService({
    db,
    users,
    apiTokens,
    audit,
    clock,
    scryptCost,
    credentialCache: authenticator.credentialCache,
  });

  // Records: radios, radio events, subscriber and radio logs, flow reports, usage (docs/records.md).
  const radioRegistry = createRadioRegistry({ clock });
  const decoders = createDecoderRegistry({ logger });
  const records = createRecordsPipeline({ db, radios: radioRegistry, clock, logger, metrics });
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

  const routes: RouteSummary[] = [];
  root.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method !== 'HEAD' && route.config?.permission)
        routes.push({ method, url: route.url, permission: route.config.permission });
    }
  });
  root.setValidatorCompiler(validatorCompiler);
  // Only JSON bodies are accepted; anything else is 415. An empty JSON body is no body, so bodiless
  // operations (logout, refresh, rotate-secret) accept clients that always send the JSON content type.
  const parseJson = root.getDefaultJsonParser('error', 'error');
  root.removeContentTypeParser(['text/plain', 'application/json']);
  root.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) =>
    body === '' ? done(null, undefined) : parseJson(request, body.toString(), done),
  );
  installErrorHandling(root);
  installSecurityHeaders(root, { tls: options.tls !== undefined });
  installAuthentication(root, authenticator);
  await installOpenApi(root, VERSION);
  installHttpMetrics(root, metrics);
  // The access line costs a few µs a request, so the hook exists only when its level is on.
  if (logger.isLevelEnabled('debug')) {
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
  }

  await app.register(statusRoutes({ initialization, version: VERSION }));
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

  // Operations: metrics, profiling, backup and restore.
  const retentionMetrics = createRetentionMetrics(metrics);
  const sqliteFile = sqliteFileOf(db);
  registerDatabaseMetrics(metrics, sqliteFile);
  const profiler = createProfiler();
  const diagnostics = createDiagnostics();
  // A running CPU profile or trace ends at once, so stopping does not wait out its duration.
  root.addHook('preClose', (done) => {
    profiler.close();
    done();
  });
  root.addHook('onClose', (_instance, done) => {
    diagnostics.close();
    done();
  });
  const backup = createBackupService({ db, file: sqliteFile, audit, clock, logger, version: VERSION });
  backup.onFileHold(() => records.holdFile());
  backup.onRestored(async () => records.repositories.flowReports.forgetCounts());
  backup.onRestored((executor) => signingSecret.reload(executor));
  backup.onRestored(async () => authenticator.credentialCache.forgetAll());
  backup.onRestored(async () => initialization.forget());
  await app.register(metricsRoutes({ metrics }));
  await app.register(pprofRoutes({ profiler, diagnostics }));
  await app.register(backupRoutes({ backup, restoreMaxBytes: options.restoreMaxBytes }));

  // Network configuration: operator, data networks, slices, profiles, policies, subscribers.
  const secretBox = createSecretBox(options.secretKey);
  const networkState = createNetworkState({ clock });
  radioRegistry.onDisconnected((radio) => networkState.radioDisconnected(radio.name));
  installNetworkMetrics(metrics, networkState, radioRegistry);
  const operatorRepository = createOperatorRepository(db);
  const dataNetworksRepository = createDataNetworksRepository(db);
  const slicesRepository = createSlicesRepository(db);
  const profilesRepository = createProfilesRepository(db);
  const policiesRepository = createPoliciesRepository(db);
  const subscribersRepository = createSubscribersRepository(db);
  const seedDefaults = (executor: Executor) =>
    seedNetworkDefaults({
      db: executor,
      secretBox,
      operator: operatorRepository,
      dataNetworks: dataNetworksRepository,
      slices: slicesRepository,
      profiles: profilesRepository,
      policies: policiesRepository,
    });
  if (await seedDefaults(db)) {
    // Said once the service listens: the first line an operator sees is where it listens.
    root.addHook('onListen', (done) => {
      logger.info('first start: default operator, data network, slice, profile and policy created');
      done();
    });
  }
  const operatorService = createOperatorService({
    db,
    operator: operatorRepository,
    subscribers: subscribersRepository,
    audit,
    secretBox,
  });
  const subscribersService = createSubscribersService({
    db,
    subscribers: subscribersRepository,
    profiles: profilesRepository,
    operator: operatorService,
    audit,
    state: networkState,
    secretBox,
    clock,
  });
  await app.register(operatorRoutes({ operator: operatorService }));
  await app.register(
    dataNetworksRoutes({
      dataNetworks: createDataNetworksService({
        db,
        dataNetworks: dataNetworksRepository,
        policies: policiesRepository,
        audit,
        state: networkState,
      }),
    }),
  );
  await app.register(
    slicesRoutes({
      slices: createSlicesService({ db, slices: slicesRepository, policies: policiesRepository, audit }),
    }),
  );
  await app.register(
    profilesRoutes({
      profiles: createProfilesService({
        db,
        profiles: profilesRepository,
        policies: policiesRepository,
        subscribers: subscribersRepository,
        audit,
      }),
    }),
  );
  await app.register(
    policiesRoutes({
      policies: createPoliciesService({
        db,
        policies: policiesRepository,
        dataNetworks: dataNetworksRepository,
        profiles: profilesRepository,
        slices: slicesRepository,
        audit,
      }),
    }),
  );
  await app.register(subscribersRoutes({ subscribers: subscribersService }));
  await app.register(subscriberImportRoutes({ subscribers: subscribersService }));
  backup.onRestored(async () => subscribersService.forgetListPositions());
  // A database from before the network configuration existed gets the first-start defaults.
  backup.onRestored(async (executor) => void (await seedDefaults(executor)));
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

  // Location (beta): cell positions, location requests and positioning sessions.
  const newId = createUuidV7Generator(clock);
  const cellPositionsRepository = createCellPositionsRepository(db);
  const positioningSessionsRepository = createPositioningSessionsRepository(db);
  const locator = createLocator({
    subscribers: subscribersRepository,
    cellPositions: cellPositionsRepository,
    state: networkState,
  });
  const positioning = createSessionRunner({
    db,
    sessions: positioningSessionsRepository,
    subscribers: subscribersRepository,
    locator,
    state: networkState,
    clock,
    timers: options.timers ?? systemTimers,
    logger,
  });
  // Sessions active when the process stopped go on; every timer stops when the app closes.
  await positioning.restore(db);
  root.addHook('onClose', async () => positioning.stop());
  backup.onRestored((executor) => positioning.restore(executor));
  retention.register({
    recordType: 'positioning_sessions',
    label: 'ended positioning session',
    defaultDays: 30,
    deleteOlderThan: (cutoff, limit) => positioningSessionsRepository.deleteEndedBefore(cutoff, limit),
  });
  await app.register(
    cellPositionsRoutes({
      cellPositions: createCellPositionsService({ db, cellPositions: cellPositionsRepository, audit, newId }),
    }),
  );
  await app.register(
    positioningRoutes({
      positioning: createPositioningService({
        db,
        sessions: positioningSessionsRepository,
        locator,
        runner: positioning,
        audit,
        clock,
        newId,
      }),
    }),
  );

  await app.ready();
  return {
    app: root,
    retention,
    routes,
    networkState,
    positioning,
    backgroundJobs: [
      {
        name: 'retention',
        intervalMs: HOUR_MS,
        job: async (signal) => retentionMetrics.record(await retention.enforce(signal)),
      },
      { name: 'expired-sessions', intervalMs: HOUR_MS, job: () => sessions.deleteExpired(clock.now()) },
    ],
    records: records.ingestion,
    decoders,
  };
}
