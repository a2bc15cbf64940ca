import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { backupRoutes } from '../backup/backup.routes.ts';
import type { Core } from '../core/create-core.ts';
import { installHttpMetrics } from '../metrics/http-metrics.ts';
import { metricsRoutes } from '../metrics/metrics.routes.ts';
import { pprofRoutes } from '../profiling/pprof.routes.ts';
import { RECORD_RETENTION } from '../records/records-retention.ts';
import { apiTokensRoutes } from '../resources/api-tokens/api-tokens.routes.ts';
import { auditLogsRoutes } from '../resources/audit-logs/audit-logs.routes.ts';
import { authRoutes } from '../resources/auth/auth.routes.ts';
import { cellPositionsRoutes } from '../resources/cell-positions/cell-positions.routes.ts';
import { dataNetworksRoutes } from '../resources/data-networks/data-networks.routes.ts';
import { flowReportsRoutes } from '../resources/flow-reports/flow-reports.routes.ts';
import { n2AllowlistRoutes } from '../resources/operator/n2-allowlist.routes.ts';
import { networkSecurityRoutes } from '../resources/operator/network-security.routes.ts';
import { operatorRoutes } from '../resources/operator/operator.routes.ts';
import { createEventStream } from '../resources/event-stream/event-stream.ts';
import { eventStreamRoutes, type EventStreamLimits } from '../resources/event-stream/event-stream.routes.ts';
import { policiesRoutes } from '../resources/policies/policies.routes.ts';
import { positioningRoutes } from '../resources/positioning/positioning.routes.ts';
import { profilesRoutes } from '../resources/profiles/profiles.routes.ts';
import { createRadioEventsExport } from '../resources/radio-events/radio-events-export.ts';
import { radioEventsExportRoutes } from '../resources/radio-events/radio-events-export.routes.ts';
import { radioEventsRoutes } from '../resources/radio-events/radio-events.routes.ts';
import { radioLogsRoutes } from '../resources/radio-logs/radio-logs.routes.ts';
import { radiosRoutes } from '../resources/radios/radios.routes.ts';
import { amfSetRoutes } from '../resources/amf-set/amf-set.routes.ts';
import { slicesRoutes } from '../resources/slices/slices.routes.ts';
import { createHealthReader, type NetworkSource } from '../resources/status/health.ts';
import { statusRoutes } from '../resources/status/status.routes.ts';
import { subscriberLogsRoutes } from '../resources/subscriber-logs/subscriber-logs.routes.ts';
import { smsRoutes } from '../resources/sms/sms.routes.ts';
import { smscLinkRoutes } from '../resources/sms/smsc-link.routes.ts';
import { SMS_RETENTION } from '../resources/sms/sms-retention.ts';
import { subscriberTimelineRoutes } from '../resources/subscriber-timeline/subscriber-timeline.routes.ts';
import { subscriberUsageRoutes } from '../resources/subscriber-usage/subscriber-usage.routes.ts';
import { subscriberImportRoutes } from '../resources/subscribers/subscriber-import.routes.ts';
import { subscribersRoutes } from '../resources/subscribers/subscribers.routes.ts';
import { usersRoutes } from '../resources/users/users.routes.ts';
import { retentionRoutes } from '../retention/retention.routes.ts';
import type { App } from './app-types.ts';
import { credentialsValid, installAuthentication } from './authentication.ts';
import {
  applyConnectionLimits,
  checkingInterval,
  DEFAULT_CONNECTION_LIMITS,
  type ConnectionLimits,
} from './connection-limits.ts';
import { deferredChildLogger } from './deferred-request-logger.ts';
import { installErrorHandling } from './error-handler.ts';
import { clientErrorHandler, frameworkErrorHandler, MAX_PARAM_LENGTH } from './framework-errors.ts';
import { installOpenApi } from './openapi.ts';
import type { Permission } from './permissions.ts';
import { installSecurityHeaders } from './security-headers.ts';
import { buildSerializer } from './serialization.ts';
import { validatorCompiler } from './validation.ts';
import { installWebUi } from './web-ui.ts';

