import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { createConfigReload } from './config/config-reload.ts';
import {
  ConfigError,
  loadConfigSources,
  secretKeyPath,
  type Config,
  type LoadedConfig,
} from './config/config.ts';
import { systemTimers } from './clock.ts';
import { createCore } from './core/create-core.ts';
import type { N2Component } from './core/n2.wiring.ts';
import { loadOrCreateKeyFile } from './crypto/secret-box.ts';
import { buildHttpApp } from './http/build-http-app.ts';
import { logFatalExits } from './fatal-exit.ts';
import { noteFirstStartFiles } from './first-start-files.ts';
import { databaseFiles, isPostgresUrl, shownLocation } from './storage/database-location.ts';
import { resolveHostRoutes } from './network/upf/upf-settings.ts';
import { createLogger } from './logging.ts';

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  // The environment as at start: a reload of the file reads it again (src/config/config-reload.ts).
  const env = { ...process.env };
  const loaded = loadConfigSources(argv, env);
  const { config } = loaded;
  const logger = createLogger(config.logLevel);
  logFatalExits(logger);
  const tls = config.tls && { cert: readFileSync(config.tls.cert), key: readFileSync(config.tls.key) };

  const firstStart = noteFirstStartFiles(
    config.db === ':memory:' ? [] : [...databaseFiles(config.db), secretKeyPath(config)],
  );
  try {
    await start(loaded, () => loadConfigSources(argv, env), logger, tls);
  } catch (error) {
    firstStart.removeCreated();
    // The operator reads one line on stderr; the stack is there for whoever runs with debug logs.
    logger.debug({ err: error }, 'start failed');
    throw error;
  }
}

async function start(
  loaded: LoadedConfig,
  reload: () => LoadedConfig,
  logger: Logger,
  tls: { cert: Buffer; key: Buffer } | undefined,
) {
  const config: Config = loaded.config;
  // An in-memory database holds nothing past the process, so its secrets need no key file either.
  const secretKey =
    config.db === ':memory:' && !config.secretKeyFile
      ? randomBytes(32)
      : loadOrCreateKeyFile(secretKeyPath(config));

  const core = await createCore({
    storage: { path: config.db, poolSize: config.dbPoolSize },
    logger,
    secretKey,
    loginRateLimit: config.loginRateLimit,
  });
  // The network side starts after HTTP (below); the status's health view reads it as it then runs.
  let n2: N2Component | undefined;
  const network = { endpoint: () => n2?.endpoint(), upf: () => n2?.upf() };
  const { app } = await buildHttpApp(core, { tls, network });
  const { host, port } = config.listen;
  core.lifecycle.add({
    name: 'http',
    async start() {
      try {
        await app.listen({ host, port, listenTextResolver: (address) => `PMN Core listening on ${address}` });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
        if (code === 'EADDRINUSE')
          throw new Error(`${where} is already in use (choose another address with --listen)`);
        if (code === 'EADDRNOTAVAIL' || code === 'EACCES')
          throw new Error(`cannot listen on ${where}: ${code} (check --listen)`);
        throw error;
      }
    },
    async stop() {
      // Node closes the connections idle when closing starts; one that finishes its request later would
      // stay open for its keep-alive timeout, so idle connections are swept until every request has ended.
      const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
      await app.close();
      clearInterval(sweep);
    },
  });
  // The network side (N2, N1, N3) is added here, after HTTP, so that it stops first. Its code is
  // imported as it starts, once the API listens: in the bundle it is a chunk of its own, and compiling
  // it does not delay the API's first answer (docs/operations.md, "Starting fast").
  core.lifecycle.add({
    name: 'n2',
    async start() {
      const { createN2 } = await import('./core/n2.wiring.ts');
      // The UPF starts with N2 when it can (CAP_NET_ADMIN for its N6 TUN); otherwise one warning, and
      // PDU sessions are refused with 5GSM cause #26 (docs/upf.md).
      // Host routes for the served addresses by default where the AMF set may run (docs/upf.md).
      const upf = resolveHostRoutes(config.upf, isPostgresUrl(config.db));
      // A drained member leaves as a stop does, with exit status 0 (docs/amf-set.md, "Draining").
      n2 = createN2(core, config.n2, { upf: { settings: upf }, onDrained: () => void stop('drained') });
      await n2.start();
    },
    stop: () => n2?.stop(),
  });
  // Added after N2 so that it stops first: an edit of n2_further_endpoints in the file reaches the
  // running N2 service; other keys wait for the next start (docs/operations.md, "Configuration").
  core.lifecycle.add(
    createConfigReload({
      loaded,
      reload,
      changeFurtherEndpoints: (next) => n2?.service()?.changeFurtherEndpoints(next),
      logger,
      timers: systemTimers,
    }),
  );

  await core.start();
  const db = shownLocation(config.db);
  logger.info({ db, migrationsApplied: core.migrationsApplied }, `database ready at ${db}`);
  if (core.networkConfiguration.firstStart)
    logger.info('first start: default operator, data network, slice, profile and policy created');

  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping: no new connections, finishing requests in flight');
    await core.stop();
    logger.info('stopped');
    process.exit(0);
  };
  // SIGHUP (the terminal went away) would otherwise end the process without a word.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop(signal));
  // SIGUSR2 drains this member of its AMF set, as POST /api/v1/amf-set/drain does (docs/amf-set.md).
  process.on('SIGUSR2', () => {
    void core.amfSet.startDrain().then((refused) => {
      if (refused === undefined) logger.info({ signal: 'SIGUSR2' }, 'AMF set: drain started');
      else logger.warn({ signal: 'SIGUSR2', refused }, `AMF set: drain not started (${refused})`);
    });
  });
}

// Every start failure is one line an operator can act on, without a stack trace.
main().catch((error: unknown) => {
  const text =
    error instanceof ConfigError
      ? `configuration error: ${error.message}`
      : `cannot start: ${(error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ')}`;
  process.stderr.write(`${text}\n`);
  process.exit(1);
});
