import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError, loadConfig, secretKeyPath } from './config/config.ts';
import { createCore } from './core/create-core.ts';
import { loadOrCreateKeyFile } from './crypto/secret-box.ts';
import { buildHttpApp } from './http/build-http-app.ts';
import { createLogger } from './logging.ts';

/** A start failure an operator can act on, said in one line without a stack trace. */
class StartError extends Error {}

async function main(): Promise<void> {
  const config = loadConfig(process.argv.slice(2), process.env);
  const logger = createLogger(config.logLevel);
  const tls = config.tls && { cert: readFileSync(config.tls.cert), key: readFileSync(config.tls.key) };

  // An in-memory database holds nothing past the process, so its secrets need no key file either.
  const secretKey =
    config.db === ':memory:' && !config.secretKeyFile
      ? randomBytes(32)
      : loadOrCreateKeyFile(secretKeyPath(config));

  const core = await createCore({
    storage: { path: config.db },
    logger,
    secretKey,
    loginRateLimit: config.loginRateLimit,
  });
  const { app } = await buildHttpApp(core, { tls });
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
          throw new StartError(
            `cannot listen on ${where}: the address is in use (choose another with --listen)`,
          );
        if (code === 'EADDRNOTAVAIL' || code === 'EACCES')
          throw new StartError(`cannot listen on ${where}: ${code} (check --listen)`);
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
  // The network side (N2, N1, N3) is added here, after HTTP, so that it stops first.

  await core.start();
  logger.info({ db: config.db, migrationsApplied: core.migrationsApplied }, `database ready at ${config.db}`);
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
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  const text =
    error instanceof ConfigError
      ? `configuration error: ${error.message}`
      : error instanceof StartError
        ? `cannot start: ${error.message}`
        : String((error as Error).stack ?? error);
  process.stderr.write(`${text}\n`);
  process.exit(1);
});