interface HttpOptions {
  tls?: { cert: Buffer; key: Buffer };
  /** Largest database upload a restore accepts (default 16 GiB). */
  restoreMaxBytes?: number;
  /** Timeouts and connection caps (defaults in connection-limits.ts). */
  connectionLimits?: Partial<ConnectionLimits>;
  /** The network side as it runs (main.ts passes its N2 component), for the status's health view. */
  network?: NetworkSource;
  /** Live event stream bounds (defaults in event-stream.routes.ts). */
  eventStreamLimits?: Partial<EventStreamLimits>;
  /** Most radio events one pcapng export carries (default in radio-events-export.ts). */
  exportMaxRows?: number;
}

export interface RouteSummary {
  method: string;
  url: string;
  permission: Permission;
}

interface HttpApp {
  app: FastifyInstance;
  /** Every route with the permission that guards it (docs and the permission test read this). */
  routes: RouteSummary[];
}

const BODY_LIMIT = 1024 * 1024;

/** The management API over a core: routes translate HTTP to service calls. It never listens. */
export async function buildHttpApp(core: Core, options: HttpOptions = {}): Promise<HttpApp> {
  const { logger, identity, networkConfiguration: config, records, location, operations } = core;
  const limits = { ...DEFAULT_CONNECTION_LIMITS, ...options.connectionLimits };
  const serverOptions = { connectionsCheckingInterval: checkingInterval(limits) };
  const app = Fastify({
    loggerInstance: logger,
    childLoggerFactory: deferredChildLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    return503OnClosing: true,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkErrorHandler({ tls: options.tls !== undefined }),
    clientErrorHandler: clientErrorHandler({ tls: options.tls !== undefined }),
    schemaController: { compilersFactory: { buildSerializer } },
    ...(options.tls
      ? { https: { cert: options.tls.cert, key: options.tls.key, ...serverOptions } }
      : { http: serverOptions }),
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;
  const root = app as unknown as FastifyInstance;
  applyConnectionLimits(root.server, limits);

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
  installAuthentication(root, identity.authenticator);
  installWebUi(root);
  await installOpenApi(root, core.version);
  installHttpMetrics(root, core.metrics);
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
  // A running CPU profile or trace ends at once, so closing does not wait out its duration.
  root.addHook('preClose', (done) => {
    operations.profiler.close();
    done();
  });

  await app.register(
    statusRoutes({
      initialization: identity.initialization,
      version: core.version,
      health: createHealthReader({ metrics: core.metrics, network: options.network }),
      authenticated: credentialsValid(identity.authenticator),
      summary: async () => {
        const totals = core.networkState.totals();
        const { total } = await config.subscribers.list({}, 1, 0);
        // The whole AMF set's where it runs: this member's and every other live member's (docs/amf-set.md).
        const set = core.subscriberViews;
        const peers = set ? await set.peers.totals() : [];
        return {
          radios_connected: set ? (await core.radios.list(0, 0)).total : core.networkState.radioCount(),
          subscribers: total,
          subscribers_registered: peers.reduce(
            (n, p) => n + p.registeredSubscribers,
            totals.registeredSubscribers,
          ),
          sessions_active: peers.reduce((n, p) => n + p.activeSessions, totals.activeSessions),
        };
      },
    }),
  );
  await app.register(
    authRoutes({ auth: identity.auth, authenticator: identity.authenticator, secureCookies: !!options.tls }),
  );
  await app.register(usersRoutes({ users: identity.users }));
  await app.register(apiTokensRoutes({ apiTokens: identity.apiTokens }));
  await app.register(auditLogsRoutes({ audit: core.audit }));
  await app.register(
    retentionRoutes({
      retention: core.retention,
      path: '/api/v1/logs/audit/retention',
      recordType: 'audit_logs',
      label: 'audit log',
      tag: 'logs',
      readPermission: 'audit:retention',
      writePermission: 'audit:retention',
    }),
  );

  await app.register(metricsRoutes({ metrics: core.metrics }));
  await app.register(pprofRoutes({ profiler: operations.profiler, diagnostics: operations.diagnostics }));
  await app.register(backupRoutes({ backup: operations.backup, restoreMaxBytes: options.restoreMaxBytes }));

  await app.register(operatorRoutes({ operator: config.operator }));
  await app.register(networkSecurityRoutes({ networkSecurity: config.networkSecurity }));
  await app.register(n2AllowlistRoutes({ n2Allowlist: config.n2Allowlist }));
  await app.register(dataNetworksRoutes({ dataNetworks: config.dataNetworks }));
  await app.register(slicesRoutes({ slices: config.slices }));
  await app.register(profilesRoutes({ profiles: config.profiles }));
  await app.register(policiesRoutes({ policies: config.policies }));
  await app.register(subscribersRoutes({ subscribers: config.subscribers }));
  await app.register(subscriberImportRoutes({ subscribers: config.subscribers }));

  await app.register(radiosRoutes({ radios: core.radios }));
  await app.register(amfSetRoutes({ amfSet: core.amfSet, audit: core.audit }));
  await app.register(radioEventsRoutes({ radioEvents: records.radioEvents }));
  await app.register(
    radioEventsExportRoutes({
      radioEventsExport: createRadioEventsExport({
        radioEvents: records.radioEvents,
        radioAddress: (name) => core.networkState.findRadio(name)?.address,
        amfAddresses: () => options.network?.endpoint()?.local ?? [],
        maxRows: options.exportMaxRows,
      }),
    }),
  );
  // The live stream subscribes once per app; its clients end before the server closes.
  const eventStreamCuts = core.metrics.counter({
    name: 'pmn_event_stream_clients_cut_total',
    help: 'Event stream clients cut because they left too much unread',
  });
  const eventStreamDelay = core.metrics.histogram<'source'>({
    name: 'pmn_event_stream_delay_seconds',
    help: 'Time from an event (a record: when it was recorded) to its write to the event stream clients',
    labelNames: ['source'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  });
  const delayOf = {
    record: eventStreamDelay.series({ source: 'record' }),
    event: eventStreamDelay.series({ source: 'event' }),
  };
  const eventStream = createEventStream({
    events: core.networkEvents,
    now: () => core.clock.now(),
    records: {
      radioEvents: records.radioEvents,
      subscriberLogs: records.subscriberLogs,
      radioLogs: records.radioLogs,
      onWritten: records.onWritten,
    },
    audit: core.audit,
    radioIdOf: (name) => core.networkState.findRadio(name)?.id,
    logger,
    onCut: () => eventStreamCuts.inc({}),
    onDelay: (source, ms) => delayOf[source].observe(ms / 1000),
  });
  // Its record reads end before the database closes.
  root.addHook('preClose', async () => {
    await eventStream.close();
  });
  await app.register(eventStreamRoutes({ stream: eventStream, limits: options.eventStreamLimits }));
  await app.register(subscriberLogsRoutes({ subscriberLogs: records.subscriberLogs }));
  await app.register(
    subscriberTimelineRoutes({
      subscribers: config.subscribers,
      subscriberLogs: records.subscriberLogs,
      subscriberEvents: records.subscriberEvents,
      radioEvents: records.radioEvents,
      flowReports: records.flowReportsRepository,
      decoders: records.decoders,
      networkSecurity: config.networkSecurity,
      policies: config.policies,
    }),
  );
  await app.register(radioLogsRoutes({ radioLogs: records.radioLogs }));
  await app.register(flowReportsRoutes({ flowReports: records.flowReports }));
  await app.register(subscriberUsageRoutes({ subscriberUsage: records.subscriberUsage }));
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
        retention: core.retention,
        path,
        recordType: target.recordType,
        label: target.label,
        tag,
        readPermission: 'records:read',
        writePermission: 'records:write',
      }),
    );
  }

  await app.register(smsRoutes({ sms: config.sms }));
  await app.register(smscLinkRoutes({ smscLink: config.smscLink }));
  await app.register(
    retentionRoutes({
      retention: core.retention,
      path: '/api/v1/sms/retention',
      recordType: SMS_RETENTION.recordType,
      label: SMS_RETENTION.label,
      tag: 'sms',
      readPermission: 'records:read',
      writePermission: 'records:write',
    }),
  );
  await app.register(cellPositionsRoutes({ cellPositions: location.cellPositions }));
  await app.register(positioningRoutes({ positioning: location.positioning }));

  await app.ready();
  return { app: root, routes };
}
